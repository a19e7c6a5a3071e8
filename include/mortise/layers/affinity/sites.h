/* mortise/layers/affinity/sites.h — return addresses, wrapper detection and
 * variable-length call chains for affinity_pool (a template fragment of
 * layers/affinity_pool.h).
 *
 * Each return address seen by the slow path gets a site (insertion is a
 * compare-and-swap, lookups probe without a lock). A site is named once
 * (dladdr): a known or user-named wrapper is a wrapper at once. Otherwise
 * it is watched for its first MT_AFF_LEARN allocations: the calling context
 * above it (the next 4 return addresses) and the sizes; two contexts and
 * two sizes make it a wrapper, else it is a direct site. A wrapper's allocations unwind the
 * stack and extend the chain frame by frame while the frame is a wrapper
 * too (each judged the same way), at most max_chain deep. */

#ifndef MORTISE_LAYERS_AFFINITY_KNOWN_WRAPPERS
#define MORTISE_LAYERS_AFFINITY_KNOWN_WRAPPERS
/* Substrings of the (mangled) names of common allocation wrappers. */
static const char *const mt_aff_known_wrappers[] = {
    "xmalloc", "xcalloc", "xrealloc", "xzalloc", "xmemdup", "safe_malloc", "emalloc", "ecalloc",
    "g_malloc", "g_malloc0", "g_try_malloc", "g_realloc", "_Znwm", "_Znam",
    "MemoryManagerImpl8allocate", "XMemorynw", "XalanMemMgr", NULL,
};

/* Is one of the names in list (separated by ':' or ',') a substring of name? */
MT_UNUSED static bool mt_aff_names_match(const char *list, const char *name)
{
    while (*list) {
        size_t n = 0;
        while (list[n] && list[n] != ':' && list[n] != ',')
            n++;
        for (const char *at = name; n && *at; at++)
            if (!strncmp(at, list, n))
                return true;
        list += n;
        if (*list)
            list++;
    }
    return false;
}
#endif

/* The slot's names and MORTISE_AFFINITY_WRAPPERS', read once. */
MT_UNUSED static const char *MT_SELF(user_wrappers)(void)
{
    if (mt_load_acquire(&MT_SELF(state).wrappers_read) == 2)
        return MT_SELF(state).user_wrappers;
    int expected = 0;
    if (mt_cas(&MT_SELF(state).wrappers_read, &expected, 1)) {
        char *out = MT_SELF(state).user_wrappers;
        size_t cap = sizeof MT_SELF(state).user_wrappers, len = 0;
        const char *parts[2] = {MT_STR(MT_WRAPPERS), mt_pal_getenv("MORTISE_AFFINITY_WRAPPERS")};
        for (int i = 0; i < 2; i++)
            for (const char *c = parts[i]; c && *c && len + 2 < cap; c++) {
                if (c == parts[i] && len)
                    out[len++] = ':';
                out[len++] = *c;
            }
        out[len] = 0;
        mt_store_release(&MT_SELF(state).wrappers_read, 2);
    }
    return mt_load_acquire(&MT_SELF(state).wrappers_read) == 2 ? MT_SELF(state).user_wrappers : "";
}

/* The site of ra, inserted if new; NULL when its probes are all taken. */
MT_UNUSED static mt_aff_site *MT_SELF(site_get)(uintptr_t ra)
{
    uint32_t h = mt_aff_site_hash(ra);
    for (uint32_t i = 0; i < MT_AFF_PROBES; i++) {
        mt_aff_site *s = &MT_SELF(state).site[(h + i) & (MT_AFF_SITES - 1)];
        uintptr_t k = mt_load_acquire(&s->ra);
        if (k == ra)
            return s;
        if (!k && (mt_cas(&s->ra, &k, ra) || k == ra))
            return s;
    }
    MT_SELF(state).sites_full++; /* a statistic: a lost update costs nothing */
    return NULL;
}

/* The return addresses above this frame, with the re-entry guard set. */
MT_UNUSED static int MT_SELF(unwind)(void **frames, int max)
{
    MT_SELF(busy) = 1;
    int n = mt_pal_callers(frames, max);
    MT_SELF(busy) = 0;
    return n;
}

/* Where ra is among the first frames of an unwind from the slow path. */
MT_INLINE int mt_aff_find_frame(void **frames, int n, uintptr_t ra)
{
    for (int i = 0; i < n && i < 8; i++)
        if ((uintptr_t)frames[i] == ra)
            return i;
    return -1;
}

/* The calling context above frame i: a hash of up to 4 return addresses
 * (a wrapper called only by another wrapper has one caller but many
 * contexts). 0 when there is no frame above. */
MT_INLINE uintptr_t mt_aff_context(void **frames, int i, int n)
{
    uintptr_t h = 0;
    for (int j = i; j < n && j < i + 4; j++)
        h = (h ^ (uintptr_t)frames[j]) * 0x100000001b3ull + 1;
    return h;
}

/* Name a new site once; a known or user-named wrapper is one at once. */
MT_UNUSED static void MT_SELF(name_site)(mt_aff_site *s, uintptr_t ra)
{
    uint32_t expected = 0;
    if (mt_load_relaxed(&s->named) || !mt_cas(&s->named, &expected, 1))
        return;
    mt_pal_symbol_info info;
    MT_SELF(busy) = 1;
    bool known = mt_pal_symbol((const void *)(ra - 1), &info) && info.function;
    MT_SELF(busy) = 0;
    if (!known)
        return;
    bool wrapper = mt_aff_names_match(MT_SELF(user_wrappers)(), info.function);
    for (unsigned i = 0; !wrapper && mt_aff_known_wrappers[i]; i++)
        wrapper = strstr(info.function, mt_aff_known_wrappers[i]) != NULL;
    if (wrapper) {
        MT_SELF(lock)();
        s->why = MT_AFF_BY_NAME;
        mt_store_release(&s->kind, MT_AFF_WRAPPER);
        MT_SELF(unlock)();
    }
}

