/* tests/layers/os/os_test.h — what the OS-layer white-box tests look at:
 * the page map, memory contents, the process's resident set. Included after
 * the composition (the page map is the composition's). */
#ifndef MORTISE_TEST_OS_TEST_H
#define MORTISE_TEST_OS_TEST_H
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline uintptr_t owner_of(const void *p) { return mt_entry_owner(mt_pagemap_get(p)); }
static inline uintptr_t payload_of(const void *p) { return mt_entry_payload(mt_pagemap_get(p)); }
static inline bool is_granule_aligned(const void *p) { return ((uintptr_t)p & (MT_GRANULE - 1)) == 0; }

static inline bool is_zero(const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        if (b[i])
            return false;
    return true;
}

/* Resident bytes of this process (/proc/self/statm, second field). Read
 * with plain system calls: stdio would allocate, and the C library's malloc
 * moving the program break would disturb brk_heap's tests. */
static inline size_t rss_bytes(void)
{
    char text[128] = {0};
    int fd = open("/proc/self/statm", O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return 0;
    const char *field = strchr(text, ' ');
    return field ? (size_t)strtoul(field + 1, NULL, 10) * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

/* A small deterministic generator (xorshift) for stress tests. */
static inline unsigned next_random(unsigned *state)
{
    unsigned x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* Run body(seed + i) on two threads at once (the machine has two cores);
 * true iff both returned NULL, i.e. found nothing wrong. */
static inline bool on_two_threads(void *(*body)(void *), uintptr_t seed)
{
    pthread_t thread[2];
    void *bad[2] = {(void *)1, (void *)1};
    for (uintptr_t i = 0; i < 2; i++)
        if (pthread_create(&thread[i], NULL, body, (void *)(seed + i)) != 0)
            return false;
    for (int i = 0; i < 2; i++)
        pthread_join(thread[i], &bad[i]);
    return bad[0] == NULL && bad[1] == NULL;
}

#ifdef OS_TEST_T_SOCKET
/* What follows needs the composition's t_ socket over the OS layer alone (a
 * test defines OS_TEST_T_SOCKET) and check.h. */

/* blk[0..2]: one granule, two granules, one granule aligned to 1 MiB, checked
 * for alignment, page-map ownership by layer `id`, usable size, and interior
 * pointers that are no block (no size; free ignores them). */
static inline void granule_blocks_make(uintptr_t id, char *blk[3])
{
    char *a = blk[0] = t_malloc(1), *b = blk[1] = t_malloc(MT_GRANULE + 1);
    char *c = blk[2] = t_aligned_alloc(1 << 20, 100);
    CHECK(a && b && c);
    CHECK(is_granule_aligned(a) && is_granule_aligned(b));
    CHECK(((uintptr_t)c & ((1 << 20) - 1)) == 0);
    CHECK(owner_of(a) == id && payload_of(a) == 1);
    CHECK(owner_of(b) == id && payload_of(b) == 2);
    CHECK(t_malloc_usable_size(a) == MT_GRANULE && t_malloc_usable_size(b) == 2 * MT_GRANULE);
    CHECK(t_malloc_usable_size(a + 16) == 0);
    CHECK(t_malloc_usable_size(b + MT_GRANULE) == 0);
    t_free(b + 16);
    CHECK(owner_of(b) == id);
}

/* Free granule_blocks_make's blocks: nobody owns them any more. */
static inline void granule_blocks_free(char *blk[3])
{
    for (int i = 0; i < 3; i++)
        t_free(blk[i]);
    CHECK(owner_of(blk[0]) == 0 && owner_of(blk[1]) == 0 && owner_of(blk[2]) == 0);
}

/* A layer over range_fit.h: a freed hole is taken back first (zero-filled:
 * its pages went back when freed) and neighbouring holes merge. */
static inline void check_first_fit_and_coalescing(bool (*holds)(void))
{
    char *a = t_malloc(MT_GRANULE), *b = t_malloc(MT_GRANULE), *c = t_malloc(MT_GRANULE);
    char *guard = t_malloc(MT_GRANULE);
    CHECK(a && b && c && guard && b == a + MT_GRANULE && c == b + MT_GRANULE);
    memset(b, 0x5a, MT_GRANULE);
    t_free(b);
    CHECK(holds());
    char *b2 = t_malloc(MT_GRANULE);
    CHECK(b2 == b);
    CHECK(is_zero(b2, MT_GRANULE));
    t_free(a);
    t_free(b2);
    t_free(c);
    CHECK(holds());
    char *abc = t_malloc(3 * MT_GRANULE);
    CHECK(abc == a);
    t_free(abc);
    t_free(guard);
    CHECK(holds());
}

enum { STRESS_SLOTS = 16, STRESS_ROUNDS = 3000 };

/* Blocks of 1-4 granules allocated and freed at random on one thread, each
 * checked zero-filled when it comes and still holding its tag when it goes.
 * Returns the number of faults (NULL: none). */
static void *granule_stress(void *arg)
{
    uintptr_t tag = (uintptr_t)arg;
    unsigned seed = (unsigned)tag * 7919u + 1;
    char *slot[STRESS_SLOTS] = {0};
    size_t len[STRESS_SLOTS] = {0};
    long bad = 0;
    for (int round = 0; round < STRESS_ROUNDS; round++) {
        int i = (int)(next_random(&seed) % STRESS_SLOTS);
        if (slot[i]) {
            for (size_t k = 0; k < len[i]; k += 4096)
                bad += slot[i][k] != (char)(tag + i);
            t_free(slot[i]);
            slot[i] = NULL;
        } else {
            len[i] = (1 + next_random(&seed) % 4) * MT_GRANULE;
            slot[i] = t_malloc(len[i]);
            if (!slot[i] || !is_zero(slot[i], len[i]))
                bad++;
            else
                for (size_t k = 0; k < len[i]; k += 4096)
                    slot[i][k] = (char)(tag + i);
        }
    }
    for (int i = 0; i < STRESS_SLOTS; i++)
        t_free(slot[i]);
    return (void *)bad;
}

/* free leaves errno alone (the layer's system calls keep it); then two
 * threads of granule_stress: nothing wrong, the free ranges sound, nothing
 * handed out at the end. */
static inline void check_errno_and_threads(bool (*holds)(void))
{
    errno = 1234;
    char *p = t_malloc(MT_GRANULE);
    t_free(p);
    CHECK(errno == 1234);
    CHECK(holds());
    CHECK(on_two_threads(granule_stress, 1));
    CHECK(holds());
    mt_os_stats s;
    mt_os_stats_read(&s);
    CHECK(s.handed_out == 0);
}

#endif

#endif
