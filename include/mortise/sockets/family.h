/* mortise/sockets/family.h — the malloc(3) family over the composed chain,
 * under the name prefix MT_SOCKET_PREFIX (empty for malloc_socket).
 *
 * Included once, by malloc_socket.h or custom_socket.h, after the composition
 * (MT_COMPOSE) so the chain is known. Every entry point builds a context,
 * runs the chain and turns the result into the POSIX answer:
 *   - sizes above PTRDIFF_MAX (and calloc/reallocarray overflow): NULL, ENOMEM;
 *   - alignments that are not powers of two: NULL, EINVAL (posix_memalign
 *     returns EINVAL and leaves its output untouched, also for ENOMEM);
 *   - free, free_sized, cfree never change errno;
 *   - a pointer no layer owns (page-map entry 0) is ignored by free and
 *     reported as size 0 by malloc_usable_size; realloc returns NULL, EINVAL;
 *     with a safety layer in the chain each is also reported (invalid-free).
 * With a safety layer the socket exports the error-handler setter of
 * err_handle=callback (policy/err/callback.h):
 *     void mortise_set_error_handler(mortise_error_handler *fn, void *arg);
 * (PREFIXset_error_handler under custom_socket: MT_SOCKET_ERROR_API).
 * Every composition exports the chain's invariant check (the contract's
 * check operation, every layer down to the OS layer):
 *     const char *mortise_check(void);
 * (PREFIXcheck under custom_socket: MT_SOCKET_CHECK_API): NULL when every
 * layer's invariants hold, else a static string "layer: what is broken".
 * Call it while no other thread is inside the allocator; it checks the
 * calling thread's caches and the shared state, and never allocates.
 */
#ifndef MORTISE_SOCKETS_FAMILY_H
#define MORTISE_SOCKETS_FAMILY_H

#include "socket_core.h"
#if !defined(MT_FREESTANDING) /* no C library: no FILE, no report to write (below) */
#include "../stats/registry.h"
#include "../pal/libc.h" /* FILE, fprintf, struct mallinfo: the interface we implement */
#endif

#ifndef MT_SOCKET_PREFIX
#define MT_SOCKET_PREFIX
#endif
#define MT_API(name) MT_CAT(MT_SOCKET_PREFIX, name)
#ifndef MT_SOCKET_ERROR_API
#define MT_SOCKET_ERROR_API mortise_set_error_handler
#endif
#ifndef MT_SOCKET_CHECK_API
#define MT_SOCKET_CHECK_API mortise_check
#endif
#ifndef MT_STATS_PREFIX
#define MT_STATS_PREFIX mortise_
#endif

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
/* mallinfo's answer, named before the names below are mapped: the
 * structs keep their tags under a prefix. */
typedef struct mallinfo mt_mallinfo;
typedef struct mallinfo2 mt_mallinfo2;
#endif

/* The entry points are written below under their own names, so that grep,
 * ctags and a debugger find each one. Under a prefix (custom_socket,
 * malloc_socket's MT_SOCKET_RENAME) these map every such name to the
 * prefixed one, until the end of this file; without one each maps to
 * itself. */
/* clang-format off */
#define malloc MT_API(malloc)
#define free MT_API(free)
#define calloc MT_API(calloc)
#define realloc MT_API(realloc)
#define reallocarray MT_API(reallocarray)
#define memalign MT_API(memalign)
#define aligned_alloc MT_API(aligned_alloc)
#define posix_memalign MT_API(posix_memalign)
#define valloc MT_API(valloc)
#define pvalloc MT_API(pvalloc)
#define malloc_usable_size MT_API(malloc_usable_size)
#define cfree MT_API(cfree)
#define free_sized MT_API(free_sized)
#define free_aligned_sized MT_API(free_aligned_sized)
#define malloc_trim MT_API(malloc_trim)
#define mallinfo2 MT_API(mallinfo2)
#define mallinfo MT_API(mallinfo)
#define malloc_stats MT_API(malloc_stats)
#define malloc_info MT_API(malloc_info)
#define mallopt MT_API(mallopt)
#define mortise_set_error_handler MT_SOCKET_ERROR_API
#define mortise_check MT_SOCKET_CHECK_API
#define mortise_stats_print MT_CAT(MT_STATS_PREFIX, stats_print)
#define mortise_stats_json MT_CAT(MT_STATS_PREFIX, stats_json)
/* clang-format on */