/* state lock held: one more allocation watched at a learning site. */
MT_UNUSED static void MT_SELF(learn)(mt_aff_site *s, uintptr_t caller, size_t size)
{
    if (mt_load_relaxed(&s->kind) != MT_AFF_LEARNING)
        return;
    s->seen++;
    bool known = false;
    for (unsigned i = 0; i < s->ncallers; i++)
        known |= s->callers[i] == caller;
    if (caller && !known && s->ncallers < MT_AFF_WRAP_CALLERS)
        s->callers[s->ncallers++] = caller;
    known = false;
    for (unsigned i = 0; i < s->nsizes; i++)
        known |= s->sizes[i] == (uint32_t)size;
    if (!known && s->nsizes < MT_AFF_WRAP_SIZES)
        s->sizes[s->nsizes++] = (uint32_t)size;
    if (s->ncallers >= MT_AFF_WRAP_CALLERS && s->nsizes >= MT_AFF_WRAP_SIZES) {
        s->why = MT_AFF_BY_USE;
        mt_store_release(&s->kind, MT_AFF_WRAPPER);
    } else if (s->seen >= MT_AFF_LEARN)
        mt_store_release(&s->kind, MT_AFF_DIRECT);
}

/* A learning direct site: its function's caller, then one step of learning. */
MT_UNUSED static uint32_t MT_SELF(learn_direct)(mt_aff_site *s, uintptr_t ra, size_t size)
{
    void *frames[10];
    int n = MT_SELF(unwind)(frames, 10);
    int i = mt_aff_find_frame(frames, n, ra);
    uintptr_t caller = i >= 0 ? mt_aff_context(frames, i + 1, n) : 0;
    MT_SELF(lock)();
    MT_SELF(learn)(s, caller, size);
    uint32_t kind = mt_load_relaxed(&s->kind);
    MT_SELF(unlock)();
    return kind;
}

/* state lock held: the group of a call chain, made if new; 0 when full. */
MT_UNUSED static uint32_t MT_SELF(group_get)(const uintptr_t *chain, uint32_t depth)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < depth; i++)
        h = (h ^ chain[i]) * 0x100000001b3ull;
    h ^= depth;
    const uint32_t slots = MT_AFF_GROUPS * 2;
    for (uint32_t i = 0; i < slots; i++) {
        uint32_t *slot = &MT_SELF(state).group_index[(uint32_t)(h + i) % slots];
        if (*slot) {
            mt_aff_group *g = &MT_SELF(state).group[*slot - 1];
            if (g->hash == h && g->depth == depth && !memcmp(g->chain, chain, depth * sizeof *chain))
                return *slot;
            continue;
        }
        if (MT_SELF(state).groups == MT_AFF_GROUPS)
            break;
        uint32_t id = ++MT_SELF(state).groups;
        mt_aff_group *g = &MT_SELF(state).group[id - 1];
        g->hash = h;
        g->depth = depth;
        memcpy(g->chain, chain, depth * sizeof *chain);
        g->parent = id;
        g->min_size = UINT32_MAX;
        *slot = id;
        return id;
    }
    MT_SELF(state).groups_full++;
    return 0;
}

/* A wrapper site's allocation: unwind, extend the chain through wrapper
 * frames, and answer its group (0: none, the request goes below). */
MT_UNUSED static uint32_t MT_SELF(chain_group)(uintptr_t ra, size_t size)
{
    /* Most chains end one or two frames above ra: unwind 8 frames first
     * (the unwinder's cost grows with the frames asked for), all of the
     * deepest chain only when the walk gets there. */
    void *frames[MT_AFF_CHAIN_CAP + 8];
    int asked = 8;
    int n = MT_SELF(unwind)(frames, asked);
    int i = mt_aff_find_frame(frames, n, ra);
    if (i < 0) {
        MT_SELF(state).chains_lost++;
        return 0;
    }
    uintptr_t chain[MT_AFF_CHAIN_CAP];
    uint32_t depth = 0;
    chain[depth++] = ra;
    for (int j = i + 1; depth < MT_MAX_CHAIN; j++) {
        if (j >= n && n == asked && asked < MT_MAX_CHAIN + 8) {
            asked = MT_MAX_CHAIN + 8;
            n = MT_SELF(unwind)(frames, asked);
            if (mt_aff_find_frame(frames, n, ra) != i)
                break; /* cannot happen on one stack; never trust it */
        }
        if (j >= n)
            break;
        uintptr_t frame = (uintptr_t)frames[j];
        chain[depth++] = frame;
        mt_aff_site *t = MT_SELF(site_get)(frame);
        if (!t)
            break;
        MT_SELF(name_site)(t, frame);
        MT_SELF(lock)();
        MT_SELF(learn)(t, mt_aff_context(frames, j + 1, n), size);
        uint32_t kind = mt_load_relaxed(&t->kind);
        MT_SELF(unlock)();
        if (kind != MT_AFF_WRAPPER)
            break;
    }
    MT_SELF(lock)();
    uint32_t g = MT_SELF(group_get)(chain, depth);
    MT_SELF(unlock)();
    return g;
}
