/* mortise/names/slab_wf.h — written by tools/layer_names.py from layers/slab_wf.h; do not edit.
 * layers/slab_wf.h writes its functions and state under the default instance
 * name slab_wf; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_slab_wf
#define MT_NAMES_slab_wf
#define slab_wf_acquire MT_SELF(acquire)
#define slab_wf_adopt MT_SELF(adopt)
#define slab_wf_aligned_class MT_SELF(aligned_class)
#define slab_wf_aligned_lg_max MT_SELF(aligned_lg_max)
#define slab_wf_aligned_lg_min MT_SELF(aligned_lg_min)
#define slab_wf_alloc MT_SELF(alloc)
#define slab_wf_alloc_slow MT_SELF(alloc_slow)
#define slab_wf_bins MT_SELF(bins)
#define slab_wf_bound_alloc MT_SELF(bound_alloc)
#define slab_wf_bound_free_local MT_SELF(bound_free_local)
#define slab_wf_bound_free_remote MT_SELF(bound_free_remote)
#define slab_wf_bound_refill MT_SELF(bound_refill)
#define slab_wf_cap MT_SELF(cap)
#define slab_wf_caps MT_SELF(caps)
#define slab_wf_carve MT_SELF(carve)
#define slab_wf_carve_batch MT_SELF(carve_batch)
#define slab_wf_check MT_SELF(check)
#define slab_wf_check_heap MT_SELF(check_heap)
#define slab_wf_check_heaps MT_SELF(check_heaps)
#define slab_wf_check_list MT_SELF(check_list)
#define slab_wf_check_slab MT_SELF(check_slab)
#define slab_wf_class_alloc MT_SELF(class_alloc)
#define slab_wf_class_index MT_SELF(class_index)
#define slab_wf_class_next MT_SELF(class_next)
#define slab_wf_class_of MT_SELF(class_of)
#define slab_wf_class_served MT_SELF(class_served)
#define slab_wf_class_size MT_SELF(class_size)
#define slab_wf_classes MT_SELF(classes)
#define slab_wf_collect MT_SELF(collect)
#define slab_wf_covers MT_SELF(covers)
#define slab_wf_create MT_SELF(create)
#define slab_wf_csize MT_SELF(csize)
#define slab_wf_cut_blocks MT_SELF(cut_blocks)
#define slab_wf_cut_slabs MT_SELF(cut_slabs)
#define slab_wf_demote MT_SELF(demote)
#define slab_wf_disown MT_SELF(disown)
#define slab_wf_empty_put MT_SELF(empty_put)
#define slab_wf_empty_take MT_SELF(empty_take)
#define slab_wf_end MT_SELF(end)
#define slab_wf_exit_slow MT_SELF(exit_slow)
#define slab_wf_first MT_SELF(first)
#define slab_wf_fork_child MT_SELF(fork_child)
#define slab_wf_fork_repair MT_SELF(fork_repair)
#define slab_wf_format MT_SELF(format)
#define slab_wf_free MT_SELF(free)
#define slab_wf_free_slow MT_SELF(free_slow)
#define slab_wf_getmeta MT_SELF(getmeta)
#define slab_wf_heap MT_SELF(heap)
#define slab_wf_id MT_SELF(id)
#define slab_wf_link_broken MT_SELF(link_broken)
#define slab_wf_link_far MT_SELF(link_far)
#define slab_wf_link_near MT_SELF(link_near)
#define slab_wf_load MT_SELF(load)
#define slab_wf_make_current MT_SELF(make_current)
#define slab_wf_new_slab MT_SELF(new_slab)
#define slab_wf_next_of MT_SELF(next_of)
#define slab_wf_notified MT_SELF(notified)
#define slab_wf_partial_add MT_SELF(partial_add)
#define slab_wf_partial_remove MT_SELF(partial_remove)
#define slab_wf_pop MT_SELF(pop)
#define slab_wf_pow2_class MT_SELF(pow2_class)
#define slab_wf_purge MT_SELF(purge)
#define slab_wf_purge_all MT_SELF(purge_all)
#define slab_wf_reclaim MT_SELF(reclaim)
#define slab_wf_refill MT_SELF(refill)
#define slab_wf_releasable MT_SELF(releasable)
#define slab_wf_release MT_SELF(release)
#define slab_wf_release_if_empty MT_SELF(release_if_empty)
#define slab_wf_remote_free MT_SELF(remote_free)
#define slab_wf_resize MT_SELF(resize)
#define slab_wf_resolve MT_SELF(resolve)
#define slab_wf_retire MT_SELF(retire)
#define slab_wf_save MT_SELF(save)
#define slab_wf_serve MT_SELF(serve)
#define slab_wf_settle MT_SELF(settle)
#define slab_wf_share MT_SELF(share)
#define slab_wf_slab_len MT_SELF(slab_len)
#define slab_wf_splice MT_SELF(splice)
#define slab_wf_start MT_SELF(start)
#define slab_wf_stat MT_SELF(stat)
#define slab_wf_state MT_SELF(state)
#define slab_wf_step MT_SELF(step)
#define slab_wf_step_begin MT_SELF(step_begin)
#define slab_wf_step_below MT_SELF(step_below)
#define slab_wf_step_end MT_SELF(step_end)
#define slab_wf_step_record MT_SELF(step_record)
#define slab_wf_steps MT_SELF(steps)
#define slab_wf_steps_max MT_SELF(steps_max)
#define slab_wf_szcls_key MT_SELF(szcls_key)
#define slab_wf_take_own MT_SELF(take_own)
#define slab_wf_takes MT_SELF(takes)
#define slab_wf_thread_exit MT_SELF(thread_exit)
#define slab_wf_tidy MT_SELF(tidy)
#define slab_wf_tl MT_SELF(tl)
#define slab_wf_top MT_SELF(top)
#define slab_wf_usable_aligned MT_SELF(usable_aligned)
#else
#undef MT_NAMES_slab_wf
#undef slab_wf_acquire
#undef slab_wf_adopt
#undef slab_wf_aligned_class
#undef slab_wf_aligned_lg_max
#undef slab_wf_aligned_lg_min
#undef slab_wf_alloc
#undef slab_wf_alloc_slow
#undef slab_wf_bins
#undef slab_wf_bound_alloc
#undef slab_wf_bound_free_local
#undef slab_wf_bound_free_remote
#undef slab_wf_bound_refill
#undef slab_wf_cap
#undef slab_wf_caps
#undef slab_wf_carve
#undef slab_wf_carve_batch
#undef slab_wf_check
#undef slab_wf_check_heap
#undef slab_wf_check_heaps
#undef slab_wf_check_list
#undef slab_wf_check_slab
#undef slab_wf_class_alloc
#undef slab_wf_class_index
#undef slab_wf_class_next
#undef slab_wf_class_of
#undef slab_wf_class_served
#undef slab_wf_class_size
#undef slab_wf_classes
#undef slab_wf_collect
#undef slab_wf_covers
#undef slab_wf_create
#undef slab_wf_csize
#undef slab_wf_cut_blocks
#undef slab_wf_cut_slabs
#undef slab_wf_demote
#undef slab_wf_disown
#undef slab_wf_empty_put
#undef slab_wf_empty_take
#undef slab_wf_end
#undef slab_wf_exit_slow
#undef slab_wf_first
#undef slab_wf_fork_child
#undef slab_wf_fork_repair
#undef slab_wf_format
#undef slab_wf_free
#undef slab_wf_free_slow
#undef slab_wf_getmeta
#undef slab_wf_heap
#undef slab_wf_id
#undef slab_wf_link_broken
#undef slab_wf_link_far
#undef slab_wf_link_near
#undef slab_wf_load
#undef slab_wf_make_current
#undef slab_wf_new_slab
#undef slab_wf_next_of
#undef slab_wf_notified
#undef slab_wf_partial_add
#undef slab_wf_partial_remove
#undef slab_wf_pop
#undef slab_wf_pow2_class
#undef slab_wf_purge
#undef slab_wf_purge_all
#undef slab_wf_reclaim
#undef slab_wf_refill
#undef slab_wf_releasable
#undef slab_wf_release
#undef slab_wf_release_if_empty
#undef slab_wf_remote_free
#undef slab_wf_resize
#undef slab_wf_resolve
#undef slab_wf_retire
#undef slab_wf_save
#undef slab_wf_serve
#undef slab_wf_settle
#undef slab_wf_share
#undef slab_wf_slab_len
#undef slab_wf_splice
#undef slab_wf_start
#undef slab_wf_stat
#undef slab_wf_state
#undef slab_wf_step
#undef slab_wf_step_begin
#undef slab_wf_step_below
#undef slab_wf_step_end
#undef slab_wf_step_record
#undef slab_wf_steps
#undef slab_wf_steps_max
#undef slab_wf_szcls_key
#undef slab_wf_take_own
#undef slab_wf_takes
#undef slab_wf_thread_exit
#undef slab_wf_tidy
#undef slab_wf_tl
#undef slab_wf_top
#undef slab_wf_usable_aligned
#endif
