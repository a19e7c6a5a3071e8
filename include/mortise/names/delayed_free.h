/* mortise/names/delayed_free.h — written by tools/layer_names.py from layers/delayed_free.h; do not edit.
 * layers/delayed_free.h writes its functions and state under the default instance
 * name delayed_free; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_delayed_free
#define MT_NAMES_delayed_free
#define delayed_free_alloc MT_SELF(alloc)
#define delayed_free_alloc_again MT_SELF(alloc_again)
#define delayed_free_alloc_from MT_SELF(alloc_from)
#define delayed_free_below_ctx MT_SELF(below_ctx)
#define delayed_free_charge MT_SELF(charge)
#define delayed_free_claim_far MT_SELF(claim_far)
#define delayed_free_classify MT_SELF(classify)
#define delayed_free_drain MT_SELF(drain)
#define delayed_free_drop_rest MT_SELF(drop_rest)
#define delayed_free_enqueue MT_SELF(enqueue)
#define delayed_free_enqueue_large MT_SELF(enqueue_large)
#define delayed_free_evict_batch MT_SELF(evict_batch)
#define delayed_free_evict_one MT_SELF(evict_one)
#define delayed_free_fill MT_SELF(fill)
#define delayed_free_fill_head MT_SELF(fill_head)
#define delayed_free_fill_intact MT_SELF(fill_intact)
#define delayed_free_fill_range MT_SELF(fill_range)
#define delayed_free_fill_slack MT_SELF(fill_slack)
#define delayed_free_free MT_SELF(free)
#define delayed_free_free_other MT_SELF(free_other)
#define delayed_free_free_slow MT_SELF(free_slow)
#define delayed_free_full MT_SELF(full)
#define delayed_free_getmeta MT_SELF(getmeta)
#define delayed_free_getmeta_slow MT_SELF(getmeta_slow)
#define delayed_free_header_offset MT_SELF(header_offset)
#define delayed_free_header_readable MT_SELF(header_readable)
#define delayed_free_header_size MT_SELF(header_size)
#define delayed_free_id MT_SELF(id)
#define delayed_free_invariants MT_SELF(invariants)
#define delayed_free_oldest_slot MT_SELF(oldest_slot)
#define delayed_free_prefetch_slot MT_SELF(prefetch_slot)
#define delayed_free_purge MT_SELF(purge)
#define delayed_free_push MT_SELF(push)
#define delayed_free_q MT_SELF(q)
#define delayed_free_quarantine MT_SELF(quarantine)
#define delayed_free_quarantined_blocks MT_SELF(quarantined_blocks)
#define delayed_free_quarantined_bytes MT_SELF(quarantined_bytes)
#define delayed_free_quick_live MT_SELF(quick_live)
#define delayed_free_quick_size MT_SELF(quick_size)
#define delayed_free_quick_word MT_SELF(quick_word)
#define delayed_free_raise MT_SELF(raise)
#define delayed_free_range_intact MT_SELF(range_intact)
#define delayed_free_release MT_SELF(release)
#define delayed_free_release_routed MT_SELF(release_routed)
#define delayed_free_report MT_SELF(report)
#define delayed_free_report_unowned MT_SELF(report_unowned)
#define delayed_free_resize MT_SELF(resize)
#define delayed_free_resize_slow MT_SELF(resize_slow)
#define delayed_free_set_state MT_SELF(set_state)
#define delayed_free_size_mask MT_SELF(size_mask)
#define delayed_free_size_mask_k MT_SELF(size_mask_k)
#define delayed_free_slack_intact MT_SELF(slack_intact)
#define delayed_free_slot_code MT_SELF(slot_code)
#define delayed_free_slot_code_k MT_SELF(slot_code_k)
#define delayed_free_start MT_SELF(start)
#define delayed_free_state_word MT_SELF(state_word)
#define delayed_free_thread_exit MT_SELF(thread_exit)
#define delayed_free_wrap MT_SELF(wrap)
#define delayed_free_write_first_header MT_SELF(write_first_header)
#define delayed_free_write_header MT_SELF(write_header)
#define delayed_free_write_header_k MT_SELF(write_header_k)
#else
#undef MT_NAMES_delayed_free
#undef delayed_free_alloc
#undef delayed_free_alloc_again
#undef delayed_free_alloc_from
#undef delayed_free_below_ctx
#undef delayed_free_charge
#undef delayed_free_claim_far
#undef delayed_free_classify
#undef delayed_free_drain
#undef delayed_free_drop_rest
#undef delayed_free_enqueue
#undef delayed_free_enqueue_large
#undef delayed_free_evict_batch
#undef delayed_free_evict_one
#undef delayed_free_fill
#undef delayed_free_fill_head
#undef delayed_free_fill_intact
#undef delayed_free_fill_range
#undef delayed_free_fill_slack
#undef delayed_free_free
#undef delayed_free_free_other
#undef delayed_free_free_slow
#undef delayed_free_full
#undef delayed_free_getmeta
#undef delayed_free_getmeta_slow
#undef delayed_free_header_offset
#undef delayed_free_header_readable
#undef delayed_free_header_size
#undef delayed_free_id
#undef delayed_free_invariants
#undef delayed_free_oldest_slot
#undef delayed_free_prefetch_slot
#undef delayed_free_purge
#undef delayed_free_push
#undef delayed_free_q
#undef delayed_free_quarantine
#undef delayed_free_quarantined_blocks
#undef delayed_free_quarantined_bytes
#undef delayed_free_quick_live
#undef delayed_free_quick_size
#undef delayed_free_quick_word
#undef delayed_free_raise
#undef delayed_free_range_intact
#undef delayed_free_release
#undef delayed_free_release_routed
#undef delayed_free_report
#undef delayed_free_report_unowned
#undef delayed_free_resize
#undef delayed_free_resize_slow
#undef delayed_free_set_state
#undef delayed_free_size_mask
#undef delayed_free_size_mask_k
#undef delayed_free_slack_intact
#undef delayed_free_slot_code
#undef delayed_free_slot_code_k
#undef delayed_free_start
#undef delayed_free_state_word
#undef delayed_free_thread_exit
#undef delayed_free_wrap
#undef delayed_free_write_first_header
#undef delayed_free_write_header
#undef delayed_free_write_header_k
#endif
