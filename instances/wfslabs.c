/* wfslabs — wfslab with an 8-byte xor check word after every block
 * (tail_chksum, paper section 4.1): a heap-buffer overflow is reported on
 * the block's free, realloc or malloc_usable_size, and the program goes on;
 * so is a write just in front of the block (head_canary), and a write into
 * a freed block's first 8 bytes, when the block is handed out again
 * (freed_mark).
 * Both trunks check every free-list link before following it (link_check),
 * so a write into a free block is reported instead of followed.
 * model: mmap_heap(faa_heap_growth=1, threadlocal_heap_size=256MB, huge_page=1)::segfit_lf(sizeclass=log2b, size_handle=[65536,SIZE_MAX], link_check=1)::slab_wf(sizeclass=prime, slab_size=64KB, tllabs=40, size_handle=[0,65536], link_check=1)::tail_chksum(chksum=xor, err_handle=default, head_canary=1, freed_mark=1)::malloc_socket
 */
/* Forwarders and glue written out: chains/wfslabs.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#define MT_FAA_HEAP_GROWTH 1
#define MT_THREADLOCAL_HEAP_SIZE ((size_t)256 << 20)
#define MT_HUGE_PAGE 1
#include <mortise/os/mmap_heap.h>

#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 65536, SIZE_MAX
#define MT_LINK_CHECK 1
#include <mortise/layers/segfit_lf.h>

#define MT_SIZECLASS prime
#define MT_SLAB_SIZE ((size_t)64 << 10)
#define MT_TLLABS 40
#define MT_SIZE_HANDLE 0, 65536
#define MT_LINK_CHECK 1
#include <mortise/layers/slab_wf.h>

#define MT_CHKSUM xor
#define MT_ERR_HANDLE default
#define MT_HEAD_CANARY 1
#define MT_FREED_MARK 1
#include <mortise/layers/tail_chksum.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, segfit_lf, slab_wf, tail_chksum, malloc_socket), written out: */
#include "chains/wfslabs.inl"