/* ---- the shared core of every entry point (sockets/socket_core.h) ---- */

/* Windows, in a library that replaces malloc (MT_SOCKET_REPLACES_MALLOC):
 * the first touch of a thread-local variable allocates its copy with
 * malloc (gcc's emulated TLS, pal_windows.h), so a call that arrives while
 * the thread is already inside the allocator is served by the port's boot
 * arena instead of entering the layers again. MT_SOCKET_ENTER(nested) runs
 * `nested` and returns for such a call; MT_SOCKET_LEAVE() ends the outer one. */
#if defined(_WIN32) && defined(MT_SOCKET_REPLACES_MALLOC)
#define MT_SOCKET_BOOT 1
#define MT_SOCKET_ENTER(nested)              \
    if (MT_UNLIKELY(!mt_pal_boot_enter())) { \
        nested;                              \
    }
#define MT_SOCKET_LEAVE() mt_pal_boot_leave()
#else
#define MT_SOCKET_BOOT 0
#define MT_SOCKET_ENTER(nested) ((void)0)
#define MT_SOCKET_LEAVE() ((void)0)
#endif

MT_INLINE void mt_socket_free(void *p)
{
#if MT_SOCKET_BOOT
    if (MT_UNLIKELY(mt_pal_boot_owns(p))) {
        mt_pal_boot_free(p);
        return;
    }
#endif
    /* clang-format off */
    MT_SOCKET_ENTER(return); /* nested: the block is the allocator's, kept (rare: a TLS copy table grown) */
    /* clang-format on */
    mt_socket_free_req(mt_socket_request(), p);
    MT_SOCKET_LEAVE();
}
MT_INLINE size_t mt_socket_usable(void *p)
{
#if MT_SOCKET_BOOT
    if (MT_UNLIKELY(mt_pal_boot_owns(p)))
        return mt_pal_boot_size(p);
#endif
    return mt_socket_usable_req(mt_socket_request(), p);
}
static void *mt_socket_aligned(size_t align, size_t size)
{
    MT_SOCKET_ENTER(return NULL);
    void *p = mt_socket_aligned_req(mt_socket_request(), align, size);
    MT_SOCKET_LEAVE();
    return p;
}
#if MT_SOCKET_BOOT
static void *mt_socket_boot_realloc(void *p, size_t size)
{
    void *q = mt_pal_boot_alloc(size);
    if (q && p) {
        size_t old = mt_socket_usable(p);
        __builtin_memcpy(q, p, old < size ? old : size);
        if (mt_pal_boot_owns(p))
            mt_pal_boot_free(p);
    }
    return q;
}
#endif
static void *mt_socket_realloc(void *p, size_t size)
{
#if MT_SOCKET_BOOT
    if (MT_UNLIKELY(mt_pal_boot_owns(p)))
        return mt_socket_boot_realloc(p, size); /* the emulated-TLS table, grown */
#endif
    MT_SOCKET_ENTER(return mt_socket_boot_realloc(p, size));
    void *q = mt_socket_realloc_req(mt_socket_request(), p, size);
    MT_SOCKET_LEAVE();
    return q;
}

/* ---- the malloc(3) family ---- */

MT_EXPORT void *malloc(size_t size)
{
    MT_SOCKET_NOTE_CALLER();
    MT_SOCKET_ENTER(return mt_pal_boot_alloc(size));
    void *p = mt_socket_malloc(size);
    MT_SOCKET_LEAVE();
    return p;
}

MT_EXPORT void free(void *p)
{
    MT_SOCKET_NOTE_CALLER();
    mt_socket_free(p);
}

MT_EXPORT void *calloc(size_t n, size_t each)
{
    MT_SOCKET_NOTE_CALLER();
    size_t total;
    MT_SOCKET_ENTER(return __builtin_mul_overflow(n, each, &total) ? NULL : mt_pal_boot_alloc(total));
    void *p = mt_socket_calloc_req(mt_socket_request(), n, each);
    MT_SOCKET_LEAVE();
    (void)total;
    return p;
}

