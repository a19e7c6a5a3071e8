/* tests/suites/sanitize/prefixed/mortise/sockets/malloc_socket.h — stands in
 * for the real malloc_socket when a ready composition file (instances/NAME.c)
 * is compiled for the sanitizer and fuzz tests: this folder comes first on
 * the include path (clang_exe.cmake), so the instance's own
 * `#include <mortise/sockets/malloc_socket.h>` lands here and its socket
 * becomes custom_socket(prefix=san_) under the name malloc_socket that its
 * MT_COMPOSE line uses. Everything below the socket is the instance's code,
 * unchanged; the san_ family then lives beside the sanitizer runtime's own
 * malloc instead of replacing it (which the runtimes do not allow).
 */
#define MT_NAME malloc_socket
#define MT_PREFIX san_
#include <mortise/sockets/custom_socket.h>
