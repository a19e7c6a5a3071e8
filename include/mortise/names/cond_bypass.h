/* mortise/names/cond_bypass.h — written by tools/layer_names.py from layers/cond_bypass.h; do not edit.
 * layers/cond_bypass.h writes its functions and state under the default instance
 * name cond_bypass; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_cond_bypass
#define MT_NAMES_cond_bypass
#define cond_bypass_alloc MT_SELF(alloc)
#else
#undef MT_NAMES_cond_bypass
#undef cond_bypass_alloc
#endif