MT_EXPORT void *realloc(void *p, size_t size)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_socket_realloc(p, size);
}

MT_EXPORT void *reallocarray(void *p, size_t n, size_t each)
{
    MT_SOCKET_NOTE_CALLER();
    size_t size;
    if (__builtin_mul_overflow(n, each, &size)) {
        mt_pal_set_errno(MT_ENOMEM);
        return NULL;
    }
    return mt_socket_realloc(p, size);
}

MT_EXPORT void *memalign(size_t align, size_t size)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_socket_aligned(align, size);
}
MT_EXPORT void *aligned_alloc(size_t align, size_t size)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_socket_aligned(align, size);
}

MT_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
    MT_SOCKET_NOTE_CALLER();
    if (!mt_is_pow2(align) || align % sizeof(void *))
        return MT_EINVAL;
    int saved = mt_pal_errno();
    void *p = mt_socket_aligned(align, size);
    mt_pal_set_errno(saved);
    if (!p)
        return MT_ENOMEM;
    *out = p;
    return 0;
}

MT_EXPORT void *valloc(size_t size)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_socket_aligned(mt_page_size(), size);
}

MT_EXPORT void *pvalloc(size_t size)
{
    MT_SOCKET_NOTE_CALLER();
    if (size > MT_MAX_REQUEST) {
        mt_pal_set_errno(MT_ENOMEM);
        return NULL;
    }
    size_t page = mt_page_size();
    return mt_socket_aligned(page, size ? mt_align_up(size, page) : page);
}

MT_EXPORT size_t malloc_usable_size(void *p)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_socket_usable(p);
}
MT_EXPORT void cfree(void *p)
{
    MT_SOCKET_NOTE_CALLER();
    mt_socket_free(p);
}
MT_EXPORT void free_sized(void *p, size_t size)
{
    MT_SOCKET_NOTE_CALLER();
    (void)size;
    mt_socket_free(p);
}
MT_EXPORT void free_aligned_sized(void *p, size_t align, size_t size)
{
    MT_SOCKET_NOTE_CALLER();
    (void)align;
    (void)size;
    mt_socket_free(p);
}

#if defined(_WIN32)
/* ---- the Microsoft C runtime's own allocation entry points ----
 * A program built against msvcrt calls these as well as the standard ones;
 * each one means what Microsoft documents, served by the same chain. The
 * CRT's headers declare them dllimport, so a program calls them through the
 * pointer __imp_NAME: a replacing library defines those pointers (the
 * linker takes them before the import library's), and the functions under
 * names of their own (MT_CRT_API). */
#if defined(MT_SOCKET_REPLACES_MALLOC)
#define MT_CRT_API(name) MT_CAT(mt_crt, name)
#else
#define MT_CRT_API(name) MT_API(name)
#endif
/* clang-format off */
#define _msize MT_CRT_API(_msize)
#define _aligned_malloc MT_CRT_API(_aligned_malloc)
#define _aligned_free MT_CRT_API(_aligned_free)
#define _aligned_msize MT_CRT_API(_aligned_msize)
#define _aligned_realloc MT_CRT_API(_aligned_realloc)
#define _recalloc MT_CRT_API(_recalloc)
#define _expand MT_CRT_API(_expand)
#define _strdup MT_CRT_API(_strdup)
#define strdup MT_API(strdup)
/* clang-format on */
MT_EXPORT size_t _msize(void *p) { return mt_socket_usable(p); }
MT_EXPORT void *_aligned_malloc(size_t size, size_t align)
{
    if (!mt_is_pow2(align)) {
        mt_pal_set_errno(MT_EINVAL);
        return NULL;
    }
    return mt_socket_aligned(align < MT_MIN_ALIGN ? MT_MIN_ALIGN : align, size);
}
MT_EXPORT void _aligned_free(void *p) { mt_socket_free(p); }
MT_EXPORT size_t _aligned_msize(void *p, size_t align, size_t offset)
{
    (void)align, (void)offset;
    return mt_socket_usable(p);
}
MT_EXPORT void *_aligned_realloc(void *p, size_t size, size_t align)
{
    if (!p)
        return _aligned_malloc(size, align);
    if (!size) {
        mt_socket_free(p);
        return NULL;
    }
    void *q = _aligned_malloc(size, align);
    if (q) {
        size_t old = mt_socket_usable(p);
        __builtin_memcpy(q, p, old < size ? old : size);
        mt_socket_free(p);
    }
    return q;
}
/* realloc that zeroes what the block gains */
MT_EXPORT void *_recalloc(void *p, size_t n, size_t each)
{
    size_t size;
    if (__builtin_mul_overflow(n, each, &size)) {
        mt_pal_set_errno(MT_ENOMEM);
        return NULL;
    }
    size_t old = p ? mt_socket_usable(p) : 0;
    char *q = mt_socket_realloc(p, size);
    if (q && size > old)
        __builtin_memset(q + old, 0, size - old);
    return q;
}
/* grow or shrink in place only: the block itself, or NULL */
MT_EXPORT void *_expand(void *p, size_t size)
{
    if (p && size <= mt_socket_usable(p))
        return p;
    mt_pal_set_errno(MT_ENOMEM);
    return NULL;
}
#if defined(MT_SOCKET_REPLACES_MALLOC)
/* msvcrt's strdup allocates inside msvcrt.dll, with msvcrt's own malloc,
 * which a static library cannot replace; a program frees the copy with
 * free, ours. These copies are ours, so that pair matches. */
