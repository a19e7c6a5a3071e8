/* mortise/names/aligned.h — written by tools/layer_names.py from layers/aligned.h; do not edit.
 * layers/aligned.h writes its functions and state under the default instance
 * name aligned; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_aligned
#define MT_NAMES_aligned
#define aligned_alloc MT_SELF(alloc)
#else
#undef MT_NAMES_aligned
#undef aligned_alloc
#endif
