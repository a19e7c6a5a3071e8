/* MT_COLD_CALL and MT_COLD_GETMETA: the outputs of the operation a cold
 * (out-of-line) function serves reach the caller's context — err, zeroed and
 * usable for alloc/free/resize, and for getmeta also the class hint — inputs
 * the cold function changed for the layers below stay its own, and the
 * call's result comes back unchanged. */
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
    c->zeroed = &cold_calls;
    c->usable = 48;
    c->szcls = 7;
    c->szcls_key = 0x5a;
    c->size = 64;
    c->ptr = &cold_calls;
    c->flags = 3;
    return (void *)&cold_calls;
}

static void check_inputs_kept(const mt_ctx *ctx)
{
    CHECK(ctx->size == 40 && ctx->ptr == NULL && ctx->flags == 0);
    CHECK(ctx->align == 16 && ctx->cpu == -1);
}

int main(void)
{
    mt_ctx ctx = mt_ctx_for_alloc(40, 16);
    void *r = MT_COLD_CALL(&ctx, copy, cold_fill(&copy));
    CHECK(cold_calls == 1 && r == (void *)&cold_calls);
    CHECK(ctx.err == 12 && ctx.usable == 48 && ctx.zeroed == (void *)&cold_calls);
    check_inputs_kept(&ctx);

    mt_ctx meta = mt_ctx_for_alloc(40, 16);
    r = MT_COLD_GETMETA(&meta, copy, cold_fill(&copy));
    CHECK(cold_calls == 2 && r == (void *)&cold_calls);
    CHECK(meta.err == 12 && meta.usable == 48);
    CHECK(meta.szcls == 7 && meta.szcls_key == 0x5a);
    check_inputs_kept(&meta);
    return check_report("cold_call_test");
}
