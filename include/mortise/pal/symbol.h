/* mortise/pal/symbol.h — the names of code addresses, and the fork gate
 * that every call into the dynamic loader or the unwinder passes, for the
 * layers that name call sites: affinity_pool (with the unwinder of
 * pal/callchain.h) and the lock statistics (policy/sync/lockstat.h, the
 * program call site of each lock's callers). The rest of the port layer is
 * pal.h.
 *
 * bool mt_pal_symbol(const void *addr, mt_pal_symbol_info *out)
 *     the exported symbol whose code holds addr and the object file it is
 *     in: exactly dladdr's answer (name, start, file name, base); false
 *     when no loaded object holds addr. Call it with no allocator lock
 *     held: it takes the dynamic loader's locks (recursive ones) and may
 *     map pages.
 *     Cost: dladdr scans the whole dynamic symbol table of the object on
 *     every call, so with glibc's _dl_find_object (2.35 on) each object
 *     gets an index instead, built once on its first look-up: the symbols
 *     dladdr would consider, sorted by address, in pages of mt_pal_map
 *     kept for the process's life (never malloc: this runs inside it).
 *     A look-up is then _dl_find_object, one dl_iterate_phdr step (the
 *     loader's unload count) and a binary search, whose cost grows with
 *     the logarithm of the object's symbol count, not with the count.
 *     Building costs a dladdr, one pass over the table and a radix sort.
 *     Falls back to dladdr, same answer and cost as before: without
 *     _dl_find_object (musl, older glibc, MT_PAL_SYMBOL_NO_INDEX); for an
 *     object that looks unusual (no hash table, more segments or symbols
 *     than the index holds, offsets past 32 bits, a damaged table);
 *     beyond the first 64 objects; while another thread is building an
 *     index; for an address between an object's segments; and once per
 *     object after any unload (dlclose), when dladdr checks that the
 *     object there is still the one indexed (same link_map, file name,
 *     base, load bias and dynamic section) or drops its index.
 *     Thread safety: any thread, and a signal handler, may call it. One
 *     thread builds at a time; others (and a handler interrupting the
 *     builder) ask dladdr meanwhile. A handler that interrupts this
 *     code inside the loader gets false, or an index's answer where that
 *     takes no lock the interrupted call may hold (never a second dladdr
 *     or dl_iterate_phdr over a half-taken lock of the loader).
 *     Freestanding and Windows: false.
 *
 * Fork. mt_pal_symbol and the unwinder's calls run inside a gate that no
 * fork crosses: the dynamic loader's locks (and the unwinder's, where it
 * takes any) are held inside them, and a fork that copied another thread
 * there would leave them held for ever in the child (whose next look-up
 * then hangs). A composition whose layers call them calls, from its fork
 * handlers:
 * void mt_pal_callchain_fork_prepare(void)
 *     waits until no other thread is inside, and keeps new callers out
 *     (they wait) until the fork is over; call it before taking any
 *     allocator lock, since a malloc made from inside the unwinder goes
 *     below;
 * void mt_pal_callchain_fork_parent(void), mt_pal_callchain_fork_child(void)
 *     open the gate again (in the child, only the forking thread is left,
 *     and it is outside).
 * Calling prepare twice before parent or child (two users in one
 * composition) is harmless: the second finds the gate shut and nobody
 * inside. A thread already inside (a signal handler interrupting a
 * look-up) enters again without waiting; the forking thread itself, called
 * back while it forks, gets no frame and no symbol (0, false) instead of
 * waiting on its own fork. Freestanding and Windows: no fork, no gate.
 */
#ifndef MORTISE_PAL_SYMBOL_H
#define MORTISE_PAL_SYMBOL_H

#include "pal.h"

typedef struct {
    const char *function; /* NULL when no symbol covers addr */
    const void *function_start;
    const char *object; /* the file name of the object, NULL if unknown */
    const void *object_base;
} mt_pal_symbol_info;

#if defined(MT_FREESTANDING) || defined(_WIN32)
/* Windows (pal_windows.h): no dladdr and no fork, so no gate either; a call
 * site is named by its address alone. */
MT_UNUSED static bool mt_pal_symbol(const void *addr, mt_pal_symbol_info *out)
{
    (void)addr;
    (void)out;
    return false;
}
MT_UNUSED static void mt_pal_callchain_fork_prepare(void) {}
MT_UNUSED static void mt_pal_callchain_fork_parent(void) {}
MT_UNUSED static void mt_pal_callchain_fork_child(void) {}
#else
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <link.h>
#include <string.h>

/* The index needs glibc's _dl_find_object (2.35): which object holds an
 * address, without a lock and without dladdr's scan. Elsewhere (musl, an
 * older glibc) mt_pal_symbol is dladdr. */
#if defined(__GLIBC__) && defined(DLFO_STRUCT_HAS_EH_DBASE) && !defined(MT_PAL_SYMBOL_NO_INDEX)
#define MT_PAL_SYMBOL_INDEX 1
#else
#define MT_PAL_SYMBOL_INDEX 0
#endif

/* The fork gate: `inside` counts the threads between enter and leave (and
 * a thread's nesting is its own depth); `forking` is set by the forking
 * thread. enter raises `inside` before it reads `forking`, prepare sets
 * `forking` before it reads `inside` (both sequentially consistent), so
 * either the fork waits for the caller or the caller sees the fork. */
static _Atomic(int) mt_pal_callchain_inside;
static _Atomic(int) mt_pal_callchain_forking;
static MT_TLS int mt_pal_callchain_depth;
static MT_TLS bool mt_pal_callchain_forker;

/* Tests only: runs inside the gate before every unwind or symbol look-up,
 * so a test can hold a thread there while another forks
 * (tests/layers/affinity_pool/). */
#ifndef MT_PAL_CALLCHAIN_HOOK
#define MT_PAL_CALLCHAIN_HOOK() ((void)0)
#endif

/* false: this thread is forking, the caller answers nothing. */
MT_INLINE bool mt_pal_callchain_enter(void)
{
    if (mt_pal_callchain_depth++)
        return true;
    for (;;) {
        atomic_fetch_add(&mt_pal_callchain_inside, 1);
        if (MT_LIKELY(!atomic_load(&mt_pal_callchain_forking)))
            break;
        atomic_fetch_sub(&mt_pal_callchain_inside, 1);
        if (mt_pal_callchain_forker) {
            mt_pal_callchain_depth--;
            return false;
        }
        while (mt_load_acquire(&mt_pal_callchain_forking))
            mt_pal_yield();
    }
    MT_PAL_CALLCHAIN_HOOK();
    return true;
}

MT_INLINE void mt_pal_callchain_leave(void)
{
    if (!--mt_pal_callchain_depth)
        atomic_fetch_sub(&mt_pal_callchain_inside, 1);
}

MT_UNUSED static void mt_pal_callchain_fork_prepare(void)
{
    mt_pal_callchain_forker = true;
    atomic_store(&mt_pal_callchain_forking, 1);
    while (atomic_load(&mt_pal_callchain_inside))
        mt_pal_yield();
}

MT_UNUSED static void mt_pal_callchain_fork_parent(void)
{
    atomic_store(&mt_pal_callchain_forking, 0);
    mt_pal_callchain_forker = false;
}

MT_UNUSED static void mt_pal_callchain_fork_child(void)
{
    atomic_store(&mt_pal_callchain_inside, 0);
    mt_pal_callchain_depth = 0;
    mt_pal_callchain_fork_parent();
}

/* Where this thread is in the loader, for a signal handler that interrupts
 * it there: a lock of the loader may be held, or half taken (glibc's
 * recursive locks are not async-signal-safe to take again). Inside
 * dl_iterate_phdr (its list lock) a handler's look-up answers nothing;
 * inside dladdr (the loader's main lock) it answers from an index or
 * nothing, never by dladdr. It never takes the main lock after the list
 * lock either, the reverse of dlopen's order. */
