/* mortise/layers/affinity/state.h — an affinity_pool instance's tables,
 * locks and per-thread state (a template fragment of
 * layers/affinity_pool.h). Everything shared is static and zero-filled: a
 * zero spinlock is unlocked, a zero site empty. */

#define MT_AFF_SEGS_PER_SPAN (MT_GRANULE / MT_SEGMENT_SIZE)

/* An entry point's learned stack depth (entry_delta below). */
typedef _Atomic(intptr_t) mt_aff_entry_delta;

static struct {
    mt_sync_spinlock lock;       /* sites' learning, groups, decisions, merges */
    mt_sync_spinlock spans_lock; /* span records and their free segments */
    mt_aff_site site[MT_AFF_SITES];
    /* a walked wrapper chain's decision by the chain's hash, so a decided
     * chain skips the group index, the state lock and the counting; cleared
     * when classes with pools merge (a stale entry costs locality only) */
    _Atomic(uint64_t) memo[1u << MT_AFF_MEMO_BITS];
    mt_aff_group group[MT_AFF_GROUPS];
    uint32_t groups;
    uint32_t group_index[MT_AFF_GROUPS * 2]; /* chain hash → group + 1 */
    mt_aff_pool pool[MT_AFF_POOLS];
    uint32_t pools;
    mt_aff_span span[MT_AFF_SPANS];
    int32_t spans_free_head; /* span with a free segment, index + 1 */
    int32_t spans_spare;     /* records whose span went back below, index + 1,
                                linked through next */
    uint32_t spans_high;     /* records used so far */
    mt_aff_addr addr[1u << MT_AFF_ADDR_BITS];
    mt_aff_merge merge[MT_AFF_MERGE_LOG];
    uint32_t merges;
    uint32_t retired;  /* classes whose pools were retired */
    uint32_t rechecks; /* wrapper chains re-unwound, by every thread */
    uint64_t bytes_seen, bytes_scanned, scans, scans_skipped;
    uint64_t spans_taken, spans_given;
    uint64_t sites_full, groups_full, chains_lost;
    _Atomic(uint64_t) reentries;
    _Atomic(uint64_t) unwinds; /* by the slow path: learning, rechecks */
    /* per call site of alloc_other (one per socket entry point): the first
     * wrapper frame's stack pointer minus alloc_other's; -1 if it varied */
    _Atomic(uintptr_t) entry[MT_AFF_ENTRIES];
    mt_aff_entry_delta entry_delta[MT_AFF_ENTRIES];
    _Atomic(int) walk_off;       /* an entry's distance varied once */
    uint64_t walks, walk_misses; /* walks: chains walked that missed the memo */
    _Atomic(uint64_t) memo_hits; /* added up per thread at each recheck */
    _Atomic(uint32_t) memo_gen;  /* memo cleared or a class retired this many
                                     times: a thread's wrapper cache from
                                     before is emptied */
    char user_wrappers[256];     /* the slot and MORTISE_AFFINITY_WRAPPERS */
    _Atomic(int) wrappers_read;
    _Atomic(uintptr_t) thread_ids; /* ids handed to threads so far */
} affinity_pool_state;

/* The segment headers of span i: segs[i], named by the span's page-map
 * payload (out of band: a segment is all objects). */
static _Alignas(64) mt_aff_seg affinity_pool_segs[MT_AFF_SPANS][MT_AFF_SEGS_PER_SPAN];

/* A thread's pooled allocations: per pool, the segment it allocates from
 * (the empty `none` until it has one, so the fast path needs no NULL test)
 * and a ring of its other segments of that pool. */
static mt_aff_seg affinity_pool_none;
enum { affinity_pool_tl_new = 0, affinity_pool_tl_on, affinity_pool_tl_off };
static MT_TLS struct {
    mt_aff_seg *cur[MT_AFF_POOLS];
    mt_aff_seg *ring[MT_AFF_POOLS];
    uintptr_t id; /* a segment's owner mark; 0 before the thread starts */
    int state;    /* new, on, or off after thread_exit (all goes below) */
} affinity_pool_tl = {.cur = {[0 ... MT_AFF_POOLS - 1] = &affinity_pool_none}};

