/* buddy — a binary buddy system alone: every request up to a 4 MiB chunk is
 * a power-of-two block aligned to its size; larger ones go to the OS layer.
 * Its smallest block is 16 bytes (tuning MT_BUDDY_MIN_SHIFT=4, not a model
 * slot): with the layer's default of 4 KiB every small request would take a
 * page, 256 times a 16-byte object, which a program of millions of small
 * objects (the python test) cannot afford.
 * model: mmap_heap::buddy_glk(size_handle=[0, SIZE_MAX])::malloc_socket
 */
/* Forwarders and glue written out: chains/buddy.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_SIZE_HANDLE 0, SIZE_MAX
#define MT_BUDDY_MIN_SHIFT 4
#include <mortise/layers/buddy_glk.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, buddy_glk, malloc_socket), written out: */
#include "chains/buddy.inl"
