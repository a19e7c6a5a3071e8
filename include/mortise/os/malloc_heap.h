/* malloc_heap — OS-interface layer over the C library's allocator.
 * Serves: any size, in whole granules (64 KiB) aligned to 64 KiB or to the
 *   requested alignment if larger, each block one posix_memalign of the C
 *   library's allocator, given back with its free. For platforms where malloc
 *   is the only way to get memory, and for measuring layers over the system
 *   allocator.
 * Finding the C library's allocator: by dlsym(RTLD_NEXT, "posix_memalign") and
 *   "free", so it works when Mortise itself is the process's malloc (linked or
 *   LD_PRELOADed): the next definition after ours is the C library's.
 * Start-up: dlsym may itself call malloc (older glibc allocate dlerror state),
 *   which would come back here, and the layers above may hold locks. So
 *   look-ups never run inside the chain while avoidable: a constructor makes
 *   them at load time, and requests before it (or made by dlsym during it)
 *   are served from a static bootstrap buffer, MT_MALLOC_HEAP_BOOTSTRAP bytes
 *   (1 MiB of BSS, untouched pages cost nothing). Bootstrap blocks are never
 *   handed to the C library's free; freed, they are kept (not reused). Only
 *   when the buffer is used up before the constructor ran is the look-up made
 *   on the spot.
 * Slots: passthrough=0|1 → MT_PASSTHROUGH (0): 1 hands every request to
 *   the next allocator block by block (malloc, free, posix_memalign,
 *   realloc, malloc_usable_size, malloc_trim by dlsym(RTLD_NEXT)) and owns
 *   every pointer, so add-ons above it (wcet_stat) measure that allocator;
 *   no layer above may own blocks (os/malloc_passthrough.h; used by
 *   instances/wcet_stat_malloc.c).
 * Macros: MT_MALLOC_HEAP_BOOTSTRAP (bytes, a multiple of 64 KiB),
 *   MT_MALLOC_HEAP_LOOKUP(name) (how a C library symbol is found; default
 *   the port's mt_pal_next_symbol(name), dlsym(RTLD_NEXT, name) on Linux;
 *   tests replace it to simulate an allocating dlsym).
 * Page map: defines the composition's page map (two-level radix,
 *   core/pagemap_radix.h) with leaves mapped from the OS, never from the C
 *   library, so installing a leaf cannot recurse; and mt_os_stats_read
 *   (mapped = handed_out: every block is exactly one C library block).
 * Zero-fill: blocks from the C library are not known to be zero; bootstrap
 *   blocks are (ctx->zeroed).
 * resize: not in place (blocks are released whole): the socket moves the block.
 * Space: the C library's alignment overhead, up to a granule of address space
 *   per block (mostly untouched).
 * Time: one C library call per block, plus O(1) page-map writes.
 * Thread safety: all operations (the C library's allocator is thread-safe;
 *   the bootstrap buffer is carved with an atomic add; threads arriving while
 *   another resolves the symbols wait for it).
 * Without a C library allocator to find (a fully static executable: RTLD_NEXT
 *   has no next object, and the C library's malloc is not linked in when
 *   Mortise defines malloc), blocks are mapped from the OS (mmap) instead.
 * Fails: returns NULL with ctx->err = ENOMEM when the C library's allocator
 *   (or, without one, the OS) refuses memory.
 * Example: malloc_heap::segfit_lk::malloc_socket       (instances/segfit_libc.c)
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_malloc_heap(LAYER, SLOT)                                                      \
    LAYER(malloc_heap, os, 0, (), ())                                                               \
    MT_OPS(SLOT, alloc, free, getmeta, resize, fork_prepare, fork_parent, fork_child, purge, check) \
    SLOT(passthrough, MT_PASSTHROUGH, BOOL, 0, (0, 1), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/malloc_heap.h"
#else
#define MT_NAME malloc_heap
#endif

#ifndef MT_PASSTHROUGH
#define MT_PASSTHROUGH 0
#endif
#if MT_PASSTHROUGH
#include "../written/malloc_heap/os_malloc_passthrough.inl"
#else
#include "pagemap_mmap.h"

#if !MT_PAL_HAVE_NEXT_SYMBOL && !defined(MT_MALLOC_HEAP_LOOKUP)
#error "malloc_heap: no next-symbol lookup (RTLD_NEXT needs _GNU_SOURCE before any include)"
#endif

#ifndef MT_MALLOC_HEAP_BOOTSTRAP
#define MT_MALLOC_HEAP_BOOTSTRAP ((size_t)16 << MT_GRANULE_SHIFT)
#endif
#ifndef MT_MALLOC_HEAP_LOOKUP
#define MT_MALLOC_HEAP_LOOKUP(name) mt_pal_next_symbol(name)
#endif

_Static_assert(MT_MALLOC_HEAP_BOOTSTRAP % MT_GRANULE == 0,
               "malloc_heap: the bootstrap buffer must be a multiple of 64 KiB");

enum { malloc_heap_id = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)

/* The look-up's phase is an mt_once (platform.h): 0 unresolved, then under
 * way, then ready or unavailable; a fork child that inherited a look-up
 * under way (its thread is not in the child) looks up again. */
enum {
    malloc_heap_unresolved = 0,
    malloc_heap_ready = MT_ONCE_DONE,
    malloc_heap_unavailable = MT_ONCE_FAILED
};