enum { MT_PAL_SYM_IN_ITERATE = 1, MT_PAL_SYM_IN_DLADDR = 2 };
static MT_TLS unsigned char mt_pal_sym_inside;

/* Tests only: told how each look-up was answered (true: from an index,
 * false: by dladdr, or not at all). */
#ifndef MT_PAL_SYMBOL_HOOK
#define MT_PAL_SYMBOL_HOOK(indexed) ((void)(indexed))
#endif

#if MT_PAL_SYMBOL_INDEX
/* The object index. An object is indexed on its first look-up, by the
 * thread that wins mt_pal_sym_building (the others ask dladdr meanwhile),
 * into the next free slot; a slot is published by raising
 * mt_pal_sym_nobjects and never moves or goes away, nor does its index
 * (pages of mt_pal_map, kept for the process's life: this code runs inside
 * malloc). A slot is keyed by what _dl_find_object says (the link_map and
 * the mapping's start) and stamped with the loader's unload count
 * (dlpi_subs) when it was last known to describe the object there: an
 * object can be unloaded and another one loaded at the same place, but
 * only after the count moved. */
#define MT_PAL_SYM_OBJECTS 64 /* the objects one process indexes; more are named by dladdr */
#define MT_PAL_SYM_SEGMENTS 8 /* PT_LOAD segments of an indexable object */
#define MT_PAL_SYM_WALK 64    /* entries stepped back over before asking dladdr */
typedef ElfW(Sym) mt_pal_elf_sym;
typedef ElfW(Dyn) mt_pal_elf_dyn;

/* One symbol dladdr would consider, as offsets from the load bias: it
 * covers [start, end) (a symbol of size 0 covers its own address); reach
 * is the largest end of this entry and every entry before it, so a walk
 * back stops where nothing before can cover the address. */
typedef struct {
    uint32_t start, end, name, reach;
} mt_pal_sym_entry;

enum { MT_PAL_SYM_READY = 1, MT_PAL_SYM_FAILED, MT_PAL_SYM_DEAD };

typedef struct {
    _Atomic(int) state;
    _Atomic(unsigned long long) subs;
    const void *map; /* key: link_map and mapping start */
    uintptr_t start;
    const char *fname; /* dladdr's dli_fname and dli_fbase */
    const void *fbase;
    uintptr_t bias;
    const char *strtab;
    const mt_pal_sym_entry *sym; /* sorted by start, then dladdr's order */
    uint32_t nsym;
    unsigned nseg;
    uintptr_t seg[MT_PAL_SYM_SEGMENTS][2];
    const void *dyn; /* the dynamic section and a sum of it: the object's identity */
    uint64_t dynsum;
} mt_pal_sym_object;

MT_UNUSED static mt_pal_sym_object mt_pal_sym_objects[MT_PAL_SYM_OBJECTS];
MT_UNUSED static _Atomic(unsigned) mt_pal_sym_nobjects;
MT_UNUSED static _Atomic(int) mt_pal_sym_building;

/* What the symbol walk reads: the dynamic symbol table, its strings and
 * hash table, each with the end of the segment it lies in (nothing past it
 * is read: a damaged table fails the index, not the process). */
typedef struct {
    const mt_pal_elf_sym *symtab;
    const char *symlim;
    size_t strsz;
    const uint32_t *gnu, *hash;
    const char *hashlim;
    const uint32_t *bucket, *chain; /* GNU: set by mt_pal_sym_bound */
    uint32_t imax;                  /* GNU: the highest index both tables hold */
} mt_pal_sym_tables;

MT_UNUSED static int mt_pal_sym_subs_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        *(unsigned long long *)data = info->dlpi_subs;
    return 1;
}

