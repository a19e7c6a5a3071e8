/* The self-test's console on the build machine (baremetal.hosted): the same
 * firmware code, compiled freestanding except for this file, run as an
 * ordinary 64-bit program, so a failure on a target can be told apart
 * from one everywhere. */
#include "../console.h"
#include <stdio.h>
#include <stdlib.h>

void bm_write(const char *text) { fputs(text, stdout); }

void bm_exit(int status)
{
    fflush(stdout);
    exit(status);
}