static struct {
    mt_once phase;
    int (*memalign)(void **out, size_t align, size_t size);
    void (*release)(void *p);
    _Atomic(size_t) bootstrap_used;
} malloc_heap_libc;

/* This thread is inside the look-up: its allocations come from the buffer. */
static MT_TLS bool malloc_heap_resolving_here;

/* One granule more than the buffer, so a granule-aligned buffer fits even if
 * the loader does not honour large alignments. */
static char malloc_heap_bootstrap[MT_MALLOC_HEAP_BOOTSTRAP + MT_GRANULE];

MT_INLINE char *malloc_heap_bootstrap_base(void)
{
    return (char *)mt_align_up((uintptr_t)malloc_heap_bootstrap, MT_GRANULE);
}

MT_INLINE bool malloc_heap_from_bootstrap(const char *p)
{
    return (uintptr_t)p - (uintptr_t)malloc_heap_bootstrap_base() < MT_MALLOC_HEAP_BOOTSTRAP;
}

/* A block from the static buffer, by an atomic bump; NULL when used up. */
static char *malloc_heap_bootstrap_take(size_t len, size_t align)
{
    size_t used = mt_load_relaxed(&malloc_heap_libc.bootstrap_used), start, end;
    do {
        start = mt_align_up(used, align);
        end = start + len;
        if (start < used || end < start || end > MT_MALLOC_HEAP_BOOTSTRAP)
            return NULL;
    } while (!mt_cas(&malloc_heap_libc.bootstrap_used, &used, end));
    return malloc_heap_bootstrap_base() + start;
}

/* Find the C library's posix_memalign and free, once per process. Returns
 * true iff they are usable. Threads arriving meanwhile wait for the one
 * resolving (its own nested allocations never come here: resolving_here). */
MT_SLOW bool malloc_heap_resolve(void)
{
    uintptr_t phase = mt_load_acquire(&malloc_heap_libc.phase);
    if (!mt_once_final(phase) && (phase = mt_once_enter(&malloc_heap_libc.phase)) == 0) {
        malloc_heap_resolving_here = true;
        void *memalign = MT_MALLOC_HEAP_LOOKUP("posix_memalign");
        void *release = MT_MALLOC_HEAP_LOOKUP("free");
        malloc_heap_resolving_here = false;
        /* ISO C has no function/object pointer casts; POSIX guarantees dlsym's do. */
        __builtin_memcpy(&malloc_heap_libc.memalign, &memalign, sizeof memalign);
        __builtin_memcpy(&malloc_heap_libc.release, &release, sizeof release);
        phase = memalign && release ? malloc_heap_ready : malloc_heap_unavailable;
        mt_once_leave(&malloc_heap_libc.phase, phase);
    }
    return phase == malloc_heap_ready;
}

/* At load time no layer holds a lock, so dlsym may allocate safely. */
__attribute__((constructor)) static void malloc_heap_resolve_at_start(void) { malloc_heap_resolve(); }

/* No C library allocator to find (a fully static executable has no object
 * after ours): blocks are mapped straight from the OS instead. */
MT_SLOW char *malloc_heap_map(size_t len, size_t align)
{
    char *p = mt_os_map_aligned(len, align, false);
    if (p)
        atomic_fetch_add(&mt_os_counters.mapped, len);
    return p;
}

static char *malloc_heap_obtain(size_t granules, size_t align, bool *zeroed)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    if (MT_UNLIKELY(mt_load_acquire(&malloc_heap_libc.phase) != malloc_heap_ready)) {
        char *p = malloc_heap_bootstrap_take(len, align);
        if (p || malloc_heap_resolving_here) {
            atomic_fetch_add(&mt_os_counters.mapped, p ? len : 0);
            *zeroed = true;
            return p;
        }
        if (!malloc_heap_resolve())
            return malloc_heap_map(len, align);
    }
    void *p;
    if (malloc_heap_libc.memalign(&p, align, len) != 0)
        return NULL;
    atomic_fetch_add(&mt_os_counters.mapped, len);
    return p;
}

static void malloc_heap_release(char *p, size_t granules)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    if (malloc_heap_from_bootstrap(p))
        return; /* kept: the C library never saw it */
    atomic_fetch_sub(&mt_os_counters.mapped, len);
    atomic_fetch_add(&mt_os_counters.returned, len);
    if (mt_load_relaxed(&malloc_heap_libc.phase) == malloc_heap_unavailable) {
        mt_os_unmap(p, len);
        return;
    }
    int saved = mt_pal_errno();
    malloc_heap_libc.release(p);
    mt_pal_set_errno(saved);
}

static bool malloc_heap_extend(char *end, size_t granules)
{
    (void)end;
    (void)granules;
    return false;
}

#define MT_OS_RESIZE_IN_PLACE 0
#include "../written/malloc_heap/os_granule_blocks.inl"

#endif /* MT_PASSTHROUGH */

#define MT_DESCRIPTOR MT_DESCRIPTOR_malloc_heap
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SYNC
#undef MT_LARGE_KEEP
#undef MT_LARGE_DECAY_MS
#undef MT_PASSTHROUGH
#undef MT_LOCK_STAT
#undef MT_MALLOC_HEAP_BOOTSTRAP
#undef MT_MALLOC_HEAP_LOOKUP
#ifdef MT_NAMES_malloc_heap
#include "../names/malloc_heap.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */
