/* mortise/sockets/cxx_new.h — C++ operator new and delete, written in C under
 * their Itanium-ABI names, so a C++ program using a Mortise allocator never
 * reaches another allocator and the library needs no C++ runtime itself.
 *
 * new (plain, array, aligned): on failure calls the installed new_handler in
 * a loop, as the standard says; with no handler it throws std::bad_alloc
 * (through libstdc++'s __throw_bad_alloc when the program has it, else abort).
 * nothrow forms: return NULL on failure without consulting the handler.
 * delete (plain, sized, aligned, nothrow): free.
 * Each leaves its call site for lock statistics first (MT_SOCKET_NOTE_CALLER,
 * sockets/socket_core.h: nothing without a lock_stat=1 layer).
 */
#ifndef MORTISE_SOCKETS_CXX_NEW_H
#define MORTISE_SOCKETS_CXX_NEW_H

#include "../core/platform.h"

typedef void (*mt_new_handler)(void);
extern mt_new_handler _ZSt15get_new_handlerv(void) __attribute__((weak));
extern void _ZSt17__throw_bad_allocv(void) __attribute__((weak, noreturn));

MT_SLOW void *mt_cxx_new_failed(size_t size, size_t align)
{
    for (;;) {
        mt_new_handler handler = _ZSt15get_new_handlerv ? _ZSt15get_new_handlerv() : NULL;
        if (!handler) {
            if (_ZSt17__throw_bad_allocv)
                _ZSt17__throw_bad_allocv();
            mt_pal_abort();
        }
        handler();
        mt_ctx ctx = mt_ctx_for_alloc(size ? size : 1, align);
        void *p = mt_socket_alloc(&ctx);
        if (p)
            return p;
    }
}

MT_INLINE void *mt_cxx_new(size_t size, size_t align)
{
    void *p = mt_socket_alloc_plain(size ? size : 1, align);
    return MT_LIKELY(p) ? p : mt_cxx_new_failed(size, align);
}
MT_INLINE void *mt_cxx_new_nothrow(size_t size, size_t align)
{
    return mt_socket_alloc_plain(size ? size : 1, align);
}

typedef struct mt_nothrow_t mt_nothrow_t;

MT_EXPORT void *_Znwm(size_t n)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_cxx_new(n, 1);
}
MT_EXPORT void *_Znam(size_t n)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_cxx_new(n, 1);
}
MT_EXPORT void *_ZnwmRKSt9nothrow_t(size_t n, const mt_nothrow_t *t)
{
    MT_SOCKET_NOTE_CALLER();
    (void)t;
    return mt_cxx_new_nothrow(n, 1);
}
MT_EXPORT void *_ZnamRKSt9nothrow_t(size_t n, const mt_nothrow_t *t)
{
    MT_SOCKET_NOTE_CALLER();
    (void)t;
    return mt_cxx_new_nothrow(n, 1);
}
MT_EXPORT void *_ZnwmSt11align_val_t(size_t n, size_t a)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_cxx_new(n, a);
}
MT_EXPORT void *_ZnamSt11align_val_t(size_t n, size_t a)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_cxx_new(n, a);
}
MT_EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t a, const mt_nothrow_t *t)
{
    MT_SOCKET_NOTE_CALLER();
    (void)t;
    return mt_cxx_new_nothrow(n, a);
}
MT_EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t a, const mt_nothrow_t *t)
{
    MT_SOCKET_NOTE_CALLER();
    (void)t;
    return mt_cxx_new_nothrow(n, a);
}

MT_EXPORT void _ZdlPv(void *p)
{
    MT_SOCKET_NOTE_CALLER();
    mt_socket_free(p);
}
MT_EXPORT void _ZdaPv(void *p)
{
    MT_SOCKET_NOTE_CALLER();
    mt_socket_free(p);
}
MT_EXPORT void _ZdlPvm(void *p, size_t n)
{
    MT_SOCKET_NOTE_CALLER();
    (void)n;
    mt_socket_free(p);
}
MT_EXPORT void _ZdaPvm(void *p, size_t n)
{
    MT_SOCKET_NOTE_CALLER();
    (void)n;
    mt_socket_free(p);
}
MT_EXPORT void _ZdlPvRKSt9nothrow_t(void *p, const mt_nothrow_t *t)
{
    MT_SOCKET_NOTE_CALLER();
    (void)t;
    mt_socket_free(p);
}
MT_EXPORT void _ZdaPvRKSt9nothrow_t(void *p, const mt_nothrow_t *t)
{
    MT_SOCKET_NOTE_CALLER();
    (void)t;
    mt_socket_free(p);
}
MT_EXPORT void _ZdlPvSt11align_val_t(void *p, size_t a)
{
    MT_SOCKET_NOTE_CALLER();
    (void)a;
    mt_socket_free(p);
}
MT_EXPORT void _ZdaPvSt11align_val_t(void *p, size_t a)
{
    MT_SOCKET_NOTE_CALLER();
    (void)a;
    mt_socket_free(p);
}
MT_EXPORT void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t a)
{
    MT_SOCKET_NOTE_CALLER();
    (void)n;
    (void)a;
    mt_socket_free(p);
}
MT_EXPORT void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t a)
{
    MT_SOCKET_NOTE_CALLER();
    (void)n;
    (void)a;
    mt_socket_free(p);
}
MT_EXPORT void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t a, const mt_nothrow_t *t)
{
    MT_SOCKET_NOTE_CALLER();
    (void)a;
    (void)t;
    mt_socket_free(p);
}
MT_EXPORT void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t a, const mt_nothrow_t *t)
{
    MT_SOCKET_NOTE_CALLER();
    (void)a;
    (void)t;
    mt_socket_free(p);
}

#endif
