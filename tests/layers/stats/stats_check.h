/* tests/layers/stats: the harness of tests/common/check.h (CHECK_MSG prints
 * the values that failed) and a cast for printing counters. */
#include "../../common/check.h"

#define ULL(x) ((unsigned long long)(x))
