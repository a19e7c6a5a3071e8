/* mortise/names/malloc_socket.h — written by tools/layer_names.py from sockets/malloc_socket.h; do not edit.
 * sockets/malloc_socket.h writes its functions and state under the default instance
 * name malloc_socket; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_malloc_socket
#define MT_NAMES_malloc_socket
#else
#undef MT_NAMES_malloc_socket
#endif
