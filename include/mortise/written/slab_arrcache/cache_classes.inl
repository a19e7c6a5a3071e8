/* mortise/written/slab_arrcache/cache_classes.inl — layers/cache/classes.h written out for slab_arrcache by
 * tools/layer_names.py; do not edit: edit layers/cache/classes.h, then run --write. */
/* mortise/layers/cache/classes.h — the size classes a cache layer keeps.
 *
 * The caches (thread_cache, tarrcache, carrcache_lk, slab_arrcache) hold
 * blocks that stay owned by the layer below and file them by size class.
 * This template part, included once per instance after
 * policy/sizeclass/slot.h (no include guard), gives each of them the same
 * answers to: which requests are cached, which class a block belongs in, and
 * how many blocks of a class a byte budget allows.
 *
 * Needs: MT_NAME, MT_SIZE_HANDLE (finite upper bound), MT_SIZECLASS (and
 *   slab_arrcache_szcls_key from slot.h); optionally MT_CACHE_BINS, the size of
 *   the layer's class table (default: the policy's class count, at most
 *   256; classes above it are not cached). It is forgotten at the end.
 * Defines (all constant-folded where their arguments are constants):
 *   slab_arrcache_bins            the table size
 *   slab_arrcache_class_size(c), slab_arrcache_class_index(size)   the policy
 *   slab_arrcache_top()           requests below it are cached (size_handle's
 *                            bound, or less if the table is smaller)
 *   slab_arrcache_first(), slab_arrcache_end()    cached classes: [first, end)
 *   slab_arrcache_takes(size, align)         a request the cache serves
 *   slab_arrcache_aligned_class(size, align) for MT_MIN_ALIGN < align <= 4096
 *                            (a power of two), the smallest cached class
 *                            not below size whose size is a multiple of
 *                            align (where slab layers put such a request:
 *                            slab_lk's class_for), or SIZE_MAX. Its blocks
 *                            are aligned only if the layer below aligns
 *                            them: the caller checks each pointer
 *   slab_arrcache_covers(c)       class c is cached (c may be SIZE_MAX: no)
 *   slab_arrcache_class_of(ctx)   the class of a block getmeta below answered
 *                            for: the owner's class hint when its policy is
 *                            ours (taken to be below the policy's class
 *                            count), else the largest class not above its
 *                            usable size, so blocks of any owner are safe
 *   slab_arrcache_share(budget, c)  blocks of class c an even share of `budget`
 *                            bytes between the cached classes allows (>= 1)
 *   slab_arrcache_cap(budget, c, most)  for magazine caches: min(most,
 *                            share(budget, c)), class c's bound
 *   slab_arrcache_caps(caps, budget, most)  caps[c] = cap(budget, c, most) for
 *                            every cached class; returns their sum (the
 *                            slots to allocate)
 */
#ifndef MT_CACHE_BINS
#define MT_CACHE_BINS (MT_SZCLS_CLASSES(MT_SIZECLASS) < 256 ? MT_SZCLS_CLASSES(MT_SIZECLASS) : 256)
#endif

_Static_assert(MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE) != SIZE_MAX,
               "cache layer: size_handle needs a finite upper bound");
_Static_assert(MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE) < MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE),
               "cache layer: size_handle is empty");

enum { slab_arrcache_bins = MT_CACHE_BINS };

MT_INLINE size_t slab_arrcache_class_size(size_t index) { return MT_SZCLS_FN(MT_SIZECLASS, size)(index); }
MT_INLINE size_t slab_arrcache_class_index(size_t size) { return MT_SZCLS_FN(MT_SIZECLASS, index)(size); }

MT_INLINE size_t slab_arrcache_top(void)
{
    size_t hi = MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE);
    size_t table = slab_arrcache_class_size(slab_arrcache_bins - 1) + 1;
    return hi < table ? hi : table;
}
MT_INLINE size_t slab_arrcache_first(void) { return slab_arrcache_class_index(MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE)); }
MT_INLINE size_t slab_arrcache_end(void) { return slab_arrcache_class_index(slab_arrcache_top() - 1) + 1; }

MT_INLINE bool slab_arrcache_takes(size_t size, size_t align)
{
    return mt_size_in(size, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), slab_arrcache_top()) &&
           MT_LIKELY(align <= MT_MIN_ALIGN);
}

MT_INLINE size_t slab_arrcache_aligned_class(size_t size, size_t align)
{
    if (align > 4096 || !mt_size_in(size, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), slab_arrcache_top()))
        return SIZE_MAX;
    size_t c = slab_arrcache_class_index(size > align ? size : align);
    while (c < slab_arrcache_end() && (slab_arrcache_class_size(c) & (align - 1)))
        c++;
    return c < slab_arrcache_end() && c >= slab_arrcache_first() ? c : SIZE_MAX;
}

MT_INLINE bool slab_arrcache_covers(size_t c) { return c - slab_arrcache_first() < slab_arrcache_end() - slab_arrcache_first(); }

MT_INLINE size_t slab_arrcache_class_of(const mt_ctx *ctx)
{
    if (slab_arrcache_szcls_key != 0 && ctx->szcls_key == (uintptr_t)slab_arrcache_szcls_key) {
        /* The owner reports a class of the policy (it indexes its own class
         * table with it), so a cache whose table holds every class of the
         * policy needs no range check on it (thread_cache's free hit). */
        if (ctx->szcls >= MT_SZCLS_CLASSES(MT_SIZECLASS))
            __builtin_unreachable();
        return ctx->szcls;
    }
    return slab_arrcache_class_index(ctx->usable + 1) - 1;
}

MT_INLINE size_t slab_arrcache_share(size_t budget, size_t c)
{
    size_t blocks = budget / (slab_arrcache_end() - slab_arrcache_first()) / slab_arrcache_class_size(c);
    return blocks ? blocks : 1;
}

MT_INLINE size_t slab_arrcache_cap(size_t budget, size_t c, size_t most)
{
    size_t share = slab_arrcache_share(budget, c);
    return share < most ? share : most;
}

MT_UNUSED static size_t slab_arrcache_caps(uint32_t *caps, size_t budget, size_t most)
{
    size_t sum = 0;
    for (size_t c = slab_arrcache_first(); c < slab_arrcache_end(); c++)
        sum += caps[c] = (uint32_t)slab_arrcache_cap(budget, c, most);
    return sum;
}

#undef MT_CACHE_BINS
