/* free of a page the program mapped itself with mmap. */
#include "../badinput.h"
#include <sys/mman.h>

int main(void)
{
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        return 2;
    bi_block_at((uintptr_t)page);
    test_family.free(page);
    munmap(page, 4096);
    return bi_end();
}
