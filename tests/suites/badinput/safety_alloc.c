/* tests/suites/badinput/safety_alloc.c — malloc replacements with safety layers in
 * the err_handle modes the ready safety instances (wfslabs, hslabd,
 * tlsfccsd) do not use, so that the corpus meets every layer in both report
 * and fatal mode. BADINPUT_COMPOSITION picks one:
 *   1 tail_fatal      mmap_heap::slab_wf(sizeclass=prime, size_handle=[0, 65536], link_check=1, err_handle=fatal)
 *                       ::tail_chksum(chksum=magic, err_handle=fatal, head_canary=1, freed_mark=1)::malloc_socket
 *   2 delayed_report  mmap_heap::segfit_lk(sync=spinlock, sizeclass=log2b, size_handle=[0, 262144], link_check=1)
 *                       ::delayed_free(chksum=magic, node_xor=1, delayed_size=64KB,
 *                         err_handle=default)::malloc_socket
 *   3 both_report     brk_heap::tlsf_glk(sync=posix_mutex, link_check=1)
 *                       ::delayed_free(chksum=xor, node_xor=1, delayed_size=64KB, err_handle=default)
 *                       ::tail_chksum(chksum=crc32, err_handle=default)::malloc_socket
 *   4 tail_tolerate   mmap_heap::segfit_lk(sync=spinlock, sizeclass=log2b, size_handle=[0, 262144], link_check=1, err_handle=tolerate)
 *                       ::tail_chksum(chksum=crc32, err_handle=tolerate, head_canary=1, freed_mark=1)::malloc_socket
 * tolerate looks like report mode from outside (report, go on); what it does
 * differently (damaged blocks never reused) shows in double_free_then_alloc.
 * Every trunk checks its free-list links (link_check=1), as in the ready
 * safety instances, in the composition's mode; the tail-only ones keep a
 * head canary and the freed mark as wfslabs does.
 */
#include <mortise/mortise.h>

#if BADINPUT_COMPOSITION == 1
#include <mortise/os/mmap_heap.h>
#define MT_SIZECLASS prime
#define MT_SIZE_HANDLE 0, 65536
#define MT_LINK_CHECK 1
#define MT_ERR_HANDLE fatal
#include <mortise/layers/slab_wf.h>
#define MT_CHKSUM magic
#define MT_ERR_HANDLE fatal
#define MT_HEAD_CANARY 1
#define MT_FREED_MARK 1
#include <mortise/layers/tail_chksum.h>
#include <mortise/sockets/malloc_socket.h>
MT_COMPOSE(mmap_heap, slab_wf, tail_chksum, malloc_socket)

#elif BADINPUT_COMPOSITION == 2
#include <mortise/os/mmap_heap.h>
#define MT_SYNC spinlock
#define MT_SIZECLASS log2b
#define MT_LINK_CHECK 1
#include <mortise/layers/segfit_lk.h>
#define MT_CHKSUM magic
#define MT_NODE_XOR 1
#define MT_DELAYED_SIZE ((size_t)64 << 10)
#define MT_ERR_HANDLE default
#include <mortise/layers/delayed_free.h>
#include <mortise/sockets/malloc_socket.h>
MT_COMPOSE(mmap_heap, segfit_lk, delayed_free, malloc_socket)

#elif BADINPUT_COMPOSITION == 3
#include <mortise/os/brk_heap.h>
#define MT_SYNC posix_mutex
#define MT_LINK_CHECK 1
#include <mortise/layers/tlsf_glk.h>
#define MT_CHKSUM xor
#define MT_NODE_XOR 1
#define MT_DELAYED_SIZE ((size_t)64 << 10)
#define MT_ERR_HANDLE default
#include <mortise/layers/delayed_free.h>
#define MT_CHKSUM crc32
#define MT_ERR_HANDLE default
#include <mortise/layers/tail_chksum.h>
#include <mortise/sockets/malloc_socket.h>
MT_COMPOSE(brk_heap, tlsf_glk, delayed_free, tail_chksum, malloc_socket)

#elif BADINPUT_COMPOSITION == 4
#include <mortise/os/mmap_heap.h>
#define MT_SYNC spinlock
#define MT_SIZECLASS log2b
#define MT_LINK_CHECK 1
#define MT_ERR_HANDLE tolerate
#include <mortise/layers/segfit_lk.h>
#define MT_CHKSUM crc32
#define MT_ERR_HANDLE tolerate
#define MT_HEAD_CANARY 1
#define MT_FREED_MARK 1
#include <mortise/layers/tail_chksum.h>
#include <mortise/sockets/malloc_socket.h>
MT_COMPOSE(mmap_heap, segfit_lk, tail_chksum, malloc_socket)

#else
#error "BADINPUT_COMPOSITION: 1 to 4"
#endif
