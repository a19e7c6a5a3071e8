/* mortise/sockets/socket_threads.h — per-thread create/exit for a socket.
 * Hosted with threads: core/thread.h (a pthread key runs every layer's
 * thread_exit when a thread ends, plus fork handlers). Built with
 * MT_NO_THREADS or MT_FREESTANDING: there is no thread library to ask, so
 * mt_thread_attach does nothing and the layers' create/thread_exit are the
 * embedder's to call (one thread, or an RTOS hooking its own task exit). */
#ifndef MORTISE_SOCKETS_SOCKET_THREADS_H
#define MORTISE_SOCKETS_SOCKET_THREADS_H

#if defined(MT_NO_THREADS) || defined(MT_FREESTANDING)
static inline void mt_thread_attach(void) {}
#else
#include "../core/thread.h"
#endif

#endif
