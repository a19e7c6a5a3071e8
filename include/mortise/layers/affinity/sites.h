/* mortise/layers/affinity/sites.h — return addresses, wrapper detection and
 * variable-length call chains for affinity_pool (a template fragment of
 * layers/affinity_pool.h).
 *
 * Each return address seen by the slow path gets a site (insertion is a
 * compare-and-swap, lookups probe without a lock). A site is named once,
 * at its second allocation (dladdr): a known or user-named wrapper is a
 * wrapper from then on. Otherwise MT_AFF_LEARN of its allocations are
 * watched (a direct call site of malloc: its first ones; a frame a wrapper
 * chain reaches: from its MT_AFF_YOUNG_WAIT-th on, 1 in
 * MT_AFF_YOUNG_SAMPLE): the calling context above it (the next 4 return
 * addresses) and the sizes; two contexts and two sizes make it a wrapper,
 * else it is a direct site (after half of them if they showed one size). A wrapper's allocations unwind the stack and
 * extend the chain frame by frame while the frame is a wrapper too (each
 * judged the same way), at most max_chain deep; an unwind stops once it
 * has what it reads. */

#ifndef MORTISE_LAYERS_AFFINITY_KNOWN_WRAPPERS
#define MORTISE_LAYERS_AFFINITY_KNOWN_WRAPPERS
/* Substrings of the (mangled) names of common allocation wrappers. */
static const char *const mt_aff_known_wrappers[] = {
    "xmalloc",      "xcalloc",     "xrealloc", "xzalloc",  "xmemdup",
    "safe_malloc",  "emalloc",     "ecalloc",  "g_malloc", "g_malloc0",
    "g_try_malloc", "g_realloc",   "_Znwm",    "_Znam",    "MemoryManagerImpl8allocate",
    "XMemorynw",    "XalanMemMgr", NULL,
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
MT_UNUSED static const char *affinity_pool_user_wrappers(void)
{
    if (mt_load_acquire(&affinity_pool_state.wrappers_read) == 2)
        return affinity_pool_state.user_wrappers;
    int expected = 0;
    if (mt_cas(&affinity_pool_state.wrappers_read, &expected, 1)) {
        char *out = affinity_pool_state.user_wrappers;
        size_t cap = sizeof affinity_pool_state.user_wrappers, len = 0;
        const char *parts[2] = {MT_STR(MT_WRAPPERS), mt_pal_getenv("MORTISE_AFFINITY_WRAPPERS")};
        for (int i = 0; i < 2; i++)
            for (const char *c = parts[i]; c && *c && len + 2 < cap; c++) {
                if (c == parts[i] && len)
                    out[len++] = ':';
                out[len++] = *c;
            }
        out[len] = 0;
        mt_store_release(&affinity_pool_state.wrappers_read, 2);
    }
    return mt_load_acquire(&affinity_pool_state.wrappers_read) == 2 ? affinity_pool_state.user_wrappers : "";
}

/* The site of ra, inserted if new; NULL when its probes are all taken. */
MT_UNUSED static mt_aff_site *affinity_pool_site_get(uintptr_t ra)
{
    uint32_t h = mt_aff_site_hash(ra);
    for (uint32_t i = 0; i < MT_AFF_PROBES; i++) {
        mt_aff_site *s = &affinity_pool_state.site[(h + i) & (MT_AFF_SITES - 1)];
        uintptr_t k = mt_load_acquire(&s->ra);
        if (k == ra)
            return s;
        if (!k && (mt_cas(&s->ra, &k, ra) || k == ra))
            return s;
    }
    affinity_pool_state.sites_full++; /* a statistic: a lost update costs nothing */
    return NULL;
}

/* The site of ra if it has one (no insertion: the unwinder's callback
 * asks), else NULL. */
MT_UNUSED static const mt_aff_site *affinity_pool_site_find(uintptr_t ra)
{
    uint32_t h = mt_aff_site_hash(ra);
    for (uint32_t i = 0; i < MT_AFF_PROBES; i++) {
        const mt_aff_site *s = &affinity_pool_state.site[(h + i) & (MT_AFF_SITES - 1)];
        uintptr_t k = mt_load_acquire(&s->ra);
        if (k == ra)
            return s;
        if (!k)
            return NULL;
    }
    return NULL;
}

/* How far an unwind from the slow path must go: to ra (among the first 8
 * frames); for a chain, on while the frames above are wrappers, to the
 * first that is not (at most max_chain frames); then the 4 frames of the
 * calling context above the last, and, when the chain's loop may teach
 * that last frame that it is a wrapper (the chain then goes on one frame),
 * one frame more. */
typedef struct {
    uintptr_t ra;
    int at, end; /* ra's frame and the chain's last so far: -1 until found */
    bool open;   /* the chain may go on past end */
    bool spare;
} mt_aff_unwind_need;

MT_UNUSED static bool affinity_pool_unwound_enough(void *arg, const uintptr_t *ips, int n)
{
    mt_aff_unwind_need *need = arg;
    int k = n - 1; /* the frame just kept */
    if (need->at < 0) {
        if (ips[k] != need->ra)
            return k >= 7; /* not among the first 8: the chain is lost */
        need->at = need->end = k;
    } else if (need->open) {
        const mt_aff_site *t = affinity_pool_site_find(ips[k]);
        need->end = k;
        need->open = k - need->at + 1 < MT_MAX_CHAIN && t && mt_load_relaxed(&t->kind) == MT_AFF_WRAPPER;
    }
    return !need->open && n >= need->end + 5 + need->spare;
}

/* The return addresses above this frame, with the re-entry guard set
 * (after learning the layer unwinds once in MT_AFF_RECHECK), as far as
 * the context of ra's frame. */
MT_UNUSED static int affinity_pool_unwind(uintptr_t *ips, int max, uintptr_t ra)
{
    mt_aff_unwind_need need = {ra, -1, -1, false, false}; /* a direct site: ra's frame and its context */
    mt_faa(&affinity_pool_state.unwinds, 1);
    affinity_pool_busy = 1;
    int n = mt_pal_frames_until(ips, NULL, max, affinity_pool_unwound_enough, &need);
    affinity_pool_busy = 0;
    return n;
}

/* Where ra is among the first frames of an unwind from the slow path. */
MT_INLINE int mt_aff_find_frame(const uintptr_t *frames, int n, uintptr_t ra)
{
    for (int i = 0; i < n && i < 8; i++)
        if (frames[i] == ra)
            return i;
    return -1;
}

/* The calling context above frame i: a hash of up to 4 return addresses
 * (a wrapper called only by another wrapper has one caller but many
 * contexts). 0 when there is no frame above. */
MT_INLINE uintptr_t mt_aff_context(const uintptr_t *frames, int i, int n)
{
    uintptr_t h = 0;
    for (int j = i; j < n && j < i + 4; j++)
        h = (h ^ frames[j]) * 0x100000001b3ull + 1;
    return h;
}

/* Name a site at its second allocation (named: 0 unseen, 1 seen once, 2
 * named); a known or user-named wrapper is one from then on. Naming is a
 * look-up in the port layer's index of the object's symbols, and the first
 * look-up in an object builds that index from its whole dynamic symbol
 * table (pal/symbol.h); a program has many return addresses that allocate
 * once (start-up, a wrapper's callers): those are never named, and an
 * object only they reach is never indexed. No site is decided before
 * its second allocation (by use it takes two callers and two sizes), so a
 * named wrapper's verdict still comes first; its first object is grouped
 * by the wrapper's own return address. */
MT_UNUSED static void affinity_pool_name_site(mt_aff_site *s, uintptr_t ra)
{
    uint8_t expected = mt_load_relaxed(&s->named);
    if (expected == 2 || !mt_cas(&s->named, &expected, expected + 1) || expected == 0)
        return;
    mt_pal_symbol_info info;
    affinity_pool_busy = 1;
    bool known = mt_pal_symbol((const void *)(ra - 1), &info) && info.function;
    affinity_pool_busy = 0;
    if (!known)
        return;
    bool wrapper = mt_aff_names_match(affinity_pool_user_wrappers(), info.function);
    for (unsigned i = 0; !wrapper && mt_aff_known_wrappers[i]; i++)
        wrapper = strstr(info.function, mt_aff_known_wrappers[i]) != NULL;
    if (wrapper) {
        affinity_pool_lock();
        s->why = MT_AFF_BY_NAME;
        mt_store_release(&s->kind, MT_AFF_WRAPPER);
        affinity_pool_unlock();
    }
}

/* state lock held: a size a learning site allocated (up to the
 * MT_AFF_WRAP_SIZES different ones that make it a wrapper by use). */
MT_UNUSED static void affinity_pool_note_size(mt_aff_site *s, size_t size)
{
    bool known = false;
    for (unsigned i = 0; i < s->nsizes; i++)
        known |= s->sizes[i] == (uint32_t)size;
    if (!known && s->nsizes < MT_AFF_WRAP_SIZES)
        s->sizes[s->nsizes++] = (uint32_t)size;
}

/* state lock held: one more allocation watched at a learning site. */
MT_UNUSED static void affinity_pool_learn(mt_aff_site *s, uintptr_t caller, size_t size)
{
    if (mt_load_relaxed(&s->kind) != MT_AFF_LEARNING)
        return;
    s->seen++;
    bool known = false;
    for (unsigned i = 0; i < s->ncallers; i++)
        known |= s->callers[i] == caller;
    if (caller && !known && s->ncallers < MT_AFF_WRAP_CALLERS)
        s->callers[s->ncallers++] = caller;
    affinity_pool_note_size(s, size);
    if (s->ncallers >= MT_AFF_WRAP_CALLERS && s->nsizes >= MT_AFF_WRAP_SIZES) {
        s->why = MT_AFF_BY_USE;
        mt_store_release(&s->kind, MT_AFF_WRAPPER);
    } else if (s->seen >= MT_AFF_LEARN || (s->seen >= MT_AFF_LEARN / 2 && s->nsizes == 1))
        mt_store_release(&s->kind, MT_AFF_DIRECT); /* one size in half the watch: no wrapper's */
}

/* A learning direct site: its function's caller, then one step of learning. */
MT_UNUSED static uint32_t affinity_pool_learn_direct(mt_aff_site *s, uintptr_t ra, size_t size)
{
    uintptr_t frames[10];
    int n = affinity_pool_unwind(frames, 10, ra);
    int i = mt_aff_find_frame(frames, n, ra);
    uintptr_t caller = i >= 0 ? mt_aff_context(frames, i + 1, n) : 0;
    affinity_pool_lock();
    affinity_pool_learn(s, caller, size);
    uint32_t kind = mt_load_relaxed(&s->kind);
    affinity_pool_unlock();
    return kind;
}

/* state lock held: the group of a call chain, made if new; 0 when full. */
MT_UNUSED static uint32_t affinity_pool_group_get(const uintptr_t *chain, uint32_t depth)
{
    uint64_t h = mt_aff_chain_hash(chain, depth);
    const uint32_t slots = MT_AFF_GROUPS * 2;
    for (uint32_t i = 0; i < slots; i++) {
        uint32_t *slot = &affinity_pool_state.group_index[(uint32_t)(h + i) % slots];
        if (*slot) {
            mt_aff_group *g = &affinity_pool_state.group[*slot - 1];
            if (g->hash == h && g->depth == depth && !memcmp(g->chain, chain, depth * sizeof *chain))
                return *slot;
            continue;
        }
        if (affinity_pool_state.groups == MT_AFF_GROUPS)
            break;
        uint32_t id = ++affinity_pool_state.groups;
        mt_aff_group *g = &affinity_pool_state.group[id - 1];
        g->hash = h;
        g->depth = depth;
        memcpy(g->chain, chain, depth * sizeof *chain);
        g->parent = id;
        g->min_size = UINT32_MAX;
        *slot = id;
        return id;
    }
    affinity_pool_state.groups_full++;
    return 0;
}

/* state lock held: publish a wrapper's frame size to the walk once it is
 * trusted; withdraw it when the size varied. */
MT_UNUSED static void affinity_pool_trust_frame(mt_aff_site *w)
{
    uintptr_t ra = mt_load_relaxed(&w->ra);
    _Atomic(uint64_t) *slot = &affinity_pool_wrap[mt_aff_wrap_index(ra)];
    if (w->frame_size > 0 && w->frame_size <= MT_AFF_WRAP_FRAME_MAX && w->frame_seen >= MT_AFF_FRAME_TRUST)
        mt_store_release(slot, mt_aff_wrap_entry(ra, w->frame_size));
    else if (w->frame_size < 0 && mt_load_relaxed(slot) >> 16 == (uint64_t)ra)
        mt_store_release(slot, 0);
}

/* One frame up from trusted wrapper *at whose frame starts at *sp: its
 * caller's return address, in the word just below the frame's end, and
 * the caller's frame start; false when *at's frame size is not trusted. */
MT_INLINE bool affinity_pool_wrap_up(uintptr_t *at, uintptr_t *sp)
{
    uint64_t e = mt_load_acquire(&affinity_pool_wrap[mt_aff_wrap_index(*at)]);
    if (e >> 16 != (uint64_t)*at)
        return false;
    *sp += (uintptr_t)(e & 0xffff);
    *at = *(const uintptr_t *)(*sp - sizeof(uintptr_t));
    return true;
}

/* The decision the memo holds for the chain from ra, walked by the trusted
 * wrappers' frame sizes alone (no site probe, no lock): a memo code, 0 when
 * the chain or its decision is not known. A frame missing from the table
 * ends the chain early; such a chain is never in the memo, whose entries
 * come from walks over classified frames (a site's kind never changes once
 * decided). */
MT_INLINE uint64_t affinity_pool_memo_walk(uintptr_t ra, uintptr_t sp, uintptr_t *chain, uint32_t *depth_out)
{
    uint32_t depth = 0;
    chain[depth++] = ra;
    for (uintptr_t at = ra; depth < MT_MAX_CHAIN && affinity_pool_wrap_up(&at, &sp);)
        chain[depth++] = at;
    *depth_out = depth;
    uint64_t h = mt_aff_chain_hash(chain, depth);
    uint64_t e = mt_load_acquire(&affinity_pool_state.memo[mt_aff_memo_slot(h)]);
    return (e ^ h) & ~MT_AFF_MEMO_CODE ? 0 : e & MT_AFF_MEMO_CODE;
}

/* Empty the calling thread's wrapper cache. */
MT_UNUSED static void affinity_pool_wc_clear(void)
{
    for (uint32_t i = 0; i < (1u << MT_AFF_WCACHE_BITS); i++)
        affinity_pool_wt.e[i].ra = 0;
}

/* Does entry c hold the chain of depth frames (whatever its way)? */
MT_INLINE bool affinity_pool_wc_holds(const mt_aff_wc *c, const uintptr_t *chain, uintptr_t depth)
{
    if ((c->ra & ~MT_AFF_WC_OUT) != chain[0] || c->caller != chain[1] || c->more != depth - 2)
        return false;
    uintptr_t k = 2;
    while (k < depth && c->up[k - 2] == chain[k])
        k++;
    return k == depth;
}

/* Does entry `slot` hold a two-frame chain in its first way, where the
 * inline lookup reads it? */
MT_INLINE bool affinity_pool_wc_inline_held(uintptr_t slot)
{
    const mt_aff_wc *e = &affinity_pool_wt.e[slot];
    return e->ra && !e->more && mt_aff_wc_slot(e->ra, e->caller) == slot;
}

/* The memo decided a walked wrapper chain (code): the thread's wrapper
 * cache keeps it when it is the whole chain, so a cache entry matching
 * every frame it holds is exact: its last frame is a decided direct site
 * (a site's kind never changes once decided, so no chain through it goes
 * further), or the chain is max_chain deep. A chain that ends at a
 * wrapper whose frame size is not trusted is not kept (the walk stopped
 * short of its end). The address is cleared first and written last, so a
 * signal handler's malloc on this thread never sees half an entry. */

MT_UNUSED static void affinity_pool_wc_fill(const uintptr_t *chain, uint32_t depth, uint64_t code)
{
    if (depth < 2 || depth > 2 + MT_AFF_WC_UP)
        return;
    if (depth < MT_MAX_CHAIN) {
        mt_aff_site *t = affinity_pool_site_get(chain[depth - 1]);
        if (!t || mt_load_acquire(&t->kind) != MT_AFF_DIRECT)
            return;
    }
    uintptr_t word = MT_AFF_WC_BELOW;
    if (code != MT_AFF_MEMO_BELOW) {
        word = (uintptr_t)(code - 2);
#if MT_AFF_TP_REL
        word = (uintptr_t)&affinity_pool_tl.cur[word] - mt_aff_thread_pointer();
#endif
    }
    uintptr_t key = 0;
    for (uint32_t i = 0; i < depth; i++)
        key ^= chain[i];
    /* Every chain has MT_AFF_WC_WAYS ways, looked up out of line; the
     * inline lookup reads only a two-frame chain's first, and a two-frame
     * chain there keeps it. A two-frame chain takes its first way unless
     * another one holds it so; every other chain takes its own way, else
     * a free one, else (1 time in MT_AFF_WC_EVICT) one in turn. So two
     * callers whose low bits agree, or a deep chain hashed there, do not
     * evict each other on every call, and a set with more hot chains than
     * ways keeps most of them. */
    uintptr_t slot = mt_aff_wc_slot_of(key, depth);
    uintptr_t way = 0;
    if (depth > 2 || (affinity_pool_wc_inline_held(slot) &&
                      !affinity_pool_wc_holds(&affinity_pool_wt.e[slot], chain, depth))) {
        uintptr_t own = MT_AFF_WC_WAYS, free_way = MT_AFF_WC_WAYS, victims[MT_AFF_WC_WAYS], nvictims = 0;
        for (uintptr_t w = 0; w < MT_AFF_WC_WAYS; w++) {
            const mt_aff_wc *e = &affinity_pool_wt.e[slot ^ w];
            if (affinity_pool_wc_holds(e, chain, depth))
                own = w;
            else if (!e->ra && free_way == MT_AFF_WC_WAYS)
                free_way = w;
            else if (!affinity_pool_wc_inline_held(slot ^ w))
                victims[nvictims++] = w;
        }
        unsigned tick = affinity_pool_wt.tick;
        if (own < MT_AFF_WC_WAYS)
            way = own;
        else if (free_way < MT_AFF_WC_WAYS)
            way = free_way;
        else if (nvictims && !(tick % MT_AFF_WC_EVICT))
            way = victims[tick / MT_AFF_WC_EVICT % nvictims];
        else
            return;
    }
    slot ^= way;
    mt_aff_wc *c = &affinity_pool_wt.e[slot];
    bool out = depth > 2 || way;
    c->ra = 0;
    atomic_signal_fence(memory_order_seq_cst);
    c->caller = chain[1];
    c->word = word;
    c->more = depth - 2;
    for (uint32_t i = 2; i < depth; i++)
        c->up[i - 2] = chain[i];
    atomic_signal_fence(memory_order_seq_cst);
    c->ra = chain[0] | (out ? MT_AFF_WC_OUT : 0);
}

/* The thread's cache entry for the chain from wrapper ra whose frame
 * starts at sp (its caller's stack pointer), NULL if none: the frames
 * above are read at the trusted frame sizes as the walk reads them, and
 * the entry must hold the same chain, as deep (the walk stops at the
 * first frame not in the trusted table, as at the entry's making). */
MT_INLINE const mt_aff_wc *affinity_pool_wc_find(uintptr_t ra, uintptr_t sp)
{
    uintptr_t chain[2 + MT_AFF_WC_UP];
    uintptr_t depth = 0, at = ra, key = ra;
    chain[depth++] = ra;
    while (depth < 2 + MT_AFF_WC_UP && affinity_pool_wrap_up(&at, &sp)) {
        chain[depth++] = at;
        key ^= at;
    }
    if (depth < 2)
        return NULL;
    uintptr_t slot = mt_aff_wc_slot_of(key, depth);
    for (uintptr_t way = 0; way < MT_AFF_WC_WAYS; way++)
        if (affinity_pool_wc_holds(&affinity_pool_wt.e[slot ^ way], chain, depth))
            return &affinity_pool_wt.e[slot ^ way];
    return NULL;
}

/* The slot of a call site of alloc_other (one per socket entry point). */
MT_UNUSED static mt_aff_entry_delta *affinity_pool_entry_slot(uintptr_t entry)
{
    for (unsigned k = 0; k < MT_AFF_ENTRIES; k++) {
        uintptr_t e = mt_load_acquire(&affinity_pool_state.entry[k]);
        if (e == entry)
            return &affinity_pool_state.entry_delta[k];
        if (!e && (mt_cas(&affinity_pool_state.entry[k], &e, entry) || e == entry))
            return &affinity_pool_state.entry_delta[k];
    }
    return NULL;
}

/* A wrapper site's allocation: unwind, extend the chain through wrapper
 * frames, and answer the group (0: none, the request goes below). With
 * `learn`, learn on the way the distance from the caller's stack pointer
 * my_sp (taken in alloc_other, called from `entry`) to the first wrapper
 * frame and each wrapper's frame size, which the walk below relies on. */
MT_UNUSED static uint32_t affinity_pool_chain_group(uintptr_t ra, size_t size, uintptr_t my_sp,
                                                    uintptr_t entry, bool learn)
{
    uintptr_t ips[MT_AFF_CHAIN_CAP + 8], sps[MT_AFF_CHAIN_CAP + 8];
    int n;
    mt_aff_unwind_need need = {ra, -1, -1, true, true};
    mt_faa(&affinity_pool_state.unwinds, 1);
    affinity_pool_busy = 1;
    n = mt_pal_frames_until(ips, sps, MT_MAX_CHAIN + 8, affinity_pool_unwound_enough, &need);
    affinity_pool_busy = 0;
    int i = -1;
    for (int k = 0; k < n && k < 8 && i < 0; k++)
        if (ips[k] == ra)
            i = k;
    if (i < 0) {
        affinity_pool_state.chains_lost++;
        return 0;
    }
    mt_aff_entry_delta *slot = learn && my_sp ? affinity_pool_entry_slot(entry) : NULL;
    if (slot) {
        intptr_t delta = (intptr_t)(sps[i] - my_sp), known = 0;
        if (!mt_cas(slot, &known, delta) && known != delta && known != -1) {
            mt_store_relaxed(slot, -1);
            mt_store_relaxed(&affinity_pool_state.walk_off, 1);
        }
    }
    uintptr_t chain[MT_AFF_CHAIN_CAP];
    uint32_t depth = 0;
    chain[depth++] = ra;
    mt_aff_site *wrapper = learn ? affinity_pool_site_get(ra) : NULL;
    for (int j = i + 1; j < n && depth < MT_MAX_CHAIN; j++) {
        if (wrapper) { /* the frame below j is a wrapper: its size */
            intptr_t size_here = (intptr_t)(sps[j] - sps[j - 1]);
            affinity_pool_lock();
            if (!wrapper->frame_size && size_here > 0 && size_here <= 65536)
                wrapper->frame_size = (int32_t)size_here;
            else if (wrapper->frame_size != size_here)
                wrapper->frame_size = -1;
            if (wrapper->frame_size > 0 && wrapper->frame_seen < 255)
                wrapper->frame_seen++;
            affinity_pool_trust_frame(wrapper);
            affinity_pool_unlock();
        }
        uintptr_t frame = ips[j];
        chain[depth++] = frame;
        mt_aff_site *t = affinity_pool_site_get(frame);
        if (!t)
            break;
        affinity_pool_name_site(t, frame);
        uintptr_t ctx_frames[4];
        int m = 0;
        for (int k = j + 1; k < n && m < 4; k++)
            ctx_frames[m++] = ips[k];
        affinity_pool_lock();
        affinity_pool_learn(t, mt_aff_context(ctx_frames, 0, m), size);
        uint32_t kind = mt_load_relaxed(&t->kind);
        affinity_pool_unlock();
        if (kind != MT_AFF_WRAPPER)
            break;
        wrapper = learn ? t : NULL;
    }
    affinity_pool_lock();
    uint32_t g = affinity_pool_group_get(chain, depth);
    affinity_pool_unlock();
    return g;
}

/* The same chain without the unwinder, once every wrapper on it has shown
 * one frame size MT_AFF_FRAME_TRUST times: a wrapper frame's caller returns
 * to the word just below the wrapper's stack pointer plus its frame size.
 * Fills chain and answers its depth; 0 with *learn set when a frame size or
 * the entry's distance is not known well enough yet (the caller unwinds
 * with stack pointers), 0 with *young set to a frame's site that is
 * still learning (the chain may go on past it, and only an unwind shows
 * that site's callers), 0 alone when something else is missing. Takes no
 * lock. x86-64 only. */
MT_UNUSED static uint32_t affinity_pool_walk_chain(uintptr_t ra, uintptr_t my_sp, uintptr_t entry,
                                                   bool *learn, mt_aff_site **young, uintptr_t *chain)
{
    *learn = false;
    *young = NULL;
    if (!my_sp)
        return 0;
    mt_aff_entry_delta *slot = affinity_pool_entry_slot(entry);
    intptr_t delta = slot ? mt_load_relaxed(slot) : -1;
    if (delta == -1)
        return 0;
    if (!delta) {
        *learn = true;
        return 0;
    }
    uintptr_t sp = my_sp + (uintptr_t)delta;
    uint32_t depth = 0;
    chain[depth++] = ra;
    mt_aff_site *w = affinity_pool_site_get(ra);
    while (depth < MT_MAX_CHAIN) {
        if (!w || mt_load_relaxed(&w->kind) != MT_AFF_WRAPPER || w->frame_size < 0)
            return 0;
        if (!w->frame_size || w->frame_seen < MT_AFF_FRAME_TRUST) {
            *learn = true;
            return 0;
        }
        sp += (uintptr_t)w->frame_size;
        uintptr_t at = *(const uintptr_t *)(sp - sizeof(uintptr_t));
        chain[depth++] = at;
        w = affinity_pool_site_get(at);
        if (!w)
            return 0;
        uint32_t kind = mt_load_relaxed(&w->kind);
        if (kind == MT_AFF_LEARNING) {
            *young = w;
            return 0;
        }
        if (kind != MT_AFF_WRAPPER)
            break;
    }
    return depth;
}
