/* mortise/sockets/socket_core.h — what every socket's entry points do with
 * the composed chain, written once.
 *
 * Each helper takes a request template `req`: a context the socket filled
 * with what its interface carries besides sizes and pointers (ctx->cpu for
 * cmalloc_socket, MT_CTX_EXTRA fields such as kernel_socket's flags), so that
 * frees and queries reach the layers with the same fields as allocations.
 * mt_socket_request() is the template of a plain malloc(3) call.
 *
 * None of it needs a C library: errors go through the port layer's errno
 * (a static word freestanding) and copies and fills are the compiler's
 * builtins, which become calls to memcpy/memset at most (custom_socket and
 * kernel_socket compile freestanding; tests/ports/baremetal runs them).
 */
#ifndef MORTISE_SOCKETS_SOCKET_CORE_H
#define MORTISE_SOCKETS_SOCKET_CORE_H

#include "../core/pagemap.h"

/* A composition with a safety layer (MT_TRAIT_REPORTS_INVALID, core/ctx.h)
 * reports a pointer no layer owns as invalid-free, and reports requested
 * sizes as usable, so realloc lets the chain resize on every change of
 * size. Without one both tests fold away. */
#define MT_SOCKET_REPORTS_INVALID ((mt_chain_traits() & MT_TRAIT_REPORTS_INVALID) != 0)
#define MT_SOCKET_REPORT_INVALID(p, op) \
    (MT_SOCKET_REPORTS_INVALID ? mt_chain_report_invalid((p), (op)) : (void)0)

MT_INLINE mt_ctx mt_socket_request(void) { return mt_ctx_for_alloc(0, 1); }

/* First thing in every entry point of the malloc(3) family and operator
 * new/delete. With a lock_stat=1 layer in the composition
 * (MT_TRAIT_LOCK_STAT, core/ctx.h) it leaves the program's call site — the
 * return address of the entry point — for the locks of this request
 * (policy/sync/lockstat.h: lock calls carry no context), and on the
 * thread's first request gives the thread its row and attaches it, so its
 * exit is recorded. Without one it is a test of a constant the compiler
 * drops (core/compose.h). */
#define MT_SOCKET_NOTE_CALLER() mt_chain_note_caller()

/* Free p: route it by the page map; a pointer no layer owns (entry 0) is
 * never dereferenced. Every layer's free compares ctx->owner with its own id
 * and passes on what is not its own, and the chain's end ignores it, so
 * owner 0 needs no test here unless a safety layer reports it or a layer
 * acts on frees it does not own (MT_TRAIT_NEEDS_OWNER, core/ctx.h).
 * With a page map that answers NULL as "no leaf" (MT_PAGEMAP_FIND,
 * core/pagemap_radix.h), NULL needs no test of its own either: its lookup
 * ends at the range check every lookup makes (docs/fastpath.md). */
MT_INLINE void mt_socket_free_req(mt_ctx req, void *p)
{
    if (mt_chain_traits() & (MT_TRAIT_REPORTS_INVALID | MT_TRAIT_NEEDS_OWNER)) {
        if (MT_UNLIKELY(!p))
            return;
        mt_ctx_route(&req, p);
        if (MT_UNLIKELY(!req.owner)) {
            MT_SOCKET_REPORT_INVALID(p, "free");
            return;
        }
        mt_chain_free(&req);
        return;
    }
#if defined(MT_PAGEMAP_FIND)
    uintptr_t e;
    if (MT_UNLIKELY(!mt_pagemap_find(p, &e)))
        return;
    req.ptr = p;
    req.owner = mt_entry_owner(e);
    req.meta = mt_entry_payload(e);
#else
    if (MT_UNLIKELY(!p))
        return;
    mt_ctx_route(&req, p);
#endif
    mt_chain_free(&req);
}

/* Usable size of an owned block, 0 for NULL and foreign pointers. */
MT_INLINE size_t mt_socket_usable_req(mt_ctx req, void *p)
{
    if (!p)
        return 0;
    mt_ctx_route(&req, p);
    if (!req.owner) {
        MT_SOCKET_REPORT_INVALID(p, "malloc_usable_size");
        return 0;
    }
    if (!mt_chain_getmeta(&req))
        return 0;
    return req.usable;
}

