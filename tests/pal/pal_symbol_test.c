/* mt_pal_symbol (include/mortise/pal/symbol.h) against dladdr: every
 * address asked must get dladdr's answer to the pointer (function name,
 * function start, object file name, object base), whether the object's
 * index or dladdr itself answered. The addresses: every defined dynamic
 * symbol of libc, of this program and of a test shared object (start,
 * inside, last byte, one past the end, one before), read from the files'
 * section headers (not the way symbol.h reads them), and a stride through
 * their executable segments (gaps, hidden functions). Then: threads that
 * build one index at once, dlclose and another object loaded in its
 * place, look-ups from a signal handler, and no malloc while indexing. */
#include <stdatomic.h>
static atomic_long hook_indexed, hook_other;
#define MT_PAL_SYMBOL_HOOK(indexed) ((indexed) ? hook_indexed++ : hook_other++)
#include <mortise/pal/symbol.h>

#include <elf.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "../common/check.h"

static atomic_long compared, mismatched;

static void compare(const void *a)
{
    mt_pal_symbol_info got = {0};
    Dl_info want;
    bool found = mt_pal_symbol(a, &got);
    int known = dladdr(a, &want);
    compared++;
    if (found == (known != 0) &&
        (!known || (got.function == want.dli_sname && got.function_start == want.dli_saddr &&
                    got.object == want.dli_fname && got.object_base == want.dli_fbase)))
        return;
    if (mismatched++ < 20)
        fprintf(stderr, "%p: mt_pal_symbol %d %s@%p %s@%p, dladdr %d %s@%p %s@%p\n", a, found,
                got.function ? got.function : "-", got.function_start, got.object ? got.object : "-",
                got.object_base, known, known && want.dli_sname ? want.dli_sname : "-",
                known ? want.dli_saddr : NULL, known && want.dli_fname ? want.dli_fname : "-",
                known ? want.dli_fbase : NULL);
}

/* An object's addresses to ask, as offsets from its load bias. */
typedef struct {
    uintptr_t *off;
    size_t n, cap;
} offsets;

static void add(offsets *o, uintptr_t off)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 1024;
        o->off = realloc(o->off, o->cap * sizeof *o->off);
        if (!o->off)
            abort();
    }
    o->off[o->n++] = off;
}

/* The file's .dynsym (section headers) and executable PT_LOADs. */
static offsets read_offsets(const char *path)
{
    offsets o = {0};
    int fd = open(path, O_RDONLY);
    struct stat st;
    CHECK(fd >= 0 && fstat(fd, &st) == 0);
    if (fd < 0)
        return o;
    const char *f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    CHECK(f != MAP_FAILED);
    if (f == MAP_FAILED)
        return o;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)f;
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(f + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM)
            continue;
        const ElfW(Sym) *sym = (const ElfW(Sym) *)(f + sh[i].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++) {
            if (sym[k].st_shndx == SHN_UNDEF || sym[k].st_shndx == SHN_ABS ||
                ELF64_ST_TYPE(sym[k].st_info) == STT_TLS)
                continue;
            uintptr_t v = sym[k].st_value, size = sym[k].st_size;
            add(&o, v);
            add(&o, v + 1);
            if (v)
                add(&o, v - 1);
            if (size > 2) {
                add(&o, v + size / 2);
                add(&o, v + size - 1);
            }
            add(&o, v + size);
        }
    }
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(f + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
            uintptr_t stride = ph[i].p_memsz / 6000 | 1;
            stride = stride < 61 ? 61 : stride;
            for (uintptr_t a = ph[i].p_vaddr; a < ph[i].p_vaddr + ph[i].p_memsz; a += stride)
                add(&o, a);
        }
    munmap((void *)f, (size_t)st.st_size);
    return o;
}

/* The load bias of the object that holds a. */
static uintptr_t bias_of(const void *a)
{
    Dl_info info;
    struct link_map *map = NULL;
    CHECK(dladdr1(a, &info, (void **)&map, RTLD_DL_LINKMAP) && map);
    return map ? map->l_addr : 0;
}

static void compare_all(const offsets *o, uintptr_t bias, size_t from)
{
    for (size_t k = 0; k < o->n; k++)
        compare((const void *)(bias + o->off[(k + from) % o->n]));
}

static void *open_lib(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
    CHECK(h);
    return h;
}

/* Loads a test object and asks for its addresses, then for the other
 * one's old addresses (unmapped now, or this object's). */
static void *load_and_compare(const char *path, const char *name, const offsets *own, uintptr_t *bias,
                              const offsets *other, uintptr_t other_bias)
{
    void *h = open_lib(path);
    if (!h)
        return NULL;
    *bias = bias_of(dlsym(h, name));
    compare_all(own, *bias, 0);
    compare_all(other, other_bias, 0);
    return h;
}

static offsets lib_b_off;
static uintptr_t lib_b_bias;
static pthread_barrier_t start_together;

static void *thread_main(void *arg)
{
    pthread_barrier_wait(&start_together);
    compare_all(&lib_b_off, lib_b_bias, (size_t)(uintptr_t)arg * 997);
    return NULL;
}

/* The signal handler asks for a few addresses answered outside it first;
 * false is allowed (the handler interrupted symbol.h's own loader call). */
#define SIG_ADDRS 4
static const void *sig_addr[SIG_ADDRS];
static mt_pal_symbol_info sig_want[SIG_ADDRS];
static atomic_int sig_handled, sig_wrong, sig_silent;

