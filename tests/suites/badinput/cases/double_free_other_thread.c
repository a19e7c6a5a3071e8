/* A block freed by one thread and freed again by another (the second free
 * meets none of the first thread's per-thread state). */
#include "../badinput.h"
#include <pthread.h>

static void *free_it(void *p)
{
    test_family.free(bi_hide(p));
    return NULL;
}

int main(void)
{
    size_t size = 48;
    void *p = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    pthread_t t;
    if (pthread_create(&t, NULL, free_it, p) != 0 || pthread_join(t, NULL) != 0)
        return 2;
    return bi_end();
}
