/* mortise/names/segfit_lk.h — written by tools/layer_names.py from layers/segfit_lk.h; do not edit.
 * layers/segfit_lk.h writes its functions and state under the default instance
 * name segfit_lk; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_segfit_lk
#define MT_NAMES_segfit_lk
#define segfit_lk_alloc MT_SELF(alloc)
#define segfit_lk_bump MT_SELF(bump)
#define segfit_lk_check_class_locked MT_SELF(check_class_locked)
#define segfit_lk_check_classes MT_SELF(check_classes)
#define segfit_lk_class MT_SELF(class)
#define segfit_lk_class_for MT_SELF(class_for)
#define segfit_lk_class_index MT_SELF(class_index)
#define segfit_lk_class_meta MT_SELF(class_meta)
#define segfit_lk_class_size MT_SELF(class_size)
#define segfit_lk_classes_used MT_SELF(classes_used)
#define segfit_lk_drop_record MT_SELF(drop_record)
#define segfit_lk_fork_child MT_SELF(fork_child)
#define segfit_lk_fork_parent MT_SELF(fork_parent)
#define segfit_lk_fork_prepare MT_SELF(fork_prepare)
#define segfit_lk_free MT_SELF(free)
#define segfit_lk_getmeta MT_SELF(getmeta)
#define segfit_lk_id MT_SELF(id)
#define segfit_lk_invariants MT_SELF(invariants)
#define segfit_lk_link_broken MT_SELF(link_broken)
#define segfit_lk_link_cut MT_SELF(link_cut)
#define segfit_lk_lock_classes MT_SELF(lock_classes)
#define segfit_lk_max_block MT_SELF(max_block)
#define segfit_lk_new_record MT_SELF(new_record)
#define segfit_lk_next_of MT_SELF(next_of)
#define segfit_lk_purge MT_SELF(purge)
#define segfit_lk_purge_class MT_SELF(purge_class)
#define segfit_lk_reset_classes MT_SELF(reset_classes)
#define segfit_lk_resize MT_SELF(resize)
#define segfit_lk_span MT_SELF(span)
#define segfit_lk_span_of MT_SELF(span_of)
#define segfit_lk_state MT_SELF(state)
#define segfit_lk_szcls_key MT_SELF(szcls_key)
#define segfit_lk_unlock_classes MT_SELF(unlock_classes)
#else
#undef MT_NAMES_segfit_lk
#undef segfit_lk_alloc
#undef segfit_lk_bump
#undef segfit_lk_check_class_locked
#undef segfit_lk_check_classes
#undef segfit_lk_class
#undef segfit_lk_class_for
#undef segfit_lk_class_index
#undef segfit_lk_class_meta
#undef segfit_lk_class_size
#undef segfit_lk_classes_used
#undef segfit_lk_drop_record
#undef segfit_lk_fork_child
#undef segfit_lk_fork_parent
#undef segfit_lk_fork_prepare
#undef segfit_lk_free
#undef segfit_lk_getmeta
#undef segfit_lk_id
#undef segfit_lk_invariants
#undef segfit_lk_link_broken
#undef segfit_lk_link_cut
#undef segfit_lk_lock_classes
#undef segfit_lk_max_block
#undef segfit_lk_new_record
#undef segfit_lk_next_of
#undef segfit_lk_purge
#undef segfit_lk_purge_class
#undef segfit_lk_reset_classes
#undef segfit_lk_resize
#undef segfit_lk_span
#undef segfit_lk_span_of
#undef segfit_lk_state
#undef segfit_lk_szcls_key
#undef segfit_lk_unlock_classes
#endif
