/* mortise/names/count.h — written by tools/layer_names.py from layers/count.h; do not edit.
 * layers/count.h writes its functions and state under the default instance
 * name count; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_count
#define MT_NAMES_count
#define count_alloc MT_SELF(alloc)
#define count_bucket MT_SELF(bucket)
#define count_counters MT_SELF(counters)
#define count_free MT_SELF(free)
#define count_resize MT_SELF(resize)
#define count_tally MT_SELF(tally)
#define count_total MT_SELF(total)
#define count_usable MT_SELF(usable)
#else
#undef MT_NAMES_count
#undef count_alloc
#undef count_bucket
#undef count_counters
#undef count_free
#undef count_resize
#undef count_tally
#undef count_total
#undef count_usable
#endif
