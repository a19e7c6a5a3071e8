/* mortise/names/perf_stat.h — written by tools/layer_names.py from layers/perf_stat.h; do not edit.
 * layers/perf_stat.h writes its functions and state under the default instance
 * name perf_stat; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_perf_stat
#define MT_NAMES_perf_stat
#define perf_stat_measure MT_SELF(measure)
#define perf_stat_report MT_SELF(report)
#define perf_stat_shared MT_SELF(shared)
#define perf_stat_slot MT_SELF(slot)
#define perf_stat_state MT_SELF(state)
#else
#undef MT_NAMES_perf_stat
#undef perf_stat_measure
#undef perf_stat_report
#undef perf_stat_shared
#undef perf_stat_slot
#undef perf_stat_state
#endif