/* The loader's count of unloaded objects; ~0 when it does not say. */
MT_UNUSED static unsigned long long mt_pal_sym_subs(void)
{
    unsigned long long subs = ~0ull;
    mt_pal_sym_inside |= MT_PAL_SYM_IN_ITERATE;
    dl_iterate_phdr(mt_pal_sym_subs_cb, &subs);
    mt_pal_sym_inside &= (unsigned char)~MT_PAL_SYM_IN_ITERATE;
    return subs;
}

/* A pointer of the dynamic section: relocated by the loader on most
 * objects, not on some (the vDSO, read-only dynamic sections): whichever
 * lands in a readable segment with len bytes left; *limit is that
 * segment's end. */
MT_UNUSED static const char *mt_pal_sym_ptr(const mt_pal_sym_object *o, const uintptr_t *readable,
                                            uintptr_t p, size_t len, const char **limit)
{
    for (int pass = 0; pass < 2; pass++, p += o->bias)
        for (unsigned i = 0; i < o->nseg; i++)
            if (readable[i] && p >= o->seg[i][0] && p < o->seg[i][1] && o->seg[i][1] - p >= len) {
                *limit = (const char *)o->seg[i][1];
                return (const char *)p;
            }
    return NULL;
}

/* dladdr's filter (glibc's dl-addr.c): defined or with an address, not
 * absolute, not TLS, a name inside the string table; without a GNU hash
 * table, global or weak and not hidden or internal as well. Kept symbols
 * are appended to e; false when an offset does not fit 32 bits. */
MT_INLINE bool mt_pal_sym_keep(const mt_pal_sym_tables *t, const mt_pal_elf_sym *s, mt_pal_sym_entry *e,
                               long *n)
{
    if ((s->st_shndx == SHN_UNDEF && !s->st_value) || s->st_shndx == SHN_ABS ||
        ELF64_ST_TYPE(s->st_info) == STT_TLS || s->st_name >= t->strsz)
        return true;
    if (!t->gnu) {
        unsigned bind = ELF64_ST_BIND(s->st_info), vis = ELF64_ST_VISIBILITY(s->st_other);
        if ((bind != STB_GLOBAL && bind != STB_WEAK) || vis == STV_HIDDEN || vis == STV_INTERNAL)
            return true;
    }
    uint64_t end = (uint64_t)s->st_value + (s->st_size ? s->st_size : 1);
    if (end > UINT32_MAX)
        return false;
    e[(*n)++] = (mt_pal_sym_entry){(uint32_t)s->st_value, (uint32_t)end, s->st_name, 0};
    return true;
}

/* How many table entries the walk below can visit (the index's size at
 * most): DT_HASH's nchain, or the end of the GNU hash table's last chain
 * (the one the highest bucket starts); -1 when the tables are damaged. */
MT_UNUSED static long mt_pal_sym_bound(mt_pal_sym_tables *t)
{
    size_t nsym = (size_t)(t->symlim - (const char *)t->symtab) / sizeof(mt_pal_elf_sym);
    if (!t->gnu)
        return t->hash[1] <= nsym ? (long)t->hash[1] : -1;
    uint32_t nb = t->gnu[0], off = t->gnu[1], top = 0;
    t->bucket = (const uint32_t *)((const ElfW(Addr) *)(t->gnu + 4) + t->gnu[2]);
    t->chain = t->bucket + nb;
    if ((const char *)t->bucket < (const char *)(t->gnu + 4) || (const char *)t->chain > t->hashlim ||
        (const char *)t->chain < (const char *)t->bucket)
        return -1;
    size_t nchain = (size_t)(t->hashlim - (const char *)t->chain) / 4, end = off + nchain;
    end = nsym < end ? nsym : end;
    if (!end || end - 1 > UINT32_MAX)
        return -1;
    t->imax = (uint32_t)(end - 1);
    for (uint32_t b = 0; b < nb; b++)
        top = t->bucket[b] > top ? t->bucket[b] : top;
    if (!top)
        return 0;
    if (top < off)
        return -1;
    for (; top <= t->imax; top++)
        if (t->chain[top - off] & 1)
            return (long)top + 1;
    return -1;
}

