/* wcet_stat_malloc — measures whichever allocator is loaded after it
 * (paper section 4.3): every malloc and free goes to the next allocator
 * (dlsym(RTLD_NEXT)), 1 in 8 per thread timed by wcet_stat, threads pinned
 * round robin. Link a program with libmortise-wcet_stat_malloc.a and run it
 * with LD_PRELOAD=the allocator to measure, or preload both:
 * LD_PRELOAD="libmortise-wcet_stat_malloc.so other.so". The report:
 * MORTISE_STATS=1 or json:PATH at exit, mortise_stats_json() any time
 * (docs/stats.md).
 * model: malloc_heap(passthrough=1)::wcet_stat(pin_threads=1)::malloc_socket
 */
/* Forwarders and glue written out: chains/wcet_stat_malloc.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#define MT_PASSTHROUGH 1
#include <mortise/os/malloc_heap.h>

#define MT_PIN_THREADS 1
#include <mortise/layers/wcet_stat.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(malloc_heap, wcet_stat, malloc_socket), written out: */
#include "chains/wcet_stat_malloc.inl"
