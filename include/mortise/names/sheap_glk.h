/* mortise/names/sheap_glk.h — written by tools/layer_names.py from os/sheap_glk.h; do not edit.
 * os/sheap_glk.h writes its functions and state under the default instance
 * name sheap_glk; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_sheap_glk
#define MT_NAMES_sheap_glk
#define sheap_glk_extend MT_SELF(extend)
#define sheap_glk_id MT_SELF(id)
#define sheap_glk_lock MT_SELF(lock)
#define sheap_glk_map MT_SELF(map)
#define sheap_glk_obtain MT_SELF(obtain)
#define sheap_glk_pool MT_SELF(pool)
#define sheap_glk_pool_base MT_SELF(pool_base)
#define sheap_glk_pool_granules MT_SELF(pool_granules)
#define sheap_glk_release MT_SELF(release)
#define sheap_glk_start MT_SELF(start)
#define sheap_glk_state MT_SELF(state)
#define sheap_glk_unlock MT_SELF(unlock)
#else
#undef MT_NAMES_sheap_glk
#undef sheap_glk_extend
#undef sheap_glk_id
#undef sheap_glk_lock
#undef sheap_glk_map
#undef sheap_glk_obtain
#undef sheap_glk_pool
#undef sheap_glk_pool_base
#undef sheap_glk_pool_granules
#undef sheap_glk_release
#undef sheap_glk_start
#undef sheap_glk_state
#undef sheap_glk_unlock
#endif
