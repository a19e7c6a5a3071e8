/* mortise/names/wcet_stat.h — written by tools/layer_names.py from layers/wcet_stat.h; do not edit.
 * layers/wcet_stat.h writes its functions and state under the default instance
 * name wcet_stat; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_wcet_stat
#define MT_NAMES_wcet_stat
#define wcet_stat_alloc MT_SELF(alloc)
#define wcet_stat_attach MT_SELF(attach)
#define wcet_stat_entry MT_SELF(entry)
#define wcet_stat_fork_child MT_SELF(fork_child)
#define wcet_stat_free MT_SELF(free)
#define wcet_stat_measure MT_SELF(measure)
#define wcet_stat_mine MT_SELF(mine)
#define wcet_stat_register_stats MT_SELF(register_stats)
#define wcet_stat_report MT_SELF(report)
#define wcet_stat_resize MT_SELF(resize)
#define wcet_stat_shared MT_SELF(shared)
#define wcet_stat_slot MT_SELF(slot)
#define wcet_stat_slots MT_SELF(slots)
#define wcet_stat_state MT_SELF(state)
#define wcet_stat_thread_exit MT_SELF(thread_exit)
#else
#undef MT_NAMES_wcet_stat
#undef wcet_stat_alloc
#undef wcet_stat_attach
#undef wcet_stat_entry
#undef wcet_stat_fork_child
#undef wcet_stat_free
#undef wcet_stat_measure
#undef wcet_stat_mine
#undef wcet_stat_register_stats
#undef wcet_stat_report
#undef wcet_stat_resize
#undef wcet_stat_shared
#undef wcet_stat_slot
#undef wcet_stat_slots
#undef wcet_stat_state
#undef wcet_stat_thread_exit
#endif
