/* mortise/names/fake.h — written by tools/layer_names.py from layers/fake.h; do not edit.
 * layers/fake.h writes its functions and state under the default instance
 * name fake; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_fake
#define MT_NAMES_fake
#else
#undef MT_NAMES_fake
#endif
