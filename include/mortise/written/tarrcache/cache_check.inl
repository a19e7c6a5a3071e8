/* mortise/written/tarrcache/cache_check.inl — layers/cache/check.h written out for tarrcache by
 * tools/layer_names.py; do not edit: edit layers/cache/check.h, then run --write. */
/* mortise/layers/cache/check.h — what the cache layers' check operations
 * share: is a cached block still the layer below's and of its class, and
 * are a magazine's blocks in bounds, owned and unique.
 *
 * A template part, included once per instance after cache/classes.h and
 * MT_DECLARE_BELOW(getmeta) (no include guard):
 *   tarrcache_cached_in(p, c)       p is owned below and files under class c
 *   tarrcache_check_magazine(m, c)  NULL, or "NAME: what" is wrong with the
 *                                  magazine m of class c (magazine.h)
 * Both are for the check operation (tests, debug builds): a getmeta below
 * per block, O(n^2) per magazine (magazines are short).
 */

/* p is a block the layer below owns, and it files under class c. */
MT_SLOW MT_UNUSED bool tarrcache_cached_in(void *p, size_t c)
{
    mt_ctx q = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&q, p);
    return MT_BELOW(getmeta)(&q) && q.ptr == p && tarrcache_class_of(&q) == c;
}

/* m holds at most its bound, each block owned below in class c, none twice. */
MT_SLOW MT_UNUSED const char *tarrcache_check_magazine(const mt_magazine *m, size_t c)
{
    if (m->n > m->cap || (m->n && !m->slot))
        return MT_STR(MT_NAME) ": magazine holds more blocks than its bound";
    for (uint32_t i = 0; i < m->n; i++) {
        if (!m->slot[i] || !tarrcache_cached_in(m->slot[i], c))
            return MT_STR(MT_NAME) ": cached block not owned below or of another class";
        for (uint32_t j = 0; j < i; j++)
            if (m->slot[j] == m->slot[i])
                return MT_STR(MT_NAME) ": a block cached twice";
    }
    return NULL;
}