static void on_prof(int sig)
{
    (void)sig;
    int k = sig_handled++ % SIG_ADDRS;
    mt_pal_symbol_info got;
    if (!mt_pal_symbol(sig_addr[k], &got))
        sig_silent++;
    else if (memcmp(&got, &sig_want[k], sizeof got) != 0)
        sig_wrong++;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(len > 0);
    exe[len > 0 ? len : 0] = 0;
    Dl_info libc;
    CHECK(dladdr((void *)printf, &libc));

    /* libc, this program, lib A */
    offsets libc_off = read_offsets(libc.dli_fname), exe_off = read_offsets(exe);
    offsets lib_a_off = read_offsets(PSL_LIB_A);
    lib_b_off = read_offsets(PSL_LIB_B);
    CHECK(libc_off.n > 1000 && exe_off.n > 10 && lib_a_off.n > 100 && lib_b_off.n > lib_a_off.n);
    compare_all(&libc_off, bias_of((void *)printf), 0);
    compare_all(&exe_off, bias_of((void *)main), 0);
    void *a = open_lib(PSL_LIB_A);
    uintptr_t a_bias = a ? bias_of(dlsym(a, "psl1_f10")) : 0;
    if (a)
        compare_all(&lib_a_off, a_bias, 0);
    printf("objects: %ld addresses, %ld indexed, %ld by dladdr\n", (long)compared, (long)hook_indexed,
           (long)hook_other);
    CHECK(!MT_PAL_SYMBOL_INDEX || hook_indexed > 9 * hook_other);

    /* the first look-up in lib B makes no malloc (the index is in pages) */
    void *b = open_lib(PSL_LIB_B);
    if (b) {
        lib_b_bias = bias_of(dlsym(b, "psl2_f10"));
        struct mallinfo2 before = mallinfo2();
        mt_pal_symbol_info info;
        CHECK(mt_pal_symbol(dlsym(b, "psl2_f11"), &info) && info.function &&
              strcmp(info.function, "psl2_f11") == 0);
        struct mallinfo2 after = mallinfo2();
        CHECK(before.uordblks == after.uordblks && before.hblkhd == after.hblkhd);
        dlclose(b);
    }

    /* lib B again, from 4 threads at once: one builds, the others ask dladdr */
    b = open_lib(PSL_LIB_B);
    if (b) {
        lib_b_bias = bias_of(dlsym(b, "psl2_f10"));
        pthread_t t[4];
        pthread_barrier_init(&start_together, NULL, 4);
        for (int i = 0; i < 4; i++)
            CHECK(pthread_create(&t[i], NULL, thread_main, (void *)(uintptr_t)i) == 0);
        for (int i = 0; i < 4; i++)
            pthread_join(t[i], NULL);
        pthread_barrier_destroy(&start_together);
    }

    /* unload A, ask for its old addresses (unmapped, or another object's),
     * then B, A and B again wherever they land */
    if (a) {
        dlclose(a);
        compare_all(&lib_a_off, a_bias, 0);
    }
    for (int round = 0; round < 3 && b; round++) {
        dlclose(b);
        a = load_and_compare(PSL_LIB_A, "psl1_f10", &lib_a_off, &a_bias, &lib_b_off, lib_b_bias);
        if (!a)
            break;
        dlclose(a);
        b = load_and_compare(PSL_LIB_B, "psl2_f10", &lib_b_off, &lib_b_bias, &lib_a_off, a_bias);
    }
    compare_all(&libc_off, bias_of((void *)printf), 0);

    /* a signal handler asking while this thread asks */
    sig_addr[0] = (const char *)printf + 3;
    sig_addr[1] = (const char *)main + 1;
    sig_addr[2] = (const char *)mt_pal_symbol + 2;
    sig_addr[3] = b ? (const char *)dlsym(b, "psl2_f20") + 1 : (const void *)malloc;
    for (int k = 0; k < SIG_ADDRS; k++)
        CHECK(mt_pal_symbol(sig_addr[k], &sig_want[k]));
    signal(SIGPROF, on_prof);
    struct itimerval every = {{0, 200}, {0, 200}}, off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &every, NULL);
    /* look-ups alone here (the handler compares), so that the signals land
     * in symbol.h rather than in dladdr */
    const offsets *o = b ? &lib_b_off : &exe_off;
    uintptr_t bias = b ? lib_b_bias : bias_of((void *)main);
    for (long k = 0; k < 100000000 && sig_handled < 50; k++) {
        mt_pal_symbol_info info;
        mt_pal_symbol((const void *)(bias + o->off[k % (long)o->n]), &info);
    }
    setitimer(ITIMER_PROF, &off, NULL);
    printf("signals: %d handled, %d answered nothing, %d wrong\n", (int)sig_handled, (int)sig_silent,
           (int)sig_wrong);
    CHECK(sig_handled >= 50 && !sig_wrong && sig_silent < sig_handled);
    if (b)
        dlclose(b);

    printf("pal_symbol_test: %ld addresses compared with dladdr, %ld differ; %ld answered by an "
           "index, %ld by dladdr\n",
           (long)compared, (long)mismatched, (long)hook_indexed, (long)hook_other);
    CHECK(mismatched == 0);
    CHECK(!MT_PAL_SYMBOL_INDEX || hook_indexed > 9 * hook_other);
    return check_report("pal_symbol_test");
}
