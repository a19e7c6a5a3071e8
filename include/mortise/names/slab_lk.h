/* mortise/names/slab_lk.h — written by tools/layer_names.py from layers/slab_lk.h; do not edit.
 * layers/slab_lk.h writes its functions and state under the default instance
 * name slab_lk; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_slab_lk
#define MT_NAMES_slab_lk
#define slab_lk_alloc MT_SELF(alloc)
#define slab_lk_alloc_batch MT_SELF(alloc_batch)
#define slab_lk_alloc_slow MT_SELF(alloc_slow)
#define slab_lk_args MT_SELF(args)
#define slab_lk_batch_args MT_SELF(batch_args)
#define slab_lk_batch_free_args MT_SELF(batch_free_args)
#define slab_lk_check_class_locked MT_SELF(check_class_locked)
#define slab_lk_check_classes MT_SELF(check_classes)
#define slab_lk_check_list MT_SELF(check_list)
#define slab_lk_check_slab MT_SELF(check_slab)
#define slab_lk_class MT_SELF(class)
#define slab_lk_class_for MT_SELF(class_for)
#define slab_lk_class_index MT_SELF(class_index)
#define slab_lk_class_meta MT_SELF(class_meta)
#define slab_lk_class_size MT_SELF(class_size)
#define slab_lk_classes_used MT_SELF(classes_used)
#define slab_lk_cs_alloc MT_SELF(cs_alloc)
#define slab_lk_cs_alloc_batch MT_SELF(cs_alloc_batch)
#define slab_lk_cs_free MT_SELF(cs_free)
#define slab_lk_cs_free_batch MT_SELF(cs_free_batch)
#define slab_lk_cs_install MT_SELF(cs_install)
#define slab_lk_cs_refill MT_SELF(cs_refill)
#define slab_lk_cs_take MT_SELF(cs_take)
#define slab_lk_cs_take_empty MT_SELF(cs_take_empty)
#define slab_lk_cs_take_locked MT_SELF(cs_take_locked)
#define slab_lk_emptied MT_SELF(emptied)
#define slab_lk_fork_child MT_SELF(fork_child)
#define slab_lk_fork_parent MT_SELF(fork_parent)
#define slab_lk_fork_prepare MT_SELF(fork_prepare)
#define slab_lk_free MT_SELF(free)
#define slab_lk_free_batch MT_SELF(free_batch)
#define slab_lk_getmeta MT_SELF(getmeta)
#define slab_lk_id MT_SELF(id)
#define slab_lk_invariants MT_SELF(invariants)
#define slab_lk_is_block MT_SELF(is_block)
#define slab_lk_layout MT_SELF(layout)
#define slab_lk_link_broken MT_SELF(link_broken)
#define slab_lk_link_cut MT_SELF(link_cut)
#define slab_lk_lock_classes MT_SELF(lock_classes)
#define slab_lk_max_block MT_SELF(max_block)
#define slab_lk_new_slab MT_SELF(new_slab)
#define slab_lk_next_of MT_SELF(next_of)
#define slab_lk_purge MT_SELF(purge)
#define slab_lk_push MT_SELF(push)
#define slab_lk_record MT_SELF(record)
#define slab_lk_release MT_SELF(release)
#define slab_lk_reserve MT_SELF(reserve)
#define slab_lk_reset_classes MT_SELF(reset_classes)
#define slab_lk_resize MT_SELF(resize)
#define slab_lk_slab MT_SELF(slab)
#define slab_lk_slab_len MT_SELF(slab_len)
#define slab_lk_state MT_SELF(state)
#define slab_lk_szcls_key MT_SELF(szcls_key)
#define slab_lk_to_full MT_SELF(to_full)
#define slab_lk_unlink MT_SELF(unlink)
#define slab_lk_unlock_classes MT_SELF(unlock_classes)
#else
#undef MT_NAMES_slab_lk
#undef slab_lk_alloc
#undef slab_lk_alloc_batch
#undef slab_lk_alloc_slow
#undef slab_lk_args
#undef slab_lk_batch_args
#undef slab_lk_batch_free_args
#undef slab_lk_check_class_locked
#undef slab_lk_check_classes
#undef slab_lk_check_list
#undef slab_lk_check_slab
#undef slab_lk_class
#undef slab_lk_class_for
#undef slab_lk_class_index
#undef slab_lk_class_meta
#undef slab_lk_class_size
#undef slab_lk_classes_used
#undef slab_lk_cs_alloc
#undef slab_lk_cs_alloc_batch
#undef slab_lk_cs_free
#undef slab_lk_cs_free_batch
#undef slab_lk_cs_install
#undef slab_lk_cs_refill
#undef slab_lk_cs_take
#undef slab_lk_cs_take_empty
#undef slab_lk_cs_take_locked
#undef slab_lk_emptied
#undef slab_lk_fork_child
#undef slab_lk_fork_parent
#undef slab_lk_fork_prepare
#undef slab_lk_free
#undef slab_lk_free_batch
#undef slab_lk_getmeta
#undef slab_lk_id
#undef slab_lk_invariants
#undef slab_lk_is_block
#undef slab_lk_layout
#undef slab_lk_link_broken
#undef slab_lk_link_cut
#undef slab_lk_lock_classes
#undef slab_lk_max_block
#undef slab_lk_new_slab
#undef slab_lk_next_of
#undef slab_lk_purge
#undef slab_lk_push
#undef slab_lk_record
#undef slab_lk_release
#undef slab_lk_reserve
#undef slab_lk_reset_classes
#undef slab_lk_resize
#undef slab_lk_slab
#undef slab_lk_slab_len
#undef slab_lk_state
#undef slab_lk_szcls_key
#undef slab_lk_to_full
#undef slab_lk_unlink
#undef slab_lk_unlock_classes
#endif
