/* mortise/layers/cache/handoff.h — thread_cache's hand-off slots: a small
 * process-wide transfer cache between the threads' lists of one class.
 *
 * Producer/consumer patterns (blocks malloc'd by one thread, freed by
 * another) would otherwise cost every block one class-lock round trip below
 * on each side: the consumer's list overflows while the producer's runs
 * dry. Per class, MT_THREAD_CACHE_HANDOFF slots each hold one chain (NULL-
 * terminated through the blocks' first words). Only compare-and-swaps from
 * NULL and exchanges touch a slot, so there is no ABA and nothing to do at
 * fork (a chain in a slot is valid in the child). The blocks stay allocated
 * for the layer below, like cached ones.
 *
 * A chain's first block carries its length in its second word, so a
 * thread that misses with an empty list takes the whole chain without
 * walking it: the links were written on another core, and a walk would
 * wait for each of them in turn, where the pops that follow meet each block
 * just before the program touches it anyway. The length is trusted only
 * within the list's room (a block's second word is the program's to damage
 * after a free); otherwise, and for classes too small for a second word,
 * the chain is walked.
 *
 * Template part (no include guard), included once by thread_cache after
 * its per-thread lists. Needs: MT_SELF(tl).head[c] and .room[c],
 * MT_SELF(bins), MT_SELF(class_size)(c),
 * MT_SELF(cut)(c, n, &k), MT_SELF(flush)(c, n) (the newest
 * n blocks of the list below), MT_SELF(free_chain)(chain),
 * MT_SELF(next_of)(p) (the link after p, checked under link_check),
 * MT_THREAD_CACHE_HANDOFF (0: no slots; shed is then never called).
 * Defines:
 *   MT_SELF(shed)(c, n)        a full list's newest n blocks into a slot
 *                              (below when every slot is full)
 *   MT_SELF(take_handoff)(c)   a miss: the first full slot's chain, or NULL
 *   MT_SELF(empty_handoff)(c)  purge/exit: every slot's chain below; how many
 * Time: shed a load per slot, then O(n) to cut the list plus a CAS per slot
 * (or, every slot full, O(n) frees below); take_handoff a load
 * per slot, one exchange, O(1) to splice into an empty list (else O(room));
 * empty_handoff O(blocks).
 */
/* Hand-off: per class, MT_THREAD_CACHE_HANDOFF slots, each empty or holding
 * a chain a full list shed (NULL-terminated through the blocks' first
 * words), for the next threads that miss on the class. */
enum { MT_SELF(slots) = MT_THREAD_CACHE_HANDOFF ? MT_THREAD_CACHE_HANDOFF : 1 };
static _Atomic(void *) MT_SELF(handoff)[MT_SELF(bins)][MT_SELF(slots)];

/* Where a chain's length is kept: its first block's second word, when the
 * class's blocks have one (NULL: they do not). */
MT_INLINE size_t *MT_SELF(chain_length_word)(size_t c, void *chain)
{
    return MT_SELF(class_size)(c) >= 2 * sizeof(void *) ? (size_t *)chain + 1 : NULL;
}

/* Hand-off, full list: the newest `n` blocks of class c go to an empty slot
 * (a compare-and-swap from NULL: no ABA). When every slot is full, no
 * thread is taking hand-offs: the blocks go below straight from the list
 * (flush: no walk to cut them off first, the slots keep their chains), as
 * they do when another thread fills the last empty slot first. */
MT_NOINLINE_HOT void MT_SELF(shed)(size_t c, size_t n)
{
    size_t i = 0, k;
    /* clang-format off */
    while (i < MT_SELF(slots) && mt_load_relaxed(&MT_SELF(handoff)[c][i]))
        i++;
    /* clang-format on */
    if (i == MT_SELF(slots)) {
        MT_SELF(flush)(c, n);
        return;
    }
    void *chain = MT_SELF(cut)(c, n, &k);
    if (!chain)
        return;
    size_t *length = MT_SELF(chain_length_word)(c, chain);
    if (length)
        *length = k;
    for (; i < MT_SELF(slots); i++) {
        void *empty = NULL;
        if (!mt_load_relaxed(&MT_SELF(handoff)[c][i]) &&
            atomic_compare_exchange_strong_explicit(&MT_SELF(handoff)[c][i], &empty, chain,
                                                    memory_order_acq_rel, memory_order_relaxed))
            return;
    }
    MT_SELF(free_chain)(chain);
}

/* Hand-off, miss on class c (empty list): the chain of the first full slot,
 * if any. Its first block is returned; the rest, up to the list's room,
 * becomes the list (no writes: the chain is cut once; no walk when its
 * length fits); blocks beyond the room go below. */
MT_INLINE void *MT_SELF(take_handoff)(size_t c)
{
    void *first = NULL;
    /* clang-format off */
    for (size_t i = 0; MT_THREAD_CACHE_HANDOFF && i < MT_SELF(slots) && !first; i++)
        if (mt_load_relaxed(&MT_SELF(handoff)[c][i]))
            first = atomic_exchange_explicit(&MT_SELF(handoff)[c][i], NULL, memory_order_acq_rel);
    /* clang-format on */
    if (!first)
        return NULL;
    void *rest = MT_SELF(next_of)(first), *last = NULL;
    size_t *length = MT_SELF(chain_length_word)(c, first);
    if (length && !MT_SELF(tl).head[c] && *length - 1 <= MT_SELF(tl).room[c]) {
        MT_SELF(tl).head[c] = rest; /* unsigned: a length of 0 fails the test */
        MT_SELF(tl).room[c] -= *length - 1;
        return first;
    }
    size_t k = 0;
    for (void *p = rest; p && k < MT_SELF(tl).room[c]; p = MT_SELF(next_of)(p), k++)
        last = p;
    if (last) {
        void *beyond = MT_SELF(next_of)(last);
        *(void **)last = MT_SELF(tl).head[c];
        MT_SELF(tl).head[c] = rest;
        MT_SELF(tl).room[c] -= k;
        MT_SELF(free_chain)(beyond);
    } else {
        MT_SELF(free_chain)(rest); /* no room at all */
    }
    return first;
}

/* Every slot of class c emptied below (thread exit, purge); how many blocks. */
MT_SLOW size_t MT_SELF(empty_handoff)(size_t c)
{
    size_t n = 0;
    for (size_t i = 0; MT_THREAD_CACHE_HANDOFF && i < MT_SELF(slots); i++)
        if (mt_load_relaxed(&MT_SELF(handoff)[c][i]))
            n += MT_SELF(free_chain)(
                atomic_exchange_explicit(&MT_SELF(handoff)[c][i], NULL, memory_order_acq_rel));
    return n;
}