/* The malloc fast path's table, apart from the state so its address is
 * one RIP-relative lea, in rows direct-mapped by return address
 * (mt_aff_plain_slot, MT_AFF_SITE_AT, MT_AFF_POOL_AT):
 * - a return address decided "never pooled" (an evicted one finds its site
 *   again in alloc_slow and comes back);
 * - or the complement of one decided "pooled", with its pool's word, set
 *   after clearing the site word and then the pool word (a reader that
 *   sees a stale pool word still checks the size against the segment, so
 *   a torn entry costs locality, never correctness). */
static _Atomic(uintptr_t) affinity_pool_fast[MT_AFF_ROW << MT_AFF_PLAIN_BITS];

/* The walk's view of the wrappers whose frame size is trusted (seen
 * MT_AFF_FRAME_TRUST times, never varied), direct-mapped by the return
 * address's low bits: a walk of a decided chain reads one word per frame
 * instead of probing the site table. Cleared when a frame size varies. */
static _Atomic(uint64_t) affinity_pool_wrap[1u << MT_AFF_WRAP_BITS];

/* Set while this thread unwinds or names a symbol: a malloc it makes then
 * (the unwinder's, a signal handler's) goes below untouched. */
static MT_TLS int affinity_pool_busy;
/* A thread's wrapper cache (x86-64): the wrapper chains the memo decided,
 * direct-mapped by (wrapper's return address, caller's), so a hit skips
 * the walk, the chain's hash and the memo; with the walk's counters, one
 * TLS block. left: cache hits until the next one takes the walk's path
 * and is re-unwound (a count down, so a hit spends one `sub` on it). gen:
 * the memo generation the entries were made under (the thread empties them
 * at its next recheck after a merge). */
static MT_TLS struct {
    mt_aff_wc e[1u << MT_AFF_WCACHE_BITS];
    unsigned tick; /* walks: 1 in MT_AFF_RECHECK unwinds */
    unsigned left; /* cache hits before the next recheck */
    unsigned hits; /* memo and cache hits not yet in memo_hits */
    uint32_t gen;
} affinity_pool_wt = {.left = MT_AFF_RECHECK};

MT_INLINE void affinity_pool_lock(void) { mt_sync_spinlock_lock(&affinity_pool_state.lock); }
MT_INLINE void affinity_pool_unlock(void) { mt_sync_spinlock_unlock(&affinity_pool_state.lock); }

/* fork: every lock in the order requests take them. */
MT_UNUSED static void affinity_pool_lock_all(void)
{
    affinity_pool_lock();
    for (uint32_t i = 0; i < MT_AFF_POOLS; i++)
        mt_sync_spinlock_lock(&affinity_pool_state.pool[i].lock);
    mt_sync_spinlock_lock(&affinity_pool_state.spans_lock);
}
MT_UNUSED static void affinity_pool_unlock_all(void)
{
    mt_sync_spinlock_unlock(&affinity_pool_state.spans_lock);
    for (uint32_t i = MT_AFF_POOLS; i-- > 0;)
        mt_sync_spinlock_unlock(&affinity_pool_state.pool[i].lock);
    affinity_pool_unlock();
}
MT_UNUSED static void affinity_pool_reset_locks(void)
{
    mt_sync_spinlock_init(&affinity_pool_state.spans_lock);
    for (uint32_t i = 0; i < MT_AFF_POOLS; i++)
        mt_sync_spinlock_init(&affinity_pool_state.pool[i].lock);
    mt_sync_spinlock_init(&affinity_pool_state.lock);
}

/* Mallocs made inside the unwinder, for the tests. */
MT_UNUSED static uint64_t affinity_pool_reentries(void)
{
    return mt_load_relaxed(&affinity_pool_state.reentries);
}
