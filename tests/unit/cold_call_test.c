/* MT_COLD_CALL: whatever the out-of-line function writes into its copy of
 * the context reaches the caller's context, every field — a cold getmeta
 * that reports a size class, a cold alloc that rounds the size, a socket's
 * extra field — and the call's own result comes back unchanged. */
#define MT_CTX_EXTRA unsigned flags;
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>
#define MT_PREFIX cc_
#include <mortise/sockets/custom_socket.h>
MT_COMPOSE(mmap_heap, custom_socket) /* a context needs a chain to belong to */

#include "../common/check.h"

static int cold_calls;

__attribute__((noinline)) static void *cold_fill(mt_ctx *c)
{
    cold_calls++;
    c->err = 12;
    c->zeroed = c;
    c->usable = 48;
    c->szcls = 7;
    c->szcls_key = 0x5a;
    c->size = 64;
    c->ptr = &cold_calls;
    c->flags = 3;
    return (void *)&cold_calls;
}

int main(void)
{
    mt_ctx ctx = mt_ctx_for_alloc(40, 16);
    void *r = MT_COLD_CALL(&ctx, copy, cold_fill(&copy));
    CHECK(cold_calls == 1);
    CHECK(r == (void *)&cold_calls);
    CHECK(ctx.err == 12 && ctx.usable == 48);
    CHECK(ctx.szcls == 7 && ctx.szcls_key == 0x5a);
    CHECK(ctx.size == 64 && ctx.ptr == &cold_calls && ctx.flags == 3);
    CHECK(ctx.align == 16 && ctx.cpu == -1); /* untouched fields survive */
    return check_report("cold_call_test");
}