/* Visits the symbols dladdr visits, in its order (buckets in turn, each
 * chain to its odd hash), and writes the ones it would consider to e (at
 * most bound). The count, or -1: the tables are damaged or an offset
 * does not fit 32 bits. */
MT_UNUSED static long mt_pal_sym_walk(const mt_pal_sym_tables *t, mt_pal_sym_entry *e, long bound)
{
    long n = 0;
    if (!t->gnu) {
        for (long i = 0; i < bound; i++)
            if (!mt_pal_sym_keep(t, t->symtab + i, e, &n))
                return -1;
        return n;
    }
    uint32_t nb = t->gnu[0], off = t->gnu[1];
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t i = t->bucket[b];
        if (!i)
            continue;
        for (;; i++) {
            if (i < off || i > t->imax || n >= bound || !mt_pal_sym_keep(t, t->symtab + i, e, &n))
                return -1;
            if (t->chain[i - off] & 1)
                break;
        }
    }
    return n;
}

/* Stable by start (a radix sort, 8 bits a pass): equal starts keep
 * dladdr's order, where the first one wins. */
MT_UNUSED static void mt_pal_sym_sort(mt_pal_sym_entry *a, mt_pal_sym_entry *tmp, uint32_t n)
{
    mt_pal_sym_entry *from = a, *to = tmp;
    for (unsigned shift = 0; shift < 32; shift += 8) {
        uint32_t count[257] = {0};
        for (uint32_t i = 0; i < n; i++)
            count[((from[i].start >> shift) & 255) + 1]++;
        if (count[((from[0].start >> shift) & 255) + 1] == n)
            continue;
        for (unsigned d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (uint32_t i = 0; i < n; i++)
            to[count[(from[i].start >> shift) & 255]++] = from[i];
        mt_pal_sym_entry *t = from;
        from = to;
        to = t;
    }
    if (from != a)
        memcpy(a, from, (size_t)n * sizeof *a);
}

MT_UNUSED static size_t mt_pal_sym_pages(size_t bytes)
{
    size_t page = mt_pal_page_size();
    return page ? (bytes + page - 1) / page * page : 0;
}

/* The sorted index of o's symbols from its dynamic section. */
MT_UNUSED static bool mt_pal_sym_index(mt_pal_sym_object *o, const mt_pal_elf_dyn *dyn,
                                       const uintptr_t *readable)
{
    uintptr_t symtab = 0, strtab = 0, gnu = 0, hash = 0;
    size_t strsz = 0, syment = sizeof(mt_pal_elf_sym);
    for (const mt_pal_elf_dyn *d = dyn; d->d_tag != DT_NULL; d++)
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = d->d_un.d_ptr; break;
        case DT_STRTAB: strtab = d->d_un.d_ptr; break;
        case DT_STRSZ: strsz = d->d_un.d_val; break;
        case DT_SYMENT: syment = d->d_un.d_val; break;
        case DT_GNU_HASH: gnu = d->d_un.d_ptr; break;
        case DT_HASH: hash = d->d_un.d_ptr; break;
        }
    mt_pal_sym_tables t = {0};
    const char *strlim;
    t.symtab = (const mt_pal_elf_sym *)mt_pal_sym_ptr(o, readable, symtab, sizeof(mt_pal_elf_sym), &t.symlim);
    o->strtab = mt_pal_sym_ptr(o, readable, strtab, strsz, &strlim);
    t.strsz = strsz;
    if (gnu)
        t.gnu = (const uint32_t *)mt_pal_sym_ptr(o, readable, gnu, 16, &t.hashlim);
    else if (hash)
        t.hash = (const uint32_t *)mt_pal_sym_ptr(o, readable, hash, 8, &t.hashlim);
    if (!t.symtab || !o->strtab || !strsz || syment != sizeof(mt_pal_elf_sym) || (!t.gnu && !t.hash))
        return false;
    long bound = mt_pal_sym_bound(&t);
    if (bound < 0 || bound > (long)(UINT32_MAX / 2))
        return false;
    if (!bound)
        return true;
    size_t bytes = mt_pal_sym_pages((size_t)bound * sizeof(mt_pal_sym_entry));
    mt_pal_sym_entry *e = bytes ? mt_pal_map(bytes) : NULL;
    mt_pal_sym_entry *tmp = e ? mt_pal_map(bytes) : NULL;
    long n = tmp ? mt_pal_sym_walk(&t, e, bound) : -1;
    if (n <= 0) {
        if (e)
            mt_pal_unmap(e, bytes);
        if (tmp)
            mt_pal_unmap(tmp, bytes);
        return n == 0;
    }
    mt_pal_sym_sort(e, tmp, (uint32_t)n);
    mt_pal_unmap(tmp, bytes);
    uint32_t reach = 0;
    for (long i = 0; i < n; i++)
        e[i].reach = reach = e[i].end > reach ? e[i].end : reach;
    o->sym = e;
    o->nsym = (uint32_t)n;
    return true;
}

