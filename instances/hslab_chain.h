/* instances/hslab_chain.h — the chain hslab, hslab_base, hslabva and
 * affinity share above their OS layer: a global buddy system for blocks of
 * 64 KiB and more, slabs per tcmalloc size class below, and a 2 MiB
 * per-thread cache in front that keeps at least 4 blocks of every class
 * (affinity adds its pools above it). The
 * composition file includes it after its OS layer, having defined
 *   HSLAB_BUDDY_SYNC  the buddy system's lock (buddy_glk's sync)
 *   HSLAB_SLAB_SYNC   the slabs' lock (slab_lk's sync)
 *   HSLAB_COREAWARE   1: the cache's budget follows the cache of the core
 *                     the thread runs on (coreaware_cachesize=1); 0: fixed
 * and keeps its whole model line (the `mortise` command reads the .c files). */
#define MT_SYNC HSLAB_BUDDY_SYNC
#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 65536, SIZE_MAX
#include <mortise/layers/buddy_glk.h>

#define MT_SYNC HSLAB_SLAB_SYNC
#define MT_SLAB_SIZE ((size_t)64 << 10)
#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_lk.h>

#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 0, 65536
#define MT_CACHE_SIZE ((size_t)2 << 20)
#define MT_CACHE_MIN_BLOCKS 4
#if HSLAB_COREAWARE
#define MT_COREAWARE_CACHESIZE 1
#endif
#include <mortise/layers/thread_cache.h>

#undef HSLAB_BUDDY_SYNC
#undef HSLAB_SLAB_SYNC
#undef HSLAB_COREAWARE
