/* Eight bytes written just before a 3 MiB block aligned to 1 MiB, then the
 * block freed: a far alignment, whose block starts a granule inside a large
 * block of the OS layer (tail_chksum's head canary needs its own page-map
 * entry there; delayed_free's header sits in front as for any block).
 * Without a layer in front of the block (plain instances map it fresh) the
 * page in front may be unmapped: the write would fault in the program
 * itself, so it is skipped there ("front unmapped") and the block freed;
 * under a safety layer the head or header is always in front. */
#include "../badinput.h"
#include <sys/mman.h>
#include <unistd.h>

static int mapped(const void *p)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char state;
    return mincore((void *)((uintptr_t)p & ~(uintptr_t)(page - 1)), 1, &state) == 0;
}

int main(void)
{
    size_t align = (size_t)1 << 20, size = (size_t)3 << 20;
    unsigned char *p = test_family.aligned_alloc(align, size);
    bi_block(p, size);
    unsigned char *front = (unsigned char *)bi_hide(p) - 8;
    if (mapped(front))
        memset(front, 0x41, 8);
    else
        bi_line("front unmapped");
    test_family.free(p);
    return bi_end();
}
