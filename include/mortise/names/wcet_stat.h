/* mortise/names/wcet_stat.h — written by tools/layer_names.py from layers/wcet_stat.h; do not edit.
 * layers/wcet_stat.h writes its functions and state under the default instance
 * name wcet_stat; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_wcet_stat
#define MT_NAMES_wcet_stat
#define wcet_stat_measure MT_SELF(measure)
#define wcet_stat_report MT_SELF(report)
#define wcet_stat_shared MT_SELF(shared)
#define wcet_stat_slot MT_SELF(slot)
#define wcet_stat_state MT_SELF(state)
#else
#undef MT_NAMES_wcet_stat
#undef wcet_stat_measure
#undef wcet_stat_report
#undef wcet_stat_shared
#undef wcet_stat_slot
#undef wcet_stat_state
#endif
