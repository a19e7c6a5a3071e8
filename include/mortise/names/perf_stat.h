/* mortise/names/perf_stat.h — written by tools/layer_names.py from layers/perf_stat.h; do not edit.
 * layers/perf_stat.h writes its functions and state under the default instance
 * name perf_stat; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_perf_stat
#define MT_NAMES_perf_stat
#define perf_stat_alloc MT_SELF(alloc)
#define perf_stat_attach MT_SELF(attach)
#define perf_stat_entry MT_SELF(entry)
#define perf_stat_fork_child MT_SELF(fork_child)
#define perf_stat_free MT_SELF(free)
#define perf_stat_measure MT_SELF(measure)
#define perf_stat_mine MT_SELF(mine)
#define perf_stat_register_stats MT_SELF(register_stats)
#define perf_stat_report MT_SELF(report)
#define perf_stat_resize MT_SELF(resize)
#define perf_stat_shared MT_SELF(shared)
#define perf_stat_slot MT_SELF(slot)
#define perf_stat_slots MT_SELF(slots)
#define perf_stat_state MT_SELF(state)
#define perf_stat_thread_exit MT_SELF(thread_exit)
#else
#undef MT_NAMES_perf_stat
#undef perf_stat_alloc
#undef perf_stat_attach
#undef perf_stat_entry
#undef perf_stat_fork_child
#undef perf_stat_free
#undef perf_stat_measure
#undef perf_stat_mine
#undef perf_stat_register_stats
#undef perf_stat_report
#undef perf_stat_resize
#undef perf_stat_shared
#undef perf_stat_slot
#undef perf_stat_slots
#undef perf_stat_state
#undef perf_stat_thread_exit
#endif