typedef struct {
    uintptr_t addr;
    unsigned long long subs; /* the unload count the object must still have */
    mt_pal_sym_object *o;    /* start set: its segments, bias and identity found */
    bool index;              /* and its symbols indexed */
    int result;              /* 1 done, 0 unusual, -1 the loader moved on */
} mt_pal_sym_scan;

/* dl_iterate_phdr's callback: the object that holds addr, read while the
 * loader cannot unload it. */
MT_UNUSED static int mt_pal_sym_scan_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    mt_pal_sym_scan *c = data;
    mt_pal_sym_object *o = c->o;
    uintptr_t bias = info->dlpi_addr, low = UINTPTR_MAX, readable[MT_PAL_SYM_SEGMENTS];
    const mt_pal_elf_dyn *dyn = NULL;
    bool holds = false;
    unsigned nseg = 0;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const mt_pal_elf_dyn *)(bias + ph->p_vaddr);
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = bias + ph->p_vaddr, hi = lo + ph->p_memsz;
        holds |= c->addr >= lo && c->addr < hi;
        low = ph->p_vaddr < low ? ph->p_vaddr : low;
        if (nseg < MT_PAL_SYM_SEGMENTS) {
            o->seg[nseg][0] = lo;
            o->seg[nseg][1] = hi;
            readable[nseg] = ph->p_flags & PF_R;
        }
        nseg++;
    }
    if (!holds)
        return 0;
    c->result = 0;
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs ||
        info->dlpi_subs != c->subs) {
        c->result = -1;
        return 1;
    }
    size_t page = mt_pal_page_size();
    if (!dyn || nseg > MT_PAL_SYM_SEGMENTS || !page || bias + (low & ~(page - 1)) != o->start)
        return 1;
    o->nseg = nseg;
    o->bias = bias;
    o->dyn = dyn;
    const char *lim;
    if (!mt_pal_sym_ptr(o, readable, (uintptr_t)dyn, sizeof *dyn, &lim))
        return 1;
    uint64_t sum = 0;
    const mt_pal_elf_dyn *d = dyn;
    for (; (const char *)(d + 1) <= lim && d->d_tag != DT_NULL; d++)
        sum = (sum ^ (uint64_t)d->d_tag ^ ((uint64_t)d->d_un.d_val << 7)) * 0x100000001b3ull;
    if ((const char *)(d + 1) > lim)
        return 1;
    o->dynsum = sum;
    c->result = !c->index || mt_pal_sym_index(o, dyn, readable);
    return 1;
}

MT_UNUSED static int mt_pal_sym_scan_object(mt_pal_sym_object *o, const void *addr, unsigned long long subs,
                                            bool index)
{
    mt_pal_sym_scan c = {(uintptr_t)addr, subs, o, index, -1};
    mt_pal_sym_inside |= MT_PAL_SYM_IN_ITERATE;
    dl_iterate_phdr(mt_pal_sym_scan_cb, &c);
    mt_pal_sym_inside &= (unsigned char)~MT_PAL_SYM_IN_ITERATE;
    return c.result;
}
#endif

