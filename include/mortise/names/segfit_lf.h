/* mortise/names/segfit_lf.h — written by tools/layer_names.py from layers/segfit_lf.h; do not edit.
 * layers/segfit_lf.h writes its functions and state under the default instance
 * name segfit_lf; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_segfit_lf
#define MT_NAMES_segfit_lf
#define segfit_lf_alloc MT_SELF(alloc)
#define segfit_lf_carve MT_SELF(carve)
#define segfit_lf_check MT_SELF(check)
#define segfit_lf_class MT_SELF(class)
#define segfit_lf_class_for MT_SELF(class_for)
#define segfit_lf_class_index MT_SELF(class_index)
#define segfit_lf_class_meta MT_SELF(class_meta)
#define segfit_lf_class_size MT_SELF(class_size)
#define segfit_lf_classes_used MT_SELF(classes_used)
#define segfit_lf_enter MT_SELF(enter)
#define segfit_lf_fork_child MT_SELF(fork_child)
#define segfit_lf_fork_parent MT_SELF(fork_parent)
#define segfit_lf_fork_prepare MT_SELF(fork_prepare)
#define segfit_lf_free MT_SELF(free)
#define segfit_lf_free_large MT_SELF(free_large)
#define segfit_lf_getmeta MT_SELF(getmeta)
#define segfit_lf_id MT_SELF(id)
#define segfit_lf_join MT_SELF(join)
#define segfit_lf_leave MT_SELF(leave)
#define segfit_lf_link_broken MT_SELF(link_broken)
#define segfit_lf_link_cut MT_SELF(link_cut)
#define segfit_lf_max_block MT_SELF(max_block)
#define segfit_lf_me MT_SELF(me)
#define segfit_lf_pop MT_SELF(pop)
#define segfit_lf_purge MT_SELF(purge)
#define segfit_lf_purge_class MT_SELF(purge_class)
#define segfit_lf_push_chain MT_SELF(push_chain)
#define segfit_lf_quiesce MT_SELF(quiesce)
#define segfit_lf_refill MT_SELF(refill)
#define segfit_lf_resize MT_SELF(resize)
#define segfit_lf_restore_span MT_SELF(restore_span)
#define segfit_lf_span_of MT_SELF(span_of)
#define segfit_lf_state MT_SELF(state)
#define segfit_lf_szcls_key MT_SELF(szcls_key)
#define segfit_lf_thread_exit MT_SELF(thread_exit)
#define segfit_lf_walk MT_SELF(walk)
#else
#undef MT_NAMES_segfit_lf
#undef segfit_lf_alloc
#undef segfit_lf_carve
#undef segfit_lf_check
#undef segfit_lf_class
#undef segfit_lf_class_for
#undef segfit_lf_class_index
#undef segfit_lf_class_meta
#undef segfit_lf_class_size
#undef segfit_lf_classes_used
#undef segfit_lf_enter
#undef segfit_lf_fork_child
#undef segfit_lf_fork_parent
#undef segfit_lf_fork_prepare
#undef segfit_lf_free
#undef segfit_lf_free_large
#undef segfit_lf_getmeta
#undef segfit_lf_id
#undef segfit_lf_join
#undef segfit_lf_leave
#undef segfit_lf_link_broken
#undef segfit_lf_link_cut
#undef segfit_lf_max_block
#undef segfit_lf_me
#undef segfit_lf_pop
#undef segfit_lf_purge
#undef segfit_lf_purge_class
#undef segfit_lf_push_chain
#undef segfit_lf_quiesce
#undef segfit_lf_refill
#undef segfit_lf_resize
#undef segfit_lf_restore_span
#undef segfit_lf_span_of
#undef segfit_lf_state
#undef segfit_lf_szcls_key
#undef segfit_lf_thread_exit
#undef segfit_lf_walk
#endif
