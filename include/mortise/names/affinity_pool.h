/* mortise/names/affinity_pool.h — written by tools/layer_names.py from layers/affinity_pool.h; do not edit.
 * layers/affinity_pool.h writes its functions and state under the default instance
 * name affinity_pool; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_affinity_pool
#define MT_NAMES_affinity_pool
#define affinity_pool_abandon_all MT_SELF(abandon_all)
#define affinity_pool_addr_find MT_SELF(addr_find)
#define affinity_pool_addr_insert MT_SELF(addr_insert)
#define affinity_pool_adopt MT_SELF(adopt)
#define affinity_pool_alloc MT_SELF(alloc)
#define affinity_pool_alloc_below MT_SELF(alloc_below)
#define affinity_pool_alloc_other MT_SELF(alloc_other)
#define affinity_pool_alloc_slow MT_SELF(alloc_slow)
#define affinity_pool_alloc_walk MT_SELF(alloc_walk)
#define affinity_pool_begin MT_SELF(begin)
#define affinity_pool_busy MT_SELF(busy)
#define affinity_pool_chain_group MT_SELF(chain_group)
#define affinity_pool_check_pool MT_SELF(check_pool)
#define affinity_pool_check_seg MT_SELF(check_seg)
#define affinity_pool_collect MT_SELF(collect)
#define affinity_pool_create MT_SELF(create)
#define affinity_pool_cur_of MT_SELF(cur_of)
#define affinity_pool_decide MT_SELF(decide)
#define affinity_pool_direct_site MT_SELF(direct_site)
#define affinity_pool_edge_held MT_SELF(edge_held)
#define affinity_pool_entry MT_SELF(entry)
#define affinity_pool_entry_slot MT_SELF(entry_slot)
#define affinity_pool_fast MT_SELF(fast)
#define affinity_pool_find MT_SELF(find)
#define affinity_pool_fork_child MT_SELF(fork_child)
#define affinity_pool_fork_parent MT_SELF(fork_parent)
#define affinity_pool_fork_prepare MT_SELF(fork_prepare)
#define affinity_pool_free MT_SELF(free)
#define affinity_pool_free_note MT_SELF(free_note)
#define affinity_pool_free_other MT_SELF(free_other)
#define affinity_pool_getmeta MT_SELF(getmeta)
#define affinity_pool_group_get MT_SELF(group_get)
#define affinity_pool_id MT_SELF(id)
#define affinity_pool_invariants MT_SELF(invariants)
#define affinity_pool_judge MT_SELF(judge)
#define affinity_pool_learn MT_SELF(learn)
#define affinity_pool_learn_direct MT_SELF(learn_direct)
#define affinity_pool_lock MT_SELF(lock)
#define affinity_pool_lock_all MT_SELF(lock_all)
#define affinity_pool_mark_plain MT_SELF(mark_plain)
#define affinity_pool_mark_pooled MT_SELF(mark_pooled)
#define affinity_pool_me MT_SELF(me)
#define affinity_pool_memo_note MT_SELF(memo_note)
#define affinity_pool_memo_walk MT_SELF(memo_walk)
#define affinity_pool_merge MT_SELF(merge)
#define affinity_pool_merge_affine MT_SELF(merge_affine)
#define affinity_pool_mergeable MT_SELF(mergeable)
#define affinity_pool_merges_of_type MT_SELF(merges_of_type)
#define affinity_pool_name_site MT_SELF(name_site)
#define affinity_pool_none MT_SELF(none)
#define affinity_pool_note_at_empty MT_SELF(note_at_empty)
#define affinity_pool_note_at_first_free MT_SELF(note_at_first_free)
#define affinity_pool_note_never MT_SELF(note_never)
#define affinity_pool_note_size MT_SELF(note_size)
#define affinity_pool_object_ok MT_SELF(object_ok)
#define affinity_pool_out MT_SELF(out)
#define affinity_pool_plain_wrapper MT_SELF(plain_wrapper)
#define affinity_pool_pool_alloc MT_SELF(pool_alloc)
#define affinity_pool_pool_free MT_SELF(pool_free)
#define affinity_pool_pool_id MT_SELF(pool_id)
#define affinity_pool_pool_index MT_SELF(pool_index)
#define affinity_pool_pool_new MT_SELF(pool_new)
#define affinity_pool_pool_of MT_SELF(pool_of)
#define affinity_pool_pool_pop MT_SELF(pool_pop)
#define affinity_pool_pool_refill MT_SELF(pool_refill)
#define affinity_pool_pool_segments MT_SELF(pool_segments)
#define affinity_pool_pool_serve MT_SELF(pool_serve)
#define affinity_pool_pool_usable MT_SELF(pool_usable)
#define affinity_pool_quick_miss MT_SELF(quick_miss)
#define affinity_pool_recount MT_SELF(recount)
#define affinity_pool_reentries MT_SELF(reentries)
#define affinity_pool_register_stats MT_SELF(register_stats)
#define affinity_pool_report MT_SELF(report)
#define affinity_pool_report_chain MT_SELF(report_chain)
#define affinity_pool_reset_locks MT_SELF(reset_locks)
#define affinity_pool_resize MT_SELF(resize)
#define affinity_pool_retire MT_SELF(retire)
#define affinity_pool_ring_push_back MT_SELF(ring_push_back)
#define affinity_pool_ring_remove MT_SELF(ring_remove)
#define affinity_pool_scan MT_SELF(scan)
#define affinity_pool_seg_at MT_SELF(seg_at)
#define affinity_pool_seg_base MT_SELF(seg_base)
#define affinity_pool_seg_index MT_SELF(seg_index)
#define affinity_pool_seg_pool MT_SELF(seg_pool)
#define affinity_pool_segment_give MT_SELF(segment_give)
#define affinity_pool_segment_place MT_SELF(segment_place)
#define affinity_pool_segment_take MT_SELF(segment_take)
#define affinity_pool_segs MT_SELF(segs)
#define affinity_pool_serve MT_SELF(serve)
#define affinity_pool_site_find MT_SELF(site_find)
#define affinity_pool_site_get MT_SELF(site_get)
#define affinity_pool_size_class MT_SELF(size_class)
#define affinity_pool_sizes_varied MT_SELF(sizes_varied)
#define affinity_pool_slots_waste MT_SELF(slots_waste)
#define affinity_pool_span_list MT_SELF(span_list)
#define affinity_pool_span_new MT_SELF(span_new)
#define affinity_pool_span_unlist MT_SELF(span_unlist)
#define affinity_pool_spans_held MT_SELF(spans_held)
#define affinity_pool_start MT_SELF(start)
#define affinity_pool_state MT_SELF(state)
#define affinity_pool_thread_exit MT_SELF(thread_exit)
#define affinity_pool_tl MT_SELF(tl)
#define affinity_pool_tl_new MT_SELF(tl_new)
#define affinity_pool_tl_off MT_SELF(tl_off)
#define affinity_pool_tl_on MT_SELF(tl_on)
#define affinity_pool_trust_frame MT_SELF(trust_frame)
#define affinity_pool_unlock MT_SELF(unlock)
#define affinity_pool_unlock_all MT_SELF(unlock_all)
#define affinity_pool_unwind MT_SELF(unwind)
#define affinity_pool_unwound_enough MT_SELF(unwound_enough)
#define affinity_pool_user_wrappers MT_SELF(user_wrappers)
#define affinity_pool_walk_chain MT_SELF(walk_chain)
#define affinity_pool_walk_off MT_SELF(walk_off)
#define affinity_pool_walks MT_SELF(walks)
#define affinity_pool_wc_below MT_SELF(wc_below)
#define affinity_pool_wc_clear MT_SELF(wc_clear)
#define affinity_pool_wc_fill MT_SELF(wc_fill)
#define affinity_pool_wc_find MT_SELF(wc_find)
#define affinity_pool_wc_holds MT_SELF(wc_holds)
#define affinity_pool_wc_inline_held MT_SELF(wc_inline_held)
#define affinity_pool_wc_left MT_SELF(wc_left)
#define affinity_pool_wc_pop MT_SELF(wc_pop)
#define affinity_pool_word_target MT_SELF(word_target)
#define affinity_pool_wrap MT_SELF(wrap)
#define affinity_pool_wrap_up MT_SELF(wrap_up)
#define affinity_pool_wt MT_SELF(wt)
#define affinity_pool_young_waits MT_SELF(young_waits)
#else
#undef MT_NAMES_affinity_pool
#undef affinity_pool_abandon_all
#undef affinity_pool_addr_find
#undef affinity_pool_addr_insert
#undef affinity_pool_adopt
#undef affinity_pool_alloc
#undef affinity_pool_alloc_below
#undef affinity_pool_alloc_other
#undef affinity_pool_alloc_slow
#undef affinity_pool_alloc_walk
#undef affinity_pool_begin
#undef affinity_pool_busy
#undef affinity_pool_chain_group
#undef affinity_pool_check_pool
#undef affinity_pool_check_seg
#undef affinity_pool_collect
#undef affinity_pool_create
#undef affinity_pool_cur_of
#undef affinity_pool_decide
#undef affinity_pool_direct_site
#undef affinity_pool_edge_held
#undef affinity_pool_entry
#undef affinity_pool_entry_slot
#undef affinity_pool_fast
#undef affinity_pool_find
#undef affinity_pool_fork_child
#undef affinity_pool_fork_parent
#undef affinity_pool_fork_prepare
#undef affinity_pool_free
#undef affinity_pool_free_note
#undef affinity_pool_free_other
#undef affinity_pool_getmeta
#undef affinity_pool_group_get
#undef affinity_pool_id
#undef affinity_pool_invariants
#undef affinity_pool_judge
#undef affinity_pool_learn
#undef affinity_pool_learn_direct
#undef affinity_pool_lock
#undef affinity_pool_lock_all
#undef affinity_pool_mark_plain
#undef affinity_pool_mark_pooled
#undef affinity_pool_me
#undef affinity_pool_memo_note
#undef affinity_pool_memo_walk
#undef affinity_pool_merge
#undef affinity_pool_merge_affine
#undef affinity_pool_mergeable
#undef affinity_pool_merges_of_type
#undef affinity_pool_name_site
#undef affinity_pool_none
#undef affinity_pool_note_at_empty
#undef affinity_pool_note_at_first_free
#undef affinity_pool_note_never
#undef affinity_pool_note_size
#undef affinity_pool_object_ok
#undef affinity_pool_out
#undef affinity_pool_plain_wrapper
#undef affinity_pool_pool_alloc
#undef affinity_pool_pool_free
#undef affinity_pool_pool_id
#undef affinity_pool_pool_index
#undef affinity_pool_pool_new
#undef affinity_pool_pool_of
#undef affinity_pool_pool_pop
#undef affinity_pool_pool_refill
#undef affinity_pool_pool_segments
#undef affinity_pool_pool_serve
#undef affinity_pool_pool_usable
#undef affinity_pool_quick_miss
#undef affinity_pool_recount
#undef affinity_pool_reentries
#undef affinity_pool_register_stats
#undef affinity_pool_report
#undef affinity_pool_report_chain
#undef affinity_pool_reset_locks
#undef affinity_pool_resize
#undef affinity_pool_retire
#undef affinity_pool_ring_push_back
#undef affinity_pool_ring_remove
#undef affinity_pool_scan
#undef affinity_pool_seg_at
#undef affinity_pool_seg_base
#undef affinity_pool_seg_index
#undef affinity_pool_seg_pool
#undef affinity_pool_segment_give
#undef affinity_pool_segment_place
#undef affinity_pool_segment_take
#undef affinity_pool_segs
#undef affinity_pool_serve
#undef affinity_pool_site_find
#undef affinity_pool_site_get
#undef affinity_pool_size_class
#undef affinity_pool_sizes_varied
#undef affinity_pool_slots_waste
#undef affinity_pool_span_list
#undef affinity_pool_span_new
#undef affinity_pool_span_unlist
#undef affinity_pool_spans_held
#undef affinity_pool_start
#undef affinity_pool_state
#undef affinity_pool_thread_exit
#undef affinity_pool_tl
#undef affinity_pool_tl_new
#undef affinity_pool_tl_off
#undef affinity_pool_tl_on
#undef affinity_pool_trust_frame
#undef affinity_pool_unlock
#undef affinity_pool_unlock_all
#undef affinity_pool_unwind
#undef affinity_pool_unwound_enough
#undef affinity_pool_user_wrappers
#undef affinity_pool_walk_chain
#undef affinity_pool_walk_off
#undef affinity_pool_walks
#undef affinity_pool_wc_below
#undef affinity_pool_wc_clear
#undef affinity_pool_wc_fill
#undef affinity_pool_wc_find
#undef affinity_pool_wc_holds
#undef affinity_pool_wc_inline_held
#undef affinity_pool_wc_left
#undef affinity_pool_wc_pop
#undef affinity_pool_word_target
#undef affinity_pool_wrap
#undef affinity_pool_wrap_up
#undef affinity_pool_wt
#undef affinity_pool_young_waits
#endif
