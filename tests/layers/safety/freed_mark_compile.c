/* Compiled by CMake, not run. tail_chksum's freed_mark trusts a mark in a
 * block's head only if every layer below clears the head of a block it
 * carves anew (MT_TRAIT_FRESH_HEADS): with NO_TRAIT the trunk is tlsf_glk,
 * which does not, and MT_COMPOSE must refuse the chain naming it; with
 * NO_HEAD freed_mark comes without head_canary and must not compile. The
 * control (slab_wf over mmap_heap, both slots) must compile. */
#include <mortise/mortise.h>

#if defined(NO_TRAIT)
#include <mortise/os/brk_heap.h>
#define MT_SYNC spinlock
#include <mortise/layers/tlsf_glk.h>
#define LOWER brk_heap, tlsf_glk
#else
#include <mortise/os/mmap_heap.h>
#define MT_SIZECLASS prime
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_wf.h>
#define LOWER mmap_heap, slab_wf
#endif

#if !defined(NO_HEAD)
#define MT_HEAD_CANARY 1
#endif
#define MT_FREED_MARK 1
#include <mortise/layers/tail_chksum.h>

#define MT_PREFIX z_
#include <mortise/sockets/custom_socket.h>

#define COMPOSE(...) MT_COMPOSE(__VA_ARGS__)
COMPOSE(LOWER, tail_chksum, custom_socket)