MT_EXPORT char *_strdup(const char *s)
{
    size_t n = __builtin_strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        __builtin_memcpy(copy, s, n);
    return copy;
}
MT_EXPORT char *strdup(const char *s) { return _strdup(s); }
MT_EXPORT char *(*__imp__strdup)(const char *) = _strdup;
MT_EXPORT size_t (*__imp__msize)(void *) = _msize;
MT_EXPORT void *(*__imp__aligned_malloc)(size_t, size_t) = _aligned_malloc;
MT_EXPORT void (*__imp__aligned_free)(void *) = _aligned_free;
MT_EXPORT size_t (*__imp__aligned_msize)(void *, size_t, size_t) = _aligned_msize;
MT_EXPORT void *(*__imp__aligned_realloc)(void *, size_t, size_t) = _aligned_realloc;
MT_EXPORT void *(*__imp__recalloc)(void *, size_t, size_t) = _recalloc;
MT_EXPORT void *(*__imp__expand)(void *, size_t) = _expand;
#endif
#endif

/* Every composition has it; without a safety layer (MT_TRAIT_REPORTS_INVALID)
 * nothing reports, and the handler is never called. */
MT_EXPORT void mortise_set_error_handler(mortise_error_handler *fn, void *arg)
{
    mt_report_set_handler(fn, arg);
}

MT_EXPORT const char *mortise_check(void)
{
    mt_ctx ctx = mt_ctx_for_alloc(0, 1);
    return (const char *)mt_chain_check(&ctx);
}

/* ---- glibc extensions, answered from what the layers really know ---- */

/* Give free memory back to the OS: every layer's purge. Returns 1 if any
 * memory was released. `pad` is accepted and ignored: nothing is kept for it. */
