/* mortise/names/custom_socket.h — written by tools/layer_names.py from sockets/custom_socket.h; do not edit.
 * sockets/custom_socket.h writes its functions and state under the default instance
 * name custom_socket; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_custom_socket
#define MT_NAMES_custom_socket
#else
#undef MT_NAMES_custom_socket
#endif
