/* mortise/names/thread_cache.h — written by tools/layer_names.py from layers/thread_cache.h; do not edit.
 * layers/thread_cache.h writes its functions and state under the default instance
 * name thread_cache; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_thread_cache
#define MT_NAMES_thread_cache
#define thread_cache_aligned_class MT_SELF(aligned_class)
#define thread_cache_alloc MT_SELF(alloc)
#define thread_cache_alloc_aligned MT_SELF(alloc_aligned)
#define thread_cache_alloc_aligned_hit MT_SELF(alloc_aligned_hit)
#define thread_cache_alloc_slow MT_SELF(alloc_slow)
#define thread_cache_bins MT_SELF(bins)
#define thread_cache_bound MT_SELF(bound)
#define thread_cache_budget MT_SELF(budget)
#define thread_cache_cached_in MT_SELF(cached_in)
#define thread_cache_cap MT_SELF(cap)
#define thread_cache_capacity MT_SELF(capacity)
#define thread_cache_caps MT_SELF(caps)
#define thread_cache_chain_length_word MT_SELF(chain_length_word)
#define thread_cache_check_bin MT_SELF(check_bin)
#define thread_cache_check_magazine MT_SELF(check_magazine)
#define thread_cache_class_index MT_SELF(class_index)
#define thread_cache_class_of MT_SELF(class_of)
#define thread_cache_class_size MT_SELF(class_size)
#define thread_cache_core_event MT_SELF(core_event)
#define thread_cache_covers MT_SELF(covers)
#define thread_cache_create MT_SELF(create)
#define thread_cache_cut MT_SELF(cut)
#define thread_cache_empty_handoff MT_SELF(empty_handoff)
#define thread_cache_end MT_SELF(end)
#define thread_cache_first MT_SELF(first)
#define thread_cache_flush MT_SELF(flush)
#define thread_cache_flush_all MT_SELF(flush_all)
#define thread_cache_free MT_SELF(free)
#define thread_cache_free_chain MT_SELF(free_chain)
#define thread_cache_free_run MT_SELF(free_run)
#define thread_cache_free_slow MT_SELF(free_slow)
#define thread_cache_handoff MT_SELF(handoff)
#define thread_cache_invariants MT_SELF(invariants)
#define thread_cache_link_broken MT_SELF(link_broken)
#define thread_cache_link_cut MT_SELF(link_cut)
#define thread_cache_next_of MT_SELF(next_of)
#define thread_cache_purge MT_SELF(purge)
#define thread_cache_ready MT_SELF(ready)
#define thread_cache_refit MT_SELF(refit)
#define thread_cache_share MT_SELF(share)
#define thread_cache_shed MT_SELF(shed)
#define thread_cache_slots MT_SELF(slots)
#define thread_cache_start MT_SELF(start)
#define thread_cache_stop MT_SELF(stop)
#define thread_cache_szcls_key MT_SELF(szcls_key)
#define thread_cache_take_handoff MT_SELF(take_handoff)
#define thread_cache_takes MT_SELF(takes)
#define thread_cache_thread_exit MT_SELF(thread_exit)
#define thread_cache_tl MT_SELF(tl)
#define thread_cache_top MT_SELF(top)
#else
#undef MT_NAMES_thread_cache
#undef thread_cache_aligned_class
#undef thread_cache_alloc
#undef thread_cache_alloc_aligned
#undef thread_cache_alloc_aligned_hit
#undef thread_cache_alloc_slow
#undef thread_cache_bins
#undef thread_cache_bound
#undef thread_cache_budget
#undef thread_cache_cached_in
#undef thread_cache_cap
#undef thread_cache_capacity
#undef thread_cache_caps
#undef thread_cache_chain_length_word
#undef thread_cache_check_bin
#undef thread_cache_check_magazine
#undef thread_cache_class_index
#undef thread_cache_class_of
#undef thread_cache_class_size
#undef thread_cache_core_event
#undef thread_cache_covers
#undef thread_cache_create
#undef thread_cache_cut
#undef thread_cache_empty_handoff
#undef thread_cache_end
#undef thread_cache_first
#undef thread_cache_flush
#undef thread_cache_flush_all
#undef thread_cache_free
#undef thread_cache_free_chain
#undef thread_cache_free_run
#undef thread_cache_free_slow
#undef thread_cache_handoff
#undef thread_cache_invariants
#undef thread_cache_link_broken
#undef thread_cache_link_cut
#undef thread_cache_next_of
#undef thread_cache_purge
#undef thread_cache_ready
#undef thread_cache_refit
#undef thread_cache_share
#undef thread_cache_shed
#undef thread_cache_slots
#undef thread_cache_start
#undef thread_cache_stop
#undef thread_cache_szcls_key
#undef thread_cache_take_handoff
#undef thread_cache_takes
#undef thread_cache_thread_exit
#undef thread_cache_tl
#undef thread_cache_top
#endif