/* dladdr: the answer when there is no index, and the reference. */
MT_UNUSED static int mt_pal_symbol_dladdr(const void *addr, mt_pal_symbol_info *out, void **map)
{
    Dl_info info;
    mt_pal_sym_inside |= MT_PAL_SYM_IN_DLADDR;
#if MT_PAL_SYMBOL_INDEX
    void *lm = NULL;
    int found = dladdr1(addr, &info, &lm, RTLD_DL_LINKMAP);
    if (map)
        *map = lm;
#else
    (void)map;
    int found = dladdr(addr, &info);
#endif
    mt_pal_sym_inside &= (unsigned char)~MT_PAL_SYM_IN_DLADDR;
    if (!found)
        return 0;
    out->function = info.dli_sname;
    out->function_start = info.dli_saddr;
    out->object = info.dli_fname;
    out->object_base = info.dli_fbase;
    return 1;
}

#if MT_PAL_SYMBOL_INDEX
/* Binary search for the last entry starting at or below the address, then
 * back to the first that covers it: the one dladdr picks (the greatest
 * start, and of equal starts the first it meets). -1: ask dladdr (outside
 * every segment, where the loader may still count it as the object's, or
 * a long walk). */
MT_UNUSED static int mt_pal_sym_answer(const mt_pal_sym_object *o, uintptr_t a, mt_pal_symbol_info *out)
{
    bool inside = false;
    for (unsigned i = 0; i < o->nseg; i++)
        inside |= a >= o->seg[i][0] && a < o->seg[i][1];
    if (!inside || a - o->bias > UINT32_MAX)
        return -1;
    uint32_t q = (uint32_t)(a - o->bias), lo = 0, hi = o->nsym;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (o->sym[mid].start <= q)
            lo = mid + 1;
        else
            hi = mid;
    }
    const mt_pal_sym_entry *best = NULL;
    for (unsigned steps = 0; lo-- > 0 && o->sym[lo].reach > q;) {
        if (++steps > MT_PAL_SYM_WALK)
            return -1;
        if (o->sym[lo].end <= q)
            continue;
        best = &o->sym[lo];
        while (lo-- > 0 && o->sym[lo].start == best->start)
            if (o->sym[lo].end > q)
                best = &o->sym[lo];
        break;
    }
    out->function = best ? o->strtab + best->name : NULL;
    out->function_start = best ? (const void *)(o->bias + best->start) : NULL;
    out->object = o->fname;
    out->object_base = o->fbase;
    return 2;
}

/* The loader has unloaded something since o was last checked: dladdr
 * answers, and says whether o still describes the object (same link_map,
 * name, base, load bias and dynamic section): then o is stamped with the
 * new count; if it is another object, o is dropped; when the scan cannot
 * tell (addr between segments, or another unload meanwhile), o waits for
 * the next look-up. */
MT_UNUSED static int mt_pal_sym_recheck(mt_pal_sym_object *o, const void *addr, unsigned long long subs,
                                        mt_pal_symbol_info *out)
{
    void *map = NULL;
    if (!mt_pal_symbol_dladdr(addr, out, &map))
        return 0;
    mt_pal_sym_object now = {.start = o->start};
    int scanned = mt_pal_sym_scan_object(&now, addr, subs, false);
    bool same = map == o->map && out->object == o->fname && out->object_base == o->fbase;
    if (same && scanned == 1 && now.bias == o->bias && now.dyn == o->dyn && now.dynsum == o->dynsum)
        atomic_store(&o->subs, subs);
    else if (!same || scanned >= 0)
        atomic_store(&o->state, MT_PAL_SYM_DEAD);
    return 1;
}

/* The first look-up in an object: dladdr answers, and this thread indexes
 * the object unless another is indexing one (then dladdr answers alone). */