/* Failure is out of line and tail-called: a hit path that never calls
 * anything then needs no stack frame (docs/fastpath.md). */
MT_SLOW void *mt_socket_fail(int err)
{
    mt_pal_set_errno(err);
    return NULL;
}

/* Run an allocation request; on failure set errno from the layer (ENOMEM if
 * it gave no reason). Sizes above MT_MAX_REQUEST fail before any layer. */
MT_INLINE void *mt_socket_alloc(mt_ctx *ctx)
{
    if (MT_UNLIKELY(ctx->size > MT_MAX_REQUEST))
        return mt_socket_fail(MT_ENOMEM);
    void *p = mt_chain_alloc(ctx);
    if (MT_UNLIKELY(!p))
        return mt_socket_fail(ctx->err ? ctx->err : MT_ENOMEM);
    return p;
}

/* Requests above this many bytes run the chain out of line
 * (mt_socket_alloc_plain). The hit path then compares the size with a small
 * immediate instead of MT_MAX_REQUEST, and every upper bound of the layers
 * at or above it folds away: the top layer's range (thread_cache's and
 * slab_lk's 32 KiB, slab_wf's 64 KiB) and the size-class tables' one-load
 * range (sizes up to 1024, policy/sizeclass/table.h), so a small malloc
 * makes one size compare. A request of more than 1 KiB pays a tail call
 * and a second size compare, on a block whose use costs far more
 * (docs/fastpath.md). An instance may define it before
 * including its socket. */
#ifndef MT_SOCKET_INLINE_MAX
#define MT_SOCKET_INLINE_MAX ((size_t)1024)
#endif

MT_SLOW void *mt_socket_alloc_large(size_t size, size_t align)
{
    mt_ctx ctx = mt_ctx_for_alloc(size, align);
    return mt_socket_alloc(&ctx);
}

/* mt_socket_alloc for a request with nothing but a size and an alignment
 * (malloc, operator new). A large one is tail-called out of line with its
 * two arguments in registers, so the hit path needs no stack frame (a
 * context copy, MT_COLD_CALL, would give malloc one). */
MT_INLINE void *mt_socket_alloc_plain(size_t size, size_t align)
{
    if (MT_UNLIKELY(size > MT_SOCKET_INLINE_MAX))
        return mt_socket_alloc_large(size, align);
    mt_ctx ctx = mt_ctx_for_alloc(size, align);
    return mt_socket_alloc(&ctx);
}

/* malloc's request out of line, for a chain that tells call sites apart
 * (MT_TRAIT_READS_CALLER): the layers read the program's call site from
 * the frame address malloc passed, whether or not its call here was a tail
 * call, and the layer that answered the quick request NULL its word for
 * the repeat from `resume` (core/ctx.h; NULL: none). */
MT_SLOW void *mt_socket_malloc_again(size_t size, uintptr_t caller_cfa, void *resume)
{
    mt_ctx ctx = mt_ctx_for_alloc(size, 1);
    ctx.caller_cfa = caller_cfa;
    ctx.chain = resume;
    return mt_socket_alloc(&ctx);
}

/* malloc(size): mt_socket_alloc_plain; on x86-64, in a chain that reads
 * its call site, the inline path is asked quick (core/ctx.h) and whatever
 * it does not serve at once is repeated by mt_socket_malloc_again, so the
 * only calls left in malloc are tail calls and its hit path needs no stack
 * frame, although it reads its return address. */
#if defined(__x86_64__)
#define MT_SOCKET_MALLOC_QUICK ((mt_chain_traits() & MT_TRAIT_READS_CALLER) != 0)
#else
#define MT_SOCKET_MALLOC_QUICK 0
#endif
MT_INLINE void *mt_socket_malloc(size_t size)
{
    if (!MT_SOCKET_MALLOC_QUICK)
        return mt_socket_alloc_plain(size, 1);
    uintptr_t caller_cfa = (uintptr_t)__builtin_dwarf_cfa();
    if (MT_UNLIKELY(size > MT_SOCKET_INLINE_MAX))
        return mt_socket_malloc_again(size, caller_cfa, NULL);
    mt_ctx ctx = mt_ctx_for_alloc(size, 1);
    ctx.chain = MT_ALLOC_QUICK;
    void *p = mt_chain_alloc(&ctx);
    if (MT_LIKELY(p != NULL))
        return p;
    return mt_socket_malloc_again(size, caller_cfa, ctx.chain == MT_ALLOC_QUICK ? NULL : ctx.chain);
}

