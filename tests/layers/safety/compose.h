/* tests/layers/safety/compose.h — the test compositions: an OS layer, one trunk
 * (segfit_lk by default; SAFETY_TRUNK_SLAB_WF, SAFETY_TRUNK_TLSF, or the
 * trunks of wfslab (SAFETY_TRUNK_WFSLAB) and hslab (SAFETY_TRUNK_HSLAB)),
 * the safety layers the test asks for (SAFETY_TAIL, SAFETY_DELAYED, with
 * their slots from SAFETY_CHKSUM, SAFETY_ERR, SAFETY_NODE_XOR,
 * SAFETY_HEAD_CANARY, SAFETY_FREED_MARK), and custom_socket(prefix=t_). */
#include <mortise/mortise.h>

#ifndef SAFETY_CHKSUM
#define SAFETY_CHKSUM xor
#endif
#ifndef SAFETY_ERR
#define SAFETY_ERR callback
#endif
#ifndef SAFETY_NODE_XOR
#define SAFETY_NODE_XOR 1
#endif

#if defined(SAFETY_TRUNK_TLSF)
#include <mortise/os/brk_heap.h>
#define MT_SYNC spinlock
#include <mortise/layers/tlsf_glk.h>
#define SAFETY_BELOW brk_heap, tlsf_glk
#elif defined(SAFETY_TRUNK_SLAB_WF)
#include <mortise/os/mmap_heap.h>
#define MT_SIZECLASS prime
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_wf.h>
#define SAFETY_BELOW mmap_heap, slab_wf
#elif defined(SAFETY_TRUNK_WFSLAB)
#include <mortise/os/mmap_heap.h>
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 65536, SIZE_MAX
#include <mortise/layers/segfit_lf.h>
#define MT_SIZECLASS prime
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_wf.h>
#define SAFETY_BELOW mmap_heap, segfit_lf, slab_wf
#elif defined(SAFETY_TRUNK_HSLAB)
#include <mortise/os/mmap_heap.h>
#define MT_SYNC spinlock
#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 32768, SIZE_MAX
#include <mortise/layers/buddy_glk.h>
#define MT_SYNC spinlock
#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/slab_lk.h>
#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/thread_cache.h>
#define SAFETY_BELOW mmap_heap, buddy_glk, slab_lk, thread_cache
#else
#include <mortise/os/mmap_heap.h>
#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>
#define SAFETY_BELOW mmap_heap, segfit_lk
#endif

#if defined(SAFETY_DELAYED)
#define MT_CHKSUM SAFETY_CHKSUM
#define MT_ERR_HANDLE SAFETY_ERR
#define MT_NODE_XOR SAFETY_NODE_XOR
#define MT_DELAYED_SIZE ((size_t)64 << 10)
#include <mortise/layers/delayed_free.h>
#endif
#if defined(SAFETY_TAIL)
#define MT_CHKSUM SAFETY_CHKSUM
#define MT_ERR_HANDLE SAFETY_ERR
#if defined(SAFETY_HEAD_CANARY)
#define MT_HEAD_CANARY 1
#endif
#if defined(SAFETY_FREED_MARK)
#define MT_FREED_MARK 1
#endif
#include <mortise/layers/tail_chksum.h>
#endif

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

#define SAFETY_COMPOSE(...) MT_COMPOSE(__VA_ARGS__) /* expands SAFETY_BELOW first */
#if defined(SAFETY_DELAYED) && defined(SAFETY_TAIL)
SAFETY_COMPOSE(SAFETY_BELOW, delayed_free, tail_chksum, custom_socket)
#elif defined(SAFETY_DELAYED)
SAFETY_COMPOSE(SAFETY_BELOW, delayed_free, custom_socket)
#else
SAFETY_COMPOSE(SAFETY_BELOW, tail_chksum, custom_socket)
#endif
