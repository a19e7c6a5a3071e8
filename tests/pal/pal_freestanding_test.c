/* The freestanding port (include/mortise/pal/pal_freestanding.h), compiled
 * with -ffreestanding -nostdinc -DMT_FREESTANDING: every service without an
 * OS fails the way pal.h says, and the ones that need no OS still work.
 * Returns the line of the first failed check (0: all passed). */
#include <mortise/pal/pal.h>

#define CHECK(c)             \
    do {                     \
        if (!(c))            \
            return __LINE__; \
    } while (0)

static int check(void)
{
    uint64_t seed = 5;
    mt_pal_cpuset set;
    char buf[8] = "xxxxxxx";
    mt_pal_key key;
    _Atomic(uint32_t) word = 0;

    CHECK(mt_pal_map(4096) == NULL);
    CHECK(mt_pal_remap(buf, 1, 2, NULL) == NULL && !MT_PAL_HAVE_REMAP);
    CHECK(!mt_pal_page_mapped(buf));
    CHECK(mt_pal_brk(0) == NULL);
    CHECK(mt_pal_page_size() == 0);
    CHECK(mt_pal_cpu() == -1);
    CHECK(!mt_pal_affinity_get(&set) && !mt_pal_affinity_pin(0));
    CHECK(mt_pal_read_file("/proc/self/stat", buf, sizeof buf) == -1 && buf[0] == 0);
    CHECK(mt_pal_getenv("PATH") == NULL);
    CHECK(!mt_pal_random_seed(&seed) && seed == 5);
    CHECK(mt_pal_next_symbol("malloc") == NULL && !MT_PAL_HAVE_NEXT_SYMBOL);
    CHECK(mt_pal_write_all(2, "x", 1));
    CHECK(mt_pal_open_write("/tmp/x") == -1 && mt_pal_dup_fd(2, 100) == -1);
    CHECK(!mt_pal_thread_start(0, 0, 4096) && !mt_pal_key_create(&key, 0));
    CHECK(!mt_pal_atfork(0, 0, 0));
    CHECK(!MT_PAL_HAVE_FUTEX);
    CHECK(mt_pal_futex(&word, MT_PAL_FUTEX_WAKE, 1, NULL, 0) == 0);
    CHECK(mt_pal_futex(&word, MT_PAL_FUTEX_WAIT, 0, NULL, 0) == 0); /* polls: returns */
    mt_pal_set_errno(MT_ENOMEM);
    CHECK(mt_pal_errno() == 12);
#if defined(__x86_64__) || defined(__aarch64__)
    CHECK(mt_pal_cycles() != 0); /* the CPU's counter needs no OS */
#endif

    mt_pal_mutex m;
    mt_pal_mutex_init(&m);
    mt_pal_mutex_lock(&m);
    mt_pal_mutex_unlock(&m);
    mt_pal_spin s;
    mt_pal_spin_init(&s);
    CHECK(mt_pal_spin_trylock(&s) && !mt_pal_spin_trylock(&s));
    mt_pal_spin_unlock(&s);
    CHECK(mt_pal_spin_trylock(&s));
    return 0;
}

int main(void) { return check(); }
