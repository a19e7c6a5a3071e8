/* mortise/core/report.h — how a safety layer reports a bug it found.
 *
 * One line on standard error per bug, in exactly this form (the bad-input
 * corpus and users' scripts match it with a regular expression):
 *
 *     mortise: <class> at 0x<hex address> size <decimal size> (<layer>, <operation>)
 *
 *     mortise: heap-buffer-overflow at 0x7f12a0 size 24 (tail_chksum, free)
 *
 * <address> is the block's address as the program knows it (the pointer it
 * passed), <size> the block's requested size when the layer still knows it,
 * else 0. <layer> is the instance that found the bug (its model-language
 * name, or "pagemap" when the socket's owner lookup found that no layer owns
 * the pointer), <operation> the layer operation that found it: free,
 * realloc (resize), getmeta (malloc_usable_size or realloc asking the size),
 * malloc_usable_size (socket), evict (delayed_free's quarantine).
 *
 * The bug classes, by name (MORTISE_BUG_* below):
 *   heap-buffer-overflow   a check word after the block was overwritten
 *   heap-buffer-underflow  the header word in front of the block was damaged
 *   double-free            the block is already free (quarantined or freed)
 *   write-after-free       a freed block's fill pattern changed in quarantine
 *   invalid-free           free/realloc/usable-size of a pointer that is not
 *                          a block start: no layer owns it (stack, global,
 *                          foreign mapping, wild), or it points inside a block
 *   corrupted-metadata     a safety layer's own bookkeeping in user-writable
 *                          memory failed its check (a quarantine node)
 *
 * What happens after the report is the layer's err_handle policy
 * (policy/err/err.h). Reporting never allocates: the line is formatted into
 * a stack buffer and written to fd 2 with the port layer's mt_pal_write_all;
 * errno is preserved. A freestanding build writes nowhere: define
 * MT_REPORT_WRITE(buf, len) to send the line somewhere, else only a callback
 * handler sees reports.
 */
#ifndef MORTISE_CORE_REPORT_H
#define MORTISE_CORE_REPORT_H

#include "platform.h"

enum {
    MORTISE_BUG_HEAP_BUFFER_OVERFLOW = 1,
    MORTISE_BUG_HEAP_BUFFER_UNDERFLOW,
    MORTISE_BUG_DOUBLE_FREE,
    MORTISE_BUG_WRITE_AFTER_FREE,
    MORTISE_BUG_INVALID_FREE,
    MORTISE_BUG_CORRUPTED_METADATA,
};

/* What a callback handler receives (err_handle=callback). */
typedef struct mortise_error {
    int kind;              /* MORTISE_BUG_* */
    void *ptr;             /* the block's address as the program knows it */
    size_t size;           /* requested size if known, else 0 */
    const char *layer;     /* instance that found it, or "pagemap" */
    const char *operation; /* free, realloc, getmeta, evict, ... */
} mortise_error;

typedef void mortise_error_handler(const mortise_error *error, void *arg);

MT_UNUSED static const char *mt_bug_class_name(int kind)
{
    switch (kind) {
    case MORTISE_BUG_HEAP_BUFFER_OVERFLOW: return "heap-buffer-overflow";
    case MORTISE_BUG_HEAP_BUFFER_UNDERFLOW: return "heap-buffer-underflow";
    case MORTISE_BUG_DOUBLE_FREE: return "double-free";
    case MORTISE_BUG_WRITE_AFTER_FREE: return "write-after-free";
    case MORTISE_BUG_INVALID_FREE: return "invalid-free";
    case MORTISE_BUG_CORRUPTED_METADATA: return "corrupted-metadata";
    default: return "unknown-bug";
    }
}

/* The handler of err_handle=callback, one per allocator (the socket exports
 * its setter, sockets/family.h). The pair is published argument first. */
static _Atomic(mortise_error_handler *) mt_report_handler;
static void *_Atomic mt_report_handler_arg;

MT_UNUSED static void mt_report_set_handler(mortise_error_handler *fn, void *arg)
{
    mt_store_release(&mt_report_handler_arg, arg);
    mt_store_release(&mt_report_handler, fn);
}

static size_t mt_report_put(char *buf, size_t at, size_t cap, const char *s)
{
    while (*s && at < cap)
        buf[at++] = *s++;
    return at;
}

static size_t mt_report_put_num(char *buf, size_t at, size_t cap, uint64_t v, unsigned base)
{
    char digits[24];
    size_t n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    while (n && at < cap)
        buf[at++] = digits[--n];
    return at;
}

/* The report line of e, newline included; returns its length (< cap). */
MT_UNUSED static size_t mt_report_format(char *buf, size_t cap, const mortise_error *e)
{
    size_t at = 0;
    cap--; /* room for the NUL */
    at = mt_report_put(buf, at, cap, "mortise: ");
    at = mt_report_put(buf, at, cap, mt_bug_class_name(e->kind));
    at = mt_report_put(buf, at, cap, " at 0x");
    at = mt_report_put_num(buf, at, cap, (uintptr_t)e->ptr, 16);
    at = mt_report_put(buf, at, cap, " size ");
    at = mt_report_put_num(buf, at, cap, e->size, 10);
    at = mt_report_put(buf, at, cap, " (");
    at = mt_report_put(buf, at, cap, e->layer);
    at = mt_report_put(buf, at, cap, ", ");
    at = mt_report_put(buf, at, cap, e->operation);
    at = mt_report_put(buf, at, cap, ")\n");
    buf[at] = 0;
    return at;
}

/* Print e's line on standard error (or MT_REPORT_WRITE). */
MT_SLOW MT_UNUSED void mt_report_print(const mortise_error *e)
{
    char line[256];
    size_t len = mt_report_format(line, sizeof line, e);
#if defined(MT_REPORT_WRITE)
    MT_REPORT_WRITE(line, len);
#else
    int saved = mt_pal_errno();
    mt_pal_write_all(2, line, len);
    mt_pal_set_errno(saved);
#endif
}

#endif
