/* mortise/names/szcls_stat.h — written by tools/layer_names.py from layers/szcls_stat.h; do not edit.
 * layers/szcls_stat.h writes its functions and state under the default instance
 * name szcls_stat; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_szcls_stat
#define MT_NAMES_szcls_stat
#define szcls_stat_alloc MT_SELF(alloc)
#define szcls_stat_attach MT_SELF(attach)
#define szcls_stat_class_of MT_SELF(class_of)
#define szcls_stat_entry MT_SELF(entry)
#define szcls_stat_fork_child MT_SELF(fork_child)
#define szcls_stat_free MT_SELF(free)
#define szcls_stat_mine MT_SELF(mine)
#define szcls_stat_register_stats MT_SELF(register_stats)
#define szcls_stat_report MT_SELF(report)
#define szcls_stat_resize MT_SELF(resize)
#define szcls_stat_shared MT_SELF(shared)
#define szcls_stat_slot MT_SELF(slot)
#define szcls_stat_slot_t MT_SELF(slot_t)
#define szcls_stat_slots MT_SELF(slots)
#define szcls_stat_state MT_SELF(state)
#define szcls_stat_szcls_key MT_SELF(szcls_key)
#define szcls_stat_thread_exit MT_SELF(thread_exit)
#else
#undef MT_NAMES_szcls_stat
#undef szcls_stat_alloc
#undef szcls_stat_attach
#undef szcls_stat_class_of
#undef szcls_stat_entry
#undef szcls_stat_fork_child
#undef szcls_stat_free
#undef szcls_stat_mine
#undef szcls_stat_register_stats
#undef szcls_stat_report
#undef szcls_stat_resize
#undef szcls_stat_shared
#undef szcls_stat_slot
#undef szcls_stat_slot_t
#undef szcls_stat_slots
#undef szcls_stat_state
#undef szcls_stat_szcls_key
#undef szcls_stat_thread_exit
#endif