MT_EXPORT int malloc_trim(size_t pad)
{
    MT_SOCKET_NOTE_CALLER();
    (void)pad;
    mt_ctx ctx = mt_ctx_for_alloc(0, 1);
    return mt_chain_purge(&ctx) ? 1 : 0;
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
/* What the OS layer knows: arena = bytes from the OS in chunks for the layers
 * above, hblkhd = bytes in large blocks served straight from the OS,
 * uordblks = bytes handed to the layers (an upper bound of what is in use),
 * fordblks = bytes the OS layer holds free. Fields Mortise does not track
 * (ordblks, smblks, hblks, usmblks, fsmblks, keepcost) are 0. */
MT_EXPORT mt_mallinfo2 mallinfo2(void)
{
    mt_os_stats s;
    mt_mallinfo2 mi;
    memset(&mi, 0, sizeof mi);
    mt_os_stats_read(&s);
    mi.arena = s.mapped - s.large;
    mi.hblkhd = s.large;
    mi.uordblks = s.handed_out;
    mi.fordblks = s.mapped > s.handed_out ? s.mapped - s.handed_out : 0;
    return mi;
}

MT_EXPORT mt_mallinfo mallinfo(void)
{
    mt_mallinfo2 m2 = mallinfo2();
    mt_mallinfo mi;
    memset(&mi, 0, sizeof mi);
    mi.arena = (int)(m2.arena > INT32_MAX ? INT32_MAX : m2.arena);
    mi.hblkhd = (int)(m2.hblkhd > INT32_MAX ? INT32_MAX : m2.hblkhd);
    mi.uordblks = (int)(m2.uordblks > INT32_MAX ? INT32_MAX : m2.uordblks);
    mi.fordblks = (int)(m2.fordblks > INT32_MAX ? INT32_MAX : m2.fordblks);
    return mi;
}
#endif

#if !defined(MT_FREESTANDING)
/* The C library's reporting extensions and the statistics report need its
 * stdio and an output; a freestanding build (custom_socket on bare metal)
 * has the family, check, malloc_trim and mallopt only. */

#include "stats_exit.h" /* mt_stats_write, the report at exit */

MT_EXPORT void malloc_stats(void)
{
    mt_os_stats s;
    size_t layers;
    const char *const *names = mt_chain_layer_names(&layers);
    mt_os_stats_read(&s);
    fprintf(stderr, "Mortise:");
    for (size_t i = 0; i < layers; i++)
        fprintf(stderr, "%s%s", i ? "::" : " ", names[i]);
    fprintf(stderr,
            "\n"
            "system bytes     = %10zu\n"
            "in use bytes     = %10zu\n"
            "large bytes      = %10zu\n"
            "returned to OS   = %10zu\n",
            s.mapped, s.handed_out, s.large, s.returned);
    if (mt_stats_any())
        mt_stats_write(MT_STATS_TABLE, 2, NULL);
}

MT_EXPORT int malloc_info(int options, FILE *out)
{
    mt_os_stats s;
    if (options != 0) {
        mt_pal_set_errno(MT_EINVAL);
        return -1;
    }
    mt_os_stats_read(&s);
    fprintf(out,
            "<malloc version=\"mortise-1\">\n"
            "<system type=\"current\" size=\"%zu\"/>\n"
            "<total type=\"handed_out\" size=\"%zu\"/>\n"
            "<total type=\"large\" size=\"%zu\"/>\n"
            "<total type=\"returned\" size=\"%zu\"/>\n"
            "</malloc>\n",
            s.mapped, s.handed_out, s.large, s.returned);
    return 0;
}

/* ---- statistics (stats/registry.h, docs/stats.md): the report of the stats
 * layers and lock_stat=1 locks, as a table or JSON, now or at exit ---- */

MT_EXPORT void mortise_stats_print(int fd)
{
    int saved = mt_pal_errno();
    mt_stats_write(MT_STATS_TABLE, fd, NULL);
    mt_pal_set_errno(saved);
}

MT_EXPORT int mortise_stats_json(const char *path) { return mt_stats_write(MT_STATS_JSON, -1, path); }

#endif /* !MT_FREESTANDING */

/* Mortise has no run-time tunables: every mallopt parameter is refused (0). */
MT_EXPORT int mallopt(int param, int value)
{
    (void)param;
    (void)value;
    return 0;
}

/* forget the names' mapping (above) */
#undef malloc
#undef free
#undef calloc
#undef realloc
#undef reallocarray
#undef memalign
#undef aligned_alloc
#undef posix_memalign
#undef valloc
#undef pvalloc
#undef malloc_usable_size
#undef cfree
#undef free_sized
#undef free_aligned_sized
#undef malloc_trim
#undef mallinfo2
#undef mallinfo
#undef malloc_stats
#undef malloc_info
#undef mallopt
#undef mortise_set_error_handler
#undef mortise_check
#undef mortise_stats_print
#undef mortise_stats_json
#if defined(_WIN32)
#undef _msize
#undef _aligned_malloc
#undef _aligned_free
#undef _aligned_msize
#undef _aligned_realloc
#undef _recalloc
#undef _expand
#undef _strdup
#undef strdup
#endif
#endif