MT_UNUSED static int mt_pal_sym_build(const void *addr, const struct dl_find_object *fo,
                                      unsigned long long subs, mt_pal_symbol_info *out)
{
    int idle = 0;
    if (!mt_cas(&mt_pal_sym_building, &idle, 1))
        return -1;
    int found = -1;
    unsigned n = mt_load_relaxed(&mt_pal_sym_nobjects);
    for (unsigned i = 0; i < n; i++) {
        const mt_pal_sym_object *o = &mt_pal_sym_objects[i];
        if (o->map == fo->dlfo_link_map && o->start == (uintptr_t)fo->dlfo_map_start &&
            mt_load_relaxed(&o->state) != MT_PAL_SYM_DEAD)
            goto done; /* indexed since this thread looked */
    }
    void *map = NULL;
    if (n == MT_PAL_SYM_OBJECTS || (found = mt_pal_symbol_dladdr(addr, out, &map)) <= 0 ||
        map != fo->dlfo_link_map || out->object_base != fo->dlfo_map_start)
        goto done;
    mt_pal_sym_object *o = &mt_pal_sym_objects[n];
    o->map = map;
    o->start = (uintptr_t)fo->dlfo_map_start;
    o->fname = out->object;
    o->fbase = out->object_base;
    int built = mt_pal_sym_scan_object(o, addr, subs, true);
    if (built < 0) { /* unloading meanwhile: leave the slot free */
        memset(o, 0, sizeof *o);
        goto done;
    }
    atomic_store_explicit(&o->subs, subs, memory_order_relaxed);
    atomic_store_explicit(&o->state, built ? MT_PAL_SYM_READY : MT_PAL_SYM_FAILED, memory_order_relaxed);
    mt_store_release(&mt_pal_sym_nobjects, n + 1);
done:
    mt_store_release(&mt_pal_sym_building, 0);
    return found;
}

/* 2: answered from an index; 1: by dladdr; 0: no object holds addr; -1:
 * ask dladdr. in_dladdr: dladdr must not be called (no check, no build). */
MT_UNUSED static int mt_pal_sym_lookup(const void *addr, mt_pal_symbol_info *out, bool in_dladdr)
{
    struct dl_find_object fo;
    if (_dl_find_object((void *)addr, &fo) != 0)
        return -1;
    unsigned long long subs = mt_pal_sym_subs();
    if (subs == ~0ull)
        return -1;
    unsigned n = mt_load_acquire(&mt_pal_sym_nobjects);
    for (unsigned i = 0; i < n; i++) {
        mt_pal_sym_object *o = &mt_pal_sym_objects[i];
        if (o->map != fo.dlfo_link_map || o->start != (uintptr_t)fo.dlfo_map_start)
            continue;
        int state = atomic_load(&o->state);
        if (state == MT_PAL_SYM_DEAD)
            continue;
        if (atomic_load(&o->subs) != subs)
            return in_dladdr ? -1 : mt_pal_sym_recheck(o, addr, subs, out);
        return state == MT_PAL_SYM_READY ? mt_pal_sym_answer(o, (uintptr_t)addr, out) : -1;
    }
    return in_dladdr ? -1 : mt_pal_sym_build(addr, &fo, subs, out);
}
#endif

MT_UNUSED static bool mt_pal_symbol(const void *addr, mt_pal_symbol_info *out)
{
    unsigned inside = mt_pal_sym_inside;
    if ((inside & MT_PAL_SYM_IN_ITERATE) || !mt_pal_callchain_enter())
        return false;
    bool in_dladdr = inside & MT_PAL_SYM_IN_DLADDR;
#if MT_PAL_SYMBOL_INDEX
    int found = mt_pal_sym_lookup(addr, out, in_dladdr);
#else
    int found = -1;
#endif
    MT_PAL_SYMBOL_HOOK(found == 2);
    if (found < 0 && !in_dladdr)
        found = mt_pal_symbol_dladdr(addr, out, NULL);
    mt_pal_callchain_leave();
    return found > 0;
}
#endif

#endif