/* calloc trusts a layer's word that a block is zero-filled (ctx->zeroed:
 * fresh from the OS) only from this many bytes up; a shorter block is
 * cleared all the same. A program uses what it asked for, and a page it
 * reads before writing is mapped to the kernel's zero page, which the first
 * write must replace: with threads on other cores, that replacement flushes
 * their TLBs, an interrupt per page. Clearing makes each page the
 * program's own at once. A longer block may be a sparse table, whose
 * untouched pages should cost no memory (glibc's and jemalloc's calloc
 * leave fresh blocks alone; mimalloc's and tcmalloc's clear them all). */
#ifndef MT_CALLOC_TRUST_ZERO
#define MT_CALLOC_TRUST_ZERO ((size_t)32 << 20)
#endif

/* size < bound, for a bound that may be the constant 0 (no type-limits
 * warning for it). */
MT_INLINE bool mt_socket_below(size_t size, size_t bound) { return size < bound; }

/* n * each zero-filled bytes; ENOMEM when the product overflows. A block a
 * layer reports fresh from the OS is not cleared again if it is at least
 * MT_CALLOC_TRUST_ZERO long. */
MT_INLINE void *mt_socket_calloc_req(mt_ctx req, size_t n, size_t each)
{
    size_t size;
    if (__builtin_mul_overflow(n, each, &size)) {
        mt_pal_set_errno(MT_ENOMEM);
        return NULL;
    }
    req.size = size;
    void *p = mt_socket_alloc(&req);
    if (p && (req.zeroed != p || mt_socket_below(size, MT_CALLOC_TRUST_ZERO)))
        __builtin_memset(p, 0, size);
    return p;
}

/* size bytes aligned to align; EINVAL unless align is a power of two. */
MT_INLINE void *mt_socket_aligned_req(mt_ctx req, size_t align, size_t size)
{
    if (MT_UNLIKELY(!mt_is_pow2(align))) {
        mt_pal_set_errno(MT_EINVAL);
        return NULL;
    }
    req.size = size;
    req.align = align;
    return mt_socket_alloc(&req);
}

/* realloc(3) with glibc's answers: NULL p allocates, size 0 frees and returns
 * NULL, a foreign p gives NULL with EINVAL. A block whose usable size still
 * fits and is at most twice the request stays; else the owner may resize it
 * in place, else it moves. */
MT_INLINE void *mt_socket_realloc_req(mt_ctx req, void *p, size_t size)
{
    mt_ctx ctx = req;
    ctx.size = size;
    if (!p)
        return mt_socket_alloc(&ctx);
    if (size == 0) {
        mt_socket_free_req(req, p);
        return NULL;
    }
    if (size > MT_MAX_REQUEST) {
        mt_pal_set_errno(MT_ENOMEM);
        return NULL;
    }
    mt_ctx_route(&ctx, p);
    if (!ctx.owner)
        MT_SOCKET_REPORT_INVALID(p, "realloc");
    if (!ctx.owner || !mt_chain_getmeta(&ctx)) {
        mt_pal_set_errno(MT_EINVAL);
        return NULL;
    }
    size_t usable = ctx.usable;
    if (size <= usable && size >= usable / 2 && (!MT_SOCKET_REPORTS_INVALID || size == usable))
        return p;
    ctx.size = size;
    void *q = mt_chain_resize(&ctx);
    if (q)
        return q;
    mt_ctx fresh = req;
    fresh.size = size;
    q = mt_socket_alloc(&fresh);
    if (!q)
        return NULL;
    __builtin_memcpy(q, p, size < usable ? size : usable);
    mt_socket_free_req(req, p);
    return q;
}

#endif
