/* slab_wf — wait-free thread-local slabs for small blocks.
 *
 * The heart of the paper's wfslab allocator (§3): every thread allocates from
 * slabs it owns, frees its own blocks with plain list operations, and hands
 * blocks of other threads' slabs back with a constant number of atomic
 * instructions; no operation ever waits for another thread. The full design
 * and the argument for each bound are in docs/slab_wf.md.
 *
 * Serves: sizes in size_handle (below the last class in the TLS table, see
 *   MT_SLAB_WF_BINS) at any alignment up to 32 KiB: a class whose size is a
 *   multiple of the alignment is used as is; otherwise an aligned class
 *   (power-of-two blocks of 32 B to 32 KiB, after the policy's classes)
 *   serves max(size, alignment), every block aligned; above 32 KiB the
 *   block comes from the class of size + alignment - 16 and the aligned
 *   address inside it is handed out (the slab is flagged; its frees find
 *   the block start by one division). Everything else goes to the next
 *   layer. The fast path's alloc hands back the block's usable size (the
 *   class size; core/ctx.h's hint), so tail_chksum above needs no getmeta
 *   for it. A quick getmeta (core/ctx.h's MT_SAFETY_QUICK) of a block in
 *   a slab flagged aligned is answered NULL, for the asker to ask again; a
 *   quick alloc is served as any other.
 * Slots (model language → macro, default):
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (0, 65536); hi must be finite.
 *   sizeclass=POLICY     → MT_SIZECLASS (prime).
 *   slab_size=BYTES      → MT_SLAB_SIZE (64 KiB), a multiple of 64 KiB: the
 *                          length of a slab; a class whose MT_SLAB_WF_MIN_BLOCKS
 *                          (8) blocks do not fit gets the smallest multiple of
 *                          64 KiB that holds them (the unused tail is never
 *                          touched, so it costs address space, not RSS).
 *   tllabs=N             → MT_TLLABS (40): the most fully free slabs of length
 *                          slab_size a thread keeps for reuse, all classes
 *                          together ("thread-local allocation buffers" ready to
 *                          be formatted for any class that fits). A slab that
 *                          becomes free beyond that goes back below at once.
 *   link_check=0|1       → MT_LINK_CHECK (0): 1 checks every free-list
 *                          link before it is followed — the fast path's pop
 *                          (a link inside the popped block's granule, short
 *                          of a slab header; others exactly: a block start of
 *                          the same slab; a remote-free chain a refill takes
 *                          over is the bin, its links checked as its pops
 *                          reach them), the bin's walk when the heap is saved
 *                          (purge, thread exit, fork) and the fork child's
 *                          repair walk — so an overflow into a free block or
 *                          a write after free never makes the layer read or
 *                          write outside its slabs (safety/link_check.h); a
 *                          bad link is cut where it was found, so no later
 *                          walk meets it again.
 *                          Cost: a compare and the block test per link
 *                          followed, on the hit's path too.
 *   err_handle=POLICY    → MT_ERR_HANDLE (default): what a failed link check
 *                          does after its corrupted-metadata report
 *                          (policy/err); the rest of the list is dropped.
 *   Tuning (not model slots): MT_SLAB_WF_COLLECT (16) the most blocks one
 *   carve threads (K, the per-step work bound); MT_SLAB_WF_TRIES
 *   (2) the most retained slabs one refill examines; MT_SLAB_WF_SWEEP (8)
 *   the most slabs of other classes one reclaim examines (below);
 *   MT_SLAB_WF_MIN_BLOCKS (8);
 *   MT_SLAB_WF_BINS (class count, at most 128) the policy's classes in the
 *   per-thread tables (the 11 aligned classes follow them);
 *   MT_SLAB_WF_STEPS (0): 1 counts the steps of every operation
 *   (tests/layers/slab_wf); 0 compiles the counting away.
 * Structure: a slab is [blocks | 192-byte header] — the header at the end so
 *   that blocks sit at multiples of their size from the 64 KiB-aligned start,
 *   0 to MT_SLAB_WF_COLORS - 1 (8) cache lines below the end by the slab's
 *   address, so that headers do not all share one cache set. Every granule
 *   of a slab maps to this layer with the header's address as payload, so
 *   free and getmeta find the slab in O(1) without reading the block. A
 *   thread holds one *heap* (a record that outlives the thread): per class a
 *   current slab, a list of partial slabs, a notification stack; plus the
 *   cache of empty slabs. Alloc pops from the current slab's *bin* (free list
 *   and hand-out count in TLS); every free by the owner pushes onto the
 *   block's own slab's list, current or partial alike, and the bin takes the
 *   current slab's list when it runs dry. Each slab has a multi-producer
 *   remote-free stack.
 * Needs from below: granule-aligned spans (mmap_heap, ideally with
 *   threadlocal_heap_size) and their free; one granule per thread heap.
 * Time (in the calling thread's own steps, whatever other threads do; the
 *   constants are MT_SELF(bound_*) and tests/layers/slab_wf checks them under
 *   contention):
 *   alloc from own slabs: fast path a pop (or taking the current slab's own
 *   list, one move, when the bin is empty); refill O(K * (TRIES + 2) + SWEEP
 *   + classes), where K is a carve's (a splice takes the remote stack as the
 *   bin with one XCHG and no walk): before a class asks below for a slab,
 *   reclaim moves slabs that frees emptied in other classes' lists into the
 *   empty cache;
 *   free of an own block: a push on its slab's list (plus one CAS when it
 *   empties a slab that was full); free of another thread's block: two
 *   XCHG, a FAA and three stores (wait-free). Outside the bound, as in the
 *   paper: a new slab or a
 *   thread's first heap from below (mmap_heap carves its thread-local region
 *   without synchronisation but checks its chunk cache under a spinlock and
 *   may call the OS), giving a slab back below, thread_exit and purge (O(slabs
 *   of the heap), plus a walk of each non-empty bin to put it back in front
 *   of its slab's list), and a thread's first allocation (O(heaps) to adopt
 *   one).
 *   Wait-freedom assumes XCHG and FAA are single instructions (x86-64, ARMv8.1
 *   LSE); on LL/SC machines they are only lock-free.
 * Space: 192 bytes per slab and its colour offset (at most 640 bytes of a
 *   64 KiB slab: 1.0 %, fewer blocks); per thread 24 bytes of TLS per class
 *   and a 64 KiB (one resident page) heap record; at most tllabs empty slabs
 *   per heap (partial slabs may be empty until a refill, reclaim, purge or
 *   exit finds them: an own free that leaves a slab's remaining blocks in
 *   its remote stack does not release it, see docs/slab_wf.md).
 * Thread safety: all operations, no locks. A thread's slabs are touched with
 *   plain accesses by their owner only; other threads touch a slab's remote
 *   line and the heap's notification stacks only with atomics. At thread exit
 *   the heap (all its slabs) is abandoned as a whole; the next new thread
 *   adopts it (CAS on its state), purge tidies abandoned heaps. fork: no locks
 *   to take; the child repairs its own heap (links a killed remote free left
 *   unwritten) and keeps the other threads' heaps as they were: frees into
 *   them still work, their memory is not reused in the child.
 * Fails: alloc returns NULL with ctx->err from below (ENOMEM) only when a new
 *   slab or heap is needed and the layer below fails. A pointer whose page-map
 *   entry is not this layer's is passed on untouched.
 * Check (the contract's check operation; NAME_check_heaps(&why) also
 *   counts the bad heaps): every reachable slab of the calling thread's heap
 *   and of every abandoned heap is consistent (call it while no other
 *   thread frees into them); NAME_stat() counts slabs and heaps.
 * Example (the paper's wfslab, with segfit_lf below for large blocks):
 *   mmap_heap(threadlocal_heap_size=256MB)
 *     :: slab_wf(sizeclass=prime, slab_size=64KB, tllabs=40, size_handle=[0, 65536])
 *     :: malloc_socket
 * Traits: MT_TRAIT_FRESH_HEADS (core/ctx.h): under tail_chksum's
 *   freed_mark it clears the second word of every block it carves anew.
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_slab_wf(LAYER, SLOT)                                                    \
    LAYER(slab_wf, trunk, MT_TRAIT_FRESH_HEADS, (), ())                                       \
    MT_OPS(SLOT, create, alloc, free, getmeta, resize, thread_exit, fork_child, purge, check) \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, 65536)                                                       \
    MT_SLOT_SIZECLASS(SLOT, prime)                                                            \
    SLOT(slab_size, MT_SLAB_SIZE, BYTES, 64 << 10, (64 << 10, SIZE_MAX), ())                  \
    SLOT(tllabs, MT_TLLABS, N, 40, (1, SIZE_MAX), ())                                         \
    MT_SLOTS_LINK_CHECK(SLOT)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../policy/sizeclass/sizeclass.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/slab_wf.h"
#else
#define MT_NAME slab_wf
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, 65536
#endif
#ifndef MT_SIZECLASS
#define MT_SIZECLASS prime
#endif
#ifndef MT_SLAB_SIZE
#define MT_SLAB_SIZE ((size_t)64 << 10)
#endif
#ifndef MT_TLLABS
#define MT_TLLABS 40
#endif
#ifndef MT_SLAB_WF_COLLECT
#define MT_SLAB_WF_COLLECT 16
#endif
#ifndef MT_SLAB_WF_TRIES
#define MT_SLAB_WF_TRIES 2
#endif
#ifndef MT_SLAB_WF_MIN_BLOCKS
#define MT_SLAB_WF_MIN_BLOCKS 8
#endif
#ifndef MT_SLAB_WF_SWEEP
#define MT_SLAB_WF_SWEEP 8
#endif
#ifndef MT_SLAB_WF_BINS
#define MT_SLAB_WF_BINS (MT_SZCLS_CLASSES(MT_SIZECLASS) < 128 ? MT_SZCLS_CLASSES(MT_SIZECLASS) : 128)
#endif
#ifndef MT_SLAB_WF_STEPS
#define MT_SLAB_WF_STEPS 0
#endif

_Static_assert(MT_SLAB_SIZE % MT_GRANULE == 0 && MT_SLAB_SIZE > 0,
               "slab_wf: slab_size must be a multiple of 64 KiB");
_Static_assert(MT_SLAB_WF_COLLECT >= 1 && MT_SLAB_WF_MIN_BLOCKS >= 1,
               "slab_wf: MT_SLAB_WF_COLLECT and MT_SLAB_WF_MIN_BLOCKS must be positive");

/* ---- once, for every instance ---- */
#ifndef MORTISE_LAYERS_SLAB_WF_TYPES
#define MORTISE_LAYERS_SLAB_WF_TYPES

/* Link values a remote free writes in the first word of a block (and in a
 * slab's nnext): PENDING between its exchange and its link store. MARK in a
 * slab's remote head: the owner retired the slab as full and wants to hear of
 * the first block that comes back. Neither is ever a block or slab address. */
#define MT_SLAB_WF_PENDING ((void *)1)
#define MT_SLAB_WF_MARK ((void *)2)

/* ostate = heap address | ALIGNED | state. Heaps are granule-aligned.
 * Current and partial slabs share one state so that the owner's free is one
 * compare whichever of them the block is in (which one a slab is: the TLS
 * cur table, or the heap's partial list). */
enum {
    MT_SLAB_WF_EMPTY = 0,  /* in the heap's cache of empty slabs */
    MT_SLAB_WF_LISTED = 1, /* the current slab of its class, or in its partial list */
    MT_SLAB_WF_FULL = 3,   /* in no list: comes back by notification or own free */
    MT_SLAB_WF_STATE = 3,
    MT_SLAB_WF_ALIGNED = 4, /* an aligned address inside a block was handed out */
    MT_SLAB_WF_TAGS = 7
};
enum { MT_SLAB_WF_OWNED = 1, MT_SLAB_WF_ABANDONED = 2 };           /* heap states */
enum { MT_SLAB_WF_NEW = 0, MT_SLAB_WF_ACTIVE, MT_SLAB_WF_EXITED }; /* thread states */
enum { MT_SLAB_WF_OP_ALLOC, MT_SLAB_WF_OP_FREE_LOCAL, MT_SLAB_WF_OP_FREE_REMOTE, MT_SLAB_WF_OPS };

typedef struct mt_slab_wf_slab mt_slab_wf_slab;
struct mt_slab_wf_slab {
    /* Line 0: read by every free, the owner's and others'; written only
     * when the slab changes hands or state, so a remote free's read of it
     * does not meet the owner's writes of line 1. cls and csize do not
     * change while the slab has live blocks. */
    _Atomic(uintptr_t) ostate; /* heap | ALIGNED | state */
    uint32_t cls, csize, capacity;
    uint32_t granules; /* slab length in granules */
    /* Line 1: the holder's (owner, adopter or purger), written by its frees. */
    _Alignas(MT_CACHELINE) void *free; /* own frees (current: collected when the bin runs dry) */
    uint32_t used;                     /* handed out - own frees - spliced, mod 2^32 (current:
                                        * + the TLS used[cls]) */
    uint32_t carved;                   /* blocks [0, carved) have been handed out once */
    void *rchain;                      /* remote blocks taken over, stopped at a PENDING link */
    mt_slab_wf_slab *prev, *next;      /* partial list (circular) / empty cache */
    /* Line 2: written by remote frees. */
    _Alignas(MT_CACHELINE) _Atomic(void *) rhead; /* remote-free stack, or MARK */
    _Atomic(mt_slab_wf_slab *) nnext;             /* link in the owner heap's notification stack */
    _Atomic(uint32_t) remote;                     /* remote frees completed, mod 2^32 */
    uint32_t spliced;                             /* holder: remote-freed blocks taken back, mod 2^32 */
    uint8_t marked;                               /* holder: rhead may still hold MARK */
    uint8_t notify_pending;                       /* holder: a notification of this slab is due */
    uint8_t zeroed;                               /* blocks from `carved` on are zero-filled */
    uintptr_t prev_entry;                         /* page-map entry of the layer below */
};
#define MT_SLAB_WF_HDR ((uintptr_t)sizeof(mt_slab_wf_slab))
_Static_assert(sizeof(mt_slab_wf_slab) == 3 * MT_CACHELINE, "slab_wf: header is three lines");

typedef struct {
    size_t slabs, heaps;
} mt_slab_wf_stat;

/* Cache colours: a slab's header sits 0 to MT_SLAB_WF_COLORS - 1 cache lines
 * below the slab's end, by the slab's address. Headers at one offset of
 * 64 KiB-aligned slabs all fell into one cache set, and every free reads
 * one. The page map names the header,
 * so finding it costs nothing more; the slab start is the header's granule
 * less the slab's other granules. */
#define MT_SLAB_WF_COLORS 8
#define MT_SLAB_WF_RESERVE (MT_SLAB_WF_HDR + (MT_SLAB_WF_COLORS - 1) * (uintptr_t)MT_CACHELINE)
_Static_assert((MT_SLAB_WF_COLORS & (MT_SLAB_WF_COLORS - 1)) == 0, "slab_wf: colours a power of two");

MT_INLINE uintptr_t mt_slab_wf_base(const mt_slab_wf_slab *s)
{
    return ((uintptr_t)s & ~(uintptr_t)(MT_GRANULE - 1)) - ((uintptr_t)(s->granules - 1) << MT_GRANULE_SHIFT);
}
/* Where the header of the slab [base, base + len) goes. */
MT_INLINE mt_slab_wf_slab *mt_slab_wf_header_at(uintptr_t base, size_t len)
{
    uintptr_t color = (base >> MT_GRANULE_SHIFT) & (MT_SLAB_WF_COLORS - 1);
    return (mt_slab_wf_slab *)(base + len - MT_SLAB_WF_HDR - color * MT_CACHELINE);
}
/* A free block's first word: the link of the remote-free stack it is on. */
typedef _Atomic(void *) mt_slab_wf_link_word;
MT_INLINE mt_slab_wf_link_word *mt_slab_wf_link(void *block) { return (mt_slab_wf_link_word *)block; }
MT_INLINE uintptr_t mt_slab_wf_state(const mt_slab_wf_slab *s)
{
    return mt_load_relaxed(&s->ostate) & MT_SLAB_WF_STATE;
}
MT_INLINE void mt_slab_wf_set_state(mt_slab_wf_slab *s, uintptr_t state)
{
    uintptr_t st = mt_load_relaxed(&s->ostate);
    mt_store_relaxed(&s->ostate, (st & ~(uintptr_t)MT_SLAB_WF_STATE) | state);
}
/* The block holding p (an aligned address handed out inside a block). */
MT_INLINE void *mt_slab_wf_unalign(const mt_slab_wf_slab *s, const void *p)
{
    uintptr_t base = mt_slab_wf_base(s), off = (uintptr_t)p - base;
    return (void *)(base + off - off % s->csize);
}
/* In use: blocks handed out by holders, not freed by them, not remotely
 * freed; `used` is the slab's count (with the TLS one for a current slab). */
MT_INLINE uint32_t mt_slab_wf_in_use(mt_slab_wf_slab *s, uint32_t used)
{
    return used + s->spliced - atomic_load_explicit(&s->remote, memory_order_acquire);
}
#endif /* MORTISE_LAYERS_SLAB_WF_TYPES */

/* ---- the instance ---- */
enum { slab_wf_id = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)
MT_DECLARE_BELOW(free); /* slabs go back below from free, thread_exit and purge */
#include "../written/slab_wf/policy_sizeclass_slot.inl"
/* The per-thread class table: slab_wf_bins, class_size, class_index, top
 * (requests below it are served), [first, end) the served classes, takes
 * (size and alignment the fast path serves); size_handle must be finite. */
#define MT_CACHE_BINS MT_SLAB_WF_BINS
#include "../written/slab_wf/cache_classes.inl"
#include "../written/slab_wf/safety_link_check.inl" /* link_check, err_handle */

/* Aligned classes: blocks of a power of two from 32 B to 32 KiB, after the
 * policy's classes in the tables. An aligned request whose policy class is
 * not a multiple of the alignment gets the power of two at or above
 * max(size, alignment): blocks sit at multiples of their size from the
 * 64 KiB-aligned slab start, so every block is aligned as asked, and its
 * frees take the fast path. (The prime policy's classes above 128 B are an
 * odd number of 16-byte units: none is a multiple of 32.) A policy class of
 * exactly that size serves instead when there is one. */
enum {
    slab_wf_aligned_lg_min = 5,  /* 32 B */
    slab_wf_aligned_lg_max = 15, /* 32 KiB: half a granule, the largest alignment served */
    slab_wf_classes = slab_wf_bins + slab_wf_aligned_lg_max - slab_wf_aligned_lg_min + 1
};
/* A class's block size, the policy's or an aligned class's. */
MT_INLINE size_t slab_wf_csize(size_t c)
{
    return c < slab_wf_bins ? slab_wf_class_size(c)
                            : (size_t)1 << (c - slab_wf_bins + slab_wf_aligned_lg_min);
}
/* The classes served, in order: the policy's [first, end), then the aligned
 * ones up to slab_wf_classes. */
MT_INLINE size_t slab_wf_class_next(size_t c)
{
    return c + 1 == slab_wf_end() ? (size_t)slab_wf_bins : c + 1;
}
MT_INLINE bool slab_wf_class_served(size_t c)
{
    return slab_wf_covers(c) || (c >= slab_wf_bins && c < slab_wf_classes);
}
/* The class for `size` at `align` (16 < align <= 32 KiB) whose blocks are all
 * aligned, or SIZE_MAX: above 32 KiB. */
MT_INLINE size_t slab_wf_pow2_class(size_t size, size_t align)
{
    size_t need = size > align ? size : align;
    if (need > ((size_t)1 << slab_wf_aligned_lg_max))
        return SIZE_MAX;
    unsigned lg = mt_log2_ceil(need);
    lg = lg > slab_wf_aligned_lg_min ? lg : slab_wf_aligned_lg_min;
    size_t pc = slab_wf_class_index((size_t)1 << lg);
    if (slab_wf_covers(pc) && slab_wf_class_size(pc) == (size_t)1 << lg)
        return pc;
    return slab_wf_bins + lg - slab_wf_aligned_lg_min;
}

/* Worst-case steps of one operation served without the layer below: loop
 * iterations plus atomic read-modify-writes (docs/slab_wf.md derives them).
 * A refill is a splice (one XCHG and a pop) or a carve (< K links). */
enum {
    slab_wf_collect = MT_SLAB_WF_COLLECT,
    slab_wf_bound_refill = MT_SLAB_WF_COLLECT + 1,
    slab_wf_bound_alloc = 1 + slab_wf_bound_refill + 1 +
                          MT_SLAB_WF_TRIES * (1 + 4 + 1 + slab_wf_bound_refill + 1) + slab_wf_classes +
                          MT_SLAB_WF_SWEEP * (1 + 1 + 2) + slab_wf_bound_refill,
    slab_wf_bound_free_local = 2,
    slab_wf_bound_free_remote = 4
};

typedef struct slab_wf_heap slab_wf_heap;
struct slab_wf_heap {
    _Atomic(uintptr_t) state; /* OWNED / ABANDONED */
    slab_wf_heap *reg_next;   /* registry of every heap ever made */
    mt_slab_wf_slab *empty;   /* cache of empty slab_size slabs */
    uint32_t nempty;
    uint32_t sweep;                            /* the class reclaim looks at next */
    mt_slab_wf_slab *cur[slab_wf_classes];     /* current slabs while abandoned */
    mt_slab_wf_slab *partial[slab_wf_classes]; /* circular lists */
    mt_slab_wf_slab *nchain[slab_wf_classes];  /* notifications taken, not yet read */
    _Alignas(MT_CACHELINE) _Atomic(mt_slab_wf_slab *) notify[slab_wf_classes];
};
_Static_assert(sizeof(slab_wf_heap) <= MT_GRANULE, "slab_wf: heap record exceeds a granule");

static struct {
    _Atomic(slab_wf_heap *) heaps; /* registry, push-only */
    _Atomic(size_t) slabs, nheaps; /* slabs held from below, heaps made */
    _Atomic(uint32_t) steps_max[MT_SLAB_WF_OPS];
} slab_wf_state;

/* Per class, the current slab's bin: free[c] the blocks alloc pops, used[c]
 * its hand-outs since the slab became current (the slab's own count has the
 * rest). Two arrays, so that the fast path indexes both with the class in
 * one addressing mode each. */
static MT_TLS struct {
    void *free[slab_wf_classes];
    uint32_t used[slab_wf_classes];
    /* 1 + used[c] when the bin became a remote chain, taken over whole and
     * not walked: its blocks leave the slab's count when the bin ends
     * (slab_wf_settle); else 0 */
    uint32_t lazy[slab_wf_classes];
    mt_slab_wf_slab *cur[slab_wf_classes];
    uintptr_t tag; /* heap | LISTED while the thread holds a heap, else 0 */
    slab_wf_heap *heap;
    int state;
} slab_wf_tl;

/* Step counting (MT_SLAB_WF_STEPS): per thread, the steps of the running
 * operation and the largest seen per kind; operations that reached the layer
 * below are not counted (outside the bound). */
static MT_TLS struct {
    uint32_t now, max[MT_SLAB_WF_OPS];
    bool below;
} slab_wf_steps;

MT_INLINE void slab_wf_step_begin(void)
{
    if (MT_SLAB_WF_STEPS) {
        slab_wf_steps.now = 1;
        slab_wf_steps.below = false;
    }
}
MT_INLINE void slab_wf_step(void)
{
    if (MT_SLAB_WF_STEPS)
        slab_wf_steps.now++;
}
MT_INLINE void slab_wf_step_below(void)
{
    if (MT_SLAB_WF_STEPS)
        slab_wf_steps.below = true;
}
/* A new per-thread maximum also goes to the process-wide one (threads that
 * only free never attach, so their exit cannot be relied on to report). */
MT_SLOW void slab_wf_step_record(int op)
{
    uint32_t mine = slab_wf_steps.max[op] = slab_wf_steps.now;
    uint32_t seen = mt_load_relaxed(&slab_wf_state.steps_max[op]);
    while (mine > seen && !mt_cas(&slab_wf_state.steps_max[op], &seen, mine))
        ;
}
MT_INLINE void slab_wf_step_end(int op)
{
    if (MT_SLAB_WF_STEPS && !slab_wf_steps.below && slab_wf_steps.now > slab_wf_steps.max[op])
        slab_wf_step_record(op);
}

MT_INLINE size_t slab_wf_slab_len(size_t c)
{
    size_t need = mt_align_up(MT_SLAB_WF_MIN_BLOCKS * slab_wf_csize(c) + MT_SLAB_WF_RESERVE, MT_GRANULE);
    return need > MT_SLAB_SIZE ? need : MT_SLAB_SIZE;
}
/* Blocks one carve threads: K, but no more than a page's worth (at least one),
 * so a carve touches at most two fresh pages. */
MT_INLINE uint32_t slab_wf_carve_batch(uint32_t csize)
{
    uint32_t n = (uint32_t)(MT_PAGE_SIZE / csize);
    n = n < MT_SLAB_WF_COLLECT ? n : MT_SLAB_WF_COLLECT;
    return n ? n : 1;
}

/* ---- slabs ---- */

static void slab_wf_format(slab_wf_heap *h, mt_slab_wf_slab *s, size_t c, size_t granules)
{
    s->free = NULL;
    mt_store_relaxed(&s->ostate, (uintptr_t)h | MT_SLAB_WF_EMPTY);
    s->used = 0;
    s->cls = (uint32_t)c;
    s->csize = (uint32_t)slab_wf_csize(c);
    s->granules = (uint32_t)granules;
    s->capacity = (uint32_t)(((uintptr_t)s - mt_slab_wf_base(s)) / s->csize);
    s->carved = 0;
    s->rchain = NULL;
    s->prev = s->next = NULL;
    mt_store_relaxed(&s->rhead, NULL);
    mt_store_relaxed(&s->nnext, NULL);
    mt_store_relaxed(&s->remote, 0);
    s->spliced = 0;
    s->marked = s->notify_pending = s->zeroed = 0;
}

/* A fresh slab of class c from the layer below (`next` is its alloc chain). */
MT_SLOW mt_slab_wf_slab *slab_wf_new_slab(mt_ctx *ctx, slab_wf_heap *h, size_t c, mt_lfunc *next)
{
    size_t len = slab_wf_slab_len(c);
    mt_ctx sub = mt_ctx_for_alloc(len, MT_GRANULE);
    slab_wf_step_below();
    char *base = next(&sub);
    if (!base) {
        ctx->err = sub.err ? sub.err : MT_ENOMEM;
        return NULL;
    }
    mt_slab_wf_slab *s = mt_slab_wf_header_at((uintptr_t)base, len);
    slab_wf_format(h, s, c, len >> MT_GRANULE_SHIFT);
    s->zeroed = sub.zeroed == base;
    s->prev_entry = mt_span_claim(base, len, MT_SELF_ID, mt_payload_of(s));
    atomic_fetch_add_explicit(&slab_wf_state.slabs, 1, memory_order_relaxed);
    return s;
}

/* Hand a slab back below. Only when no block of it is in use: then every
 * remote free into it has completed its last step (docs/slab_wf.md). */
MT_SLOW void slab_wf_release(mt_slab_wf_slab *s, mt_lfunc *free_below)
{
    uintptr_t base = mt_slab_wf_base(s);
    size_t len = (size_t)s->granules << MT_GRANULE_SHIFT;
    slab_wf_step_below();
    atomic_fetch_sub_explicit(&slab_wf_state.slabs, 1, memory_order_relaxed);
    mt_span_release((void *)base, len, s->prev_entry, free_below);
}

/* The holder learns whether the MARK it once left is still there: afterwards
 * marked is 0, and notify_pending says whether a notification is on its way. */
MT_INLINE void slab_wf_resolve(mt_slab_wf_slab *s)
{
    if (s->marked) {
        void *mark = MT_SLAB_WF_MARK;
        s->marked = 0;
        slab_wf_step();
        if (!mt_cas(&s->rhead, &mark, NULL))
            s->notify_pending = 1;
    }
}

/* Free and no notification due: may go to the cache or below. */
static bool slab_wf_releasable(mt_slab_wf_slab *s)
{
    if (mt_slab_wf_in_use(s, s->used))
        return false;
    slab_wf_resolve(s);
    return !s->notify_pending;
}

static void slab_wf_partial_add(slab_wf_heap *h, size_t c, mt_slab_wf_slab *s, bool at_head)
{
    mt_slab_wf_slab *head = h->partial[c];
    mt_slab_wf_set_state(s, MT_SLAB_WF_LISTED);
    if (!head) {
        s->prev = s->next = s;
        h->partial[c] = s;
        return;
    }
    s->next = head;
    s->prev = head->prev;
    head->prev->next = s;
    head->prev = s;
    if (at_head)
        h->partial[c] = s;
}

static void slab_wf_partial_remove(slab_wf_heap *h, size_t c, mt_slab_wf_slab *s)
{
    if (s->next == s) {
        h->partial[c] = NULL;
    } else {
        s->prev->next = s->next;
        s->next->prev = s->prev;
        if (h->partial[c] == s)
            h->partial[c] = s->next;
    }
    s->prev = s->next = NULL;
}

/* An empty slab: into the cache if it has the standard length and there is
 * room (tllabs), else back below. */
static void slab_wf_empty_put(slab_wf_heap *h, mt_slab_wf_slab *s, mt_lfunc *free_below)
{
    if (((size_t)s->granules << MT_GRANULE_SHIFT) == MT_SLAB_SIZE && h->nempty < MT_TLLABS) {
        mt_slab_wf_set_state(s, MT_SLAB_WF_EMPTY);
        s->next = h->empty;
        h->empty = s;
        h->nempty++;
        return;
    }
    slab_wf_release(s, free_below);
}

static mt_slab_wf_slab *slab_wf_empty_take(slab_wf_heap *h, size_t c)
{
    mt_slab_wf_slab *s = h->empty;
    if (!s || slab_wf_slab_len(c) != MT_SLAB_SIZE)
        return NULL;
    h->empty = s->next;
    h->nempty--;
    slab_wf_format(h, s, c, MT_SLAB_SIZE >> MT_GRANULE_SHIFT);
    return s;
}

/* Up to `limit` notified slabs of class c are read; returns the first that is
 * FULL (needs a home), NULL if none: the stack is empty, or its top's link is
 * not written yet (the chain is parked and read again next time). */
static mt_slab_wf_slab *slab_wf_notified(slab_wf_heap *h, size_t c, size_t limit)
{
    for (size_t i = 0; i < limit; i++) {
        mt_slab_wf_slab *s = h->nchain[c];
        if (!s) {
            if (!mt_load_relaxed(&h->notify[c]))
                return NULL;
            slab_wf_step();
            s = mt_fas(&h->notify[c], NULL);
        }
        slab_wf_step();
        mt_slab_wf_slab *nx = atomic_load_explicit(&s->nnext, memory_order_acquire);
        if (nx == (mt_slab_wf_slab *)MT_SLAB_WF_PENDING) {
            h->nchain[c] = s;
            return NULL;
        }
        h->nchain[c] = nx;
        s->marked = 0; /* the notification says the MARK was taken */
        s->notify_pending = 0;
        if (mt_slab_wf_state(s) == MT_SLAB_WF_FULL)
            return s;
        /* a free of the owner listed it already */
    }
    return NULL;
}

/* ---- the current slab of a class (TLS bin) ---- */

/* link_check: a link read from the free block p is followed only if it is
 * a block start of p's slab. Near: inside p's granule and short of where a
 * slab header could start (one unsigned compare of the link's offset from
 * p's granule, inline on the fast path); the rest is checked exactly, out
 * of line. A bad link is reported and the list ends at p. */
MT_INLINE bool slab_wf_link_near(const void *p, const void *link)
{
    uintptr_t granule = (uintptr_t)p & ~(uintptr_t)(MT_GRANULE - 1);
    return (uintptr_t)link - granule < MT_GRANULE - MT_SLAB_WF_RESERVE;
}

MT_SLOW void *slab_wf_link_far(void *p, void *link)
{
    if (!link)
        return NULL;
    uintptr_t e = mt_pagemap_get(p);
    const mt_slab_wf_slab *s = (const mt_slab_wf_slab *)mt_entry_payload(e);
    uintptr_t off = (uintptr_t)link - mt_slab_wf_base(s);
    if (mt_pagemap_get(link) == e && off < (uintptr_t)s->capacity * s->csize && off % s->csize == 0)
        return link;
    mt_store_relaxed(mt_slab_wf_link(p), NULL); /* cut: no later walk meets the link again */
    slab_wf_link_broken(p, "alloc");
    return NULL;
}

MT_INLINE void *slab_wf_next_of(void *p, void *link)
{
    if (MT_LINK_CHECK && MT_UNLIKELY(!slab_wf_link_near(p, link)))
        return slab_wf_link_far(p, link);
    return link;
}

/* The bin of class c takes s's free list; the slab's own list starts again
 * empty and gathers the owner's frees from now on. */
static void slab_wf_make_current(size_t c, mt_slab_wf_slab *s)
{
    slab_wf_resolve(s);
    slab_wf_tl.cur[c] = s;
    slab_wf_tl.free[c] = s->free;
    slab_wf_tl.used[c] = 0;
    MT_ASSERT(!slab_wf_tl.lazy[c]); /* the slab before settled when it left */
    s->free = NULL;
    mt_slab_wf_set_state(s, MT_SLAB_WF_LISTED);
}

/* A remote chain the bin of c took over whole has ended (run dry, stopped at
 * a PENDING link, or `unpopped` of its blocks went back to the slab's own
 * list): the blocks it gave leave the slab's count for `spliced`, as a
 * walking splice counts them, so that the count reaching 0 in the owner's
 * free still means every block came back. */
MT_INLINE void slab_wf_settle(size_t c, mt_slab_wf_slab *s, uint32_t unpopped)
{
    if (!slab_wf_tl.lazy[c])
        return;
    uint32_t taken = slab_wf_tl.used[c] - (slab_wf_tl.lazy[c] - 1) + unpopped;
    s->used -= taken;
    s->spliced += taken;
    slab_wf_tl.lazy[c] = 0;
}

/* The current slab of c leaves the bin: the bin's blocks go back in front of
 * the owner's frees (a walk of the bin; it is empty but when the heap is
 * saved: thread exit, purge, fork), its hand-outs into the slab's count. */
static mt_slab_wf_slab *slab_wf_demote(size_t c)
{
    mt_slab_wf_slab *s = slab_wf_tl.cur[c];
    void *last = NULL, *n = slab_wf_tl.free[c];
    uint32_t moved = 0;
    while (n) { /* a remote chain's block with a PENDING link ends it: rchain */
        void *link = atomic_load_explicit(mt_slab_wf_link(n), memory_order_acquire);
        if (link == MT_SLAB_WF_PENDING) {
            s->rchain = n;
            break;
        }
        last = n;
        moved++;
        n = slab_wf_next_of(n, link);
    }
    if (last) {
        *(void **)last = s->free;
        s->free = slab_wf_tl.free[c];
    }
    slab_wf_settle(c, s, moved);
    s->used += slab_wf_tl.used[c];
    slab_wf_tl.free[c] = NULL;
    slab_wf_tl.used[c] = 0;
    slab_wf_tl.cur[c] = NULL;
    return s;
}

/* The bin's first block, or NULL when its link is still PENDING (a remote
 * free between its exchange and its link store will write that word): the
 * block is not handed out but goes back to the slab's rchain, never waited
 * for, and the bin ends. */
MT_INLINE void *slab_wf_pop(size_t c)
{
    void *p = slab_wf_tl.free[c];
    void *link = atomic_load_explicit(mt_slab_wf_link(p), memory_order_acquire);
    if (MT_UNLIKELY(link == MT_SLAB_WF_PENDING)) {
        slab_wf_tl.free[c] = NULL;
        slab_wf_tl.cur[c]->rchain = p;
        return NULL;
    }
    slab_wf_tl.free[c] = slab_wf_next_of(p, link);
    slab_wf_tl.used[c]++;
    return p;
}

/* The owner's frees into its current slab s become the bin of class c (one
 * list moved, whatever its length) and one is popped. */
static void *slab_wf_take_own(mt_slab_wf_slab *s, size_t c)
{
    if (!s->free)
        return NULL;
    slab_wf_tl.free[c] = s->free;
    s->free = NULL;
    return slab_wf_pop(c);
}

/* The remote-freed blocks of the current slab s become the (empty) bin of
 * class c as they are, and one is popped: rchain if a block stopped there,
 * else the whole remote stack (one XCHG). No walk: the links were written on
 * other cores, and a walk would wait for each in turn, where the pops meet
 * each block just before the program touches it. A PENDING link is met by
 * the pop that reaches it (slab_wf_pop), the count when the bin ends
 * (slab_wf_settle). */
static void *slab_wf_splice(mt_slab_wf_slab *s, size_t c)
{
    void *n = s->rchain;
    if (!n) {
        void *head = mt_load_relaxed(&s->rhead);
        if (!head || head == MT_SLAB_WF_MARK)
            return NULL;
        slab_wf_step();
        n = mt_fas(&s->rhead, NULL);
    }
    s->rchain = NULL;
    slab_wf_tl.free[c] = n;
    slab_wf_tl.lazy[c] = slab_wf_tl.used[c] + 1;
    return slab_wf_pop(c);
}

/* Thread the next never-used blocks of s into the (empty) bin of class c;
 * the first is returned untouched (zero-filled if the slab came so from
 * below). */
static void *slab_wf_carve(mt_ctx *ctx, mt_slab_wf_slab *s, size_t c)
{
    uint32_t left = s->capacity - s->carved, n = slab_wf_carve_batch(s->csize);
    if (!left)
        return NULL;
    n = n < left ? n : left;
    uintptr_t first = mt_slab_wf_base(s) + (uintptr_t)s->carved * s->csize;
    void *rest = NULL;
    for (uint32_t i = n - 1; i >= 1; i--) {
        slab_wf_step();
        uintptr_t block = first + (uintptr_t)i * s->csize;
        *(void **)block = rest;
        mt_fresh_head((void *)block);
        rest = (void *)block;
    }
    mt_fresh_head((void *)first);
    s->carved += n;
    slab_wf_tl.free[c] = rest;
    slab_wf_tl.used[c]++;
    if (s->zeroed)
        ctx->zeroed = (void *)first;
    return (void *)first;
}

/* The bin of the current slab s ran dry: the owner's frees first (the
 * slab's own list), then remote frees, then untouched blocks. */
static void *slab_wf_refill(mt_ctx *ctx, mt_slab_wf_slab *s, size_t c)
{
    slab_wf_settle(c, s, 0);
    void *p = slab_wf_take_own(s, c);
    if (!p)
        p = slab_wf_splice(s, c);
    return p ? p : slab_wf_carve(ctx, s, c);
}

/* The current slab of c gave nothing: it leaves the bin. With blocks parked
 * behind a PENDING link it stays listed; otherwise the owner leaves MARK so
 * that the first remote free notifies it (or waits for the notification
 * already due). */
static void slab_wf_retire(slab_wf_heap *h, size_t c)
{
    mt_slab_wf_slab *s = slab_wf_demote(c);
    if (s->rchain) {
        slab_wf_partial_add(h, c, s, false);
        return;
    }
    if (!s->notify_pending) {
        void *empty = NULL;
        slab_wf_step();
        if (!mt_cas(&s->rhead, &empty, MT_SLAB_WF_MARK)) { /* blocks came in meanwhile */
            slab_wf_partial_add(h, c, s, false);
            return;
        }
        s->marked = 1;
    }
    mt_slab_wf_set_state(s, MT_SLAB_WF_FULL);
}

/* The cache is empty and a class wants a slab: before asking below, look at
 * up to SWEEP slabs of the heap's other classes for one that frees emptied
 * (remote frees mostly: the owner hears of those only when it refills that
 * class, which a program that moved on to other sizes never does). A visit
 * takes the head of a class's partial list into the cache if no block of it
 * is in use; else lists one notified slab of the class at the head, to be
 * looked at next; else turns the list and moves to the next class. At most
 * SWEEP visits and one pass over the classes (an idle class costs a step). Without it every change of sizes took fresh
 * slabs (and page faults) while the old ones sat empty: wcet_test. */
static void slab_wf_reclaim(slab_wf_heap *h, mt_lfunc *free_below)
{
    size_t c = h->sweep, passed = 0;
    /* clang-format off */
    for (int visit = 0; visit < MT_SLAB_WF_SWEEP && passed < slab_wf_classes && !h->empty;) {
        /* clang-format on */
        slab_wf_step();
        if (!slab_wf_class_served(c))
            c = slab_wf_first();
        mt_slab_wf_slab *s = h->partial[c], *n;
        if (!s && !h->nchain[c] && !mt_load_relaxed(&h->notify[c])) {
            c = slab_wf_class_next(c), passed++; /* nothing here: a pass costs a few loads, not a visit */
            continue;
        }
        visit++;
        if (s && slab_wf_releasable(s)) {
            slab_wf_partial_remove(h, c, s);
            slab_wf_empty_put(h, s, free_below);
        } else if ((n = slab_wf_notified(h, c, 1))) {
            slab_wf_partial_add(h, c, n, true); /* looked at next visit */
        } else {
            if (s)
                h->partial[c] = s->next;
            c = slab_wf_class_next(c), passed++;
        }
    }
    h->sweep = (uint32_t)c;
}

/* A block of class c for the calling thread, which holds a heap. */
static void *slab_wf_class_alloc(mt_ctx *ctx, size_t c, mt_lfunc *next)
{
    slab_wf_heap *h = slab_wf_tl.heap;
    mt_slab_wf_slab *s = slab_wf_tl.cur[c];
    void *p;
    if (slab_wf_tl.free[c] && (p = slab_wf_pop(c)))
        return p;
    if (s) {
        if ((p = slab_wf_refill(ctx, s, c)))
            return p;
        slab_wf_retire(h, c);
    }
    for (int t = 0; t < MT_SLAB_WF_TRIES; t++) {
        slab_wf_step();
        if ((s = h->partial[c]))
            slab_wf_partial_remove(h, c, s);
        else if (!(s = slab_wf_notified(h, c, 2)))
            break;
        slab_wf_make_current(c, s);
        if (slab_wf_tl.free[c] && (p = slab_wf_pop(c)))
            return p;
        if ((p = slab_wf_refill(ctx, s, c)))
            return p;
        slab_wf_retire(h, c);
    }
    if (!h->empty)
        slab_wf_reclaim(h, MT_BELOW(free));
    if (!(s = slab_wf_empty_take(h, c)) && !(s = slab_wf_new_slab(ctx, h, c, next)))
        return NULL;
    slab_wf_make_current(c, s);
    return slab_wf_carve(ctx, s, c);
}

/* ---- heaps ---- */

static void slab_wf_load(slab_wf_heap *h)
{
    for (size_t c = slab_wf_first(); c < slab_wf_classes; c = slab_wf_class_next(c)) {
        mt_slab_wf_slab *s = h->cur[c];
        h->cur[c] = NULL;
        slab_wf_tl.cur[c] = s;
        slab_wf_tl.free[c] = s ? s->free : NULL;
        slab_wf_tl.used[c] = 0;
        slab_wf_tl.lazy[c] = 0;
        if (s)
            s->free = NULL;
    }
}

static void slab_wf_save(slab_wf_heap *h)
{
    for (size_t c = slab_wf_first(); c < slab_wf_classes; c = slab_wf_class_next(c))
        h->cur[c] = slab_wf_tl.cur[c] ? slab_wf_demote(c) : NULL;
}

static void slab_wf_adopt(slab_wf_heap *h)
{
    slab_wf_tl.heap = h;
    slab_wf_tl.tag = (uintptr_t)h | MT_SLAB_WF_LISTED;
    slab_wf_load(h);
}

/* Give up the heap (already saved): the next new thread may adopt it. */
static void slab_wf_disown(slab_wf_heap *h)
{
    slab_wf_tl.heap = NULL;
    slab_wf_tl.tag = 0;
    mt_store_release(&h->state, MT_SLAB_WF_ABANDONED);
}

/* An abandoned heap (first come, first served) or a new one from below. */
MT_SLOW slab_wf_heap *slab_wf_acquire(mt_lfunc *next)
{
    slab_wf_heap *h;
    slab_wf_step_below();
    for (h = mt_load_acquire(&slab_wf_state.heaps); h; h = h->reg_next) {
        uintptr_t want = MT_SLAB_WF_ABANDONED;
        if (mt_load_relaxed(&h->state) == want && mt_cas(&h->state, &want, MT_SLAB_WF_OWNED))
            return h;
    }
    mt_ctx sub = mt_ctx_for_alloc(sizeof *h, MT_GRANULE);
    if (!(h = next(&sub)))
        return NULL;
    if (sub.zeroed != (void *)h)
        __builtin_memset(h, 0, sizeof *h);
    mt_store_relaxed(&h->state, MT_SLAB_WF_OWNED);
    slab_wf_heap *top = mt_load_relaxed(&slab_wf_state.heaps);
    do
        h->reg_next = top;
    while (!atomic_compare_exchange_weak_explicit(&slab_wf_state.heaps, &top, h, memory_order_release,
                                                  memory_order_relaxed));
    atomic_fetch_add_explicit(&slab_wf_state.nheaps, 1, memory_order_relaxed);
    return h;
}

/* Bring notified slabs home, then give back every slab with no block in use:
 * current and partial slabs, and the cache. The caller holds h (saved). */
static bool slab_wf_tidy(slab_wf_heap *h, mt_lfunc *free_below)
{
    bool any = false;
    for (size_t c = slab_wf_first(); c < slab_wf_classes; c = slab_wf_class_next(c)) {
        mt_slab_wf_slab *s, *list;
        while ((s = slab_wf_notified(h, c, SIZE_MAX)))
            slab_wf_partial_add(h, c, s, false);
        if ((s = h->cur[c]) && slab_wf_releasable(s)) {
            h->cur[c] = NULL;
            slab_wf_release(s, free_below);
            any = true;
        }
        if ((list = h->partial[c])) {
            h->partial[c] = NULL;
            list->prev->next = NULL;
            while ((s = list)) {
                list = s->next;
                if (slab_wf_releasable(s)) {
                    slab_wf_release(s, free_below);
                    any = true;
                } else {
                    slab_wf_partial_add(h, c, s, false);
                }
            }
        }
    }
    while (h->empty) {
        mt_slab_wf_slab *s = h->empty;
        h->empty = s->next;
        slab_wf_release(s, free_below);
        any = true;
    }
    h->nempty = 0;
    return any;
}

/* The thread's first use: attach it (so thread_exit runs) and take a heap. */
MT_SLOW bool slab_wf_start(mt_lfunc *next)
{
    if (slab_wf_tl.state == MT_SLAB_WF_NEW) {
        mt_thread_attach();                   /* runs create, which makes the thread active */
        slab_wf_tl.state = MT_SLAB_WF_ACTIVE; /* a socket without threads attaches nobody */
    }
    slab_wf_heap *h = slab_wf_acquire(next);
    if (!h)
        return false;
    slab_wf_adopt(h);
    return true;
}

/* A block of class c for the current heap, at `align` (> 16 only when the
 * class size is not a multiple of it: the class then has room to shift). */
static void *slab_wf_serve(mt_ctx *ctx, size_t c, size_t align, mt_lfunc *next)
{
    void *p = slab_wf_class_alloc(ctx, c, next);
    if (p && ((uintptr_t)p & (align - 1))) {
        mt_slab_wf_slab *s = slab_wf_tl.cur[c];
        void *q = (void *)mt_align_up((uintptr_t)p, align);
        mt_store_relaxed(&s->ostate, mt_load_relaxed(&s->ostate) | MT_SLAB_WF_ALIGNED);
        if (ctx->zeroed == p)
            ctx->zeroed = q;
        p = q;
    }
    return p;
}

/* Everything the fast path does not serve: another size or alignment, an
 * empty bin, a thread without a heap (first use, or after its exit: then a
 * heap is borrowed for this one request). */
MT_SLOW void *slab_wf_alloc_slow(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size = ctx->size, align = ctx->align, c;
    if (!mt_size_in(size, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), slab_wf_top()))
        return next(ctx);
    c = slab_wf_class_index(size);
    if (align > MT_MIN_ALIGN) {
        if (align > MT_GRANULE / 2)
            return next(ctx);
        if (slab_wf_class_size(c) & (align - 1) && (c = slab_wf_pow2_class(size, align)) == SIZE_MAX) {
            /* above 32 KiB: a block of `want` from a policy class, the
             * aligned address inside it handed out. The shift is at most
             * align - 16, so max(size, 1) bytes after it stay inside */
            size_t want = (size ? size : 1) + align - MT_MIN_ALIGN;
            if (!mt_size_in(want, 0, slab_wf_top()))
                return next(ctx);
            c = slab_wf_class_index(want);
        }
    }
    void *p;
    if (MT_UNLIKELY(!slab_wf_tl.heap)) {
        if (slab_wf_tl.state == MT_SLAB_WF_EXITED) {
            slab_wf_heap *h = slab_wf_acquire(next);
            if (!h) {
                ctx->err = MT_ENOMEM;
                return NULL;
            }
            slab_wf_adopt(h);
            p = slab_wf_serve(ctx, c, align, next);
            slab_wf_save(h);
            slab_wf_disown(h);
            return p;
        }
        if (!slab_wf_start(next)) {
            ctx->err = MT_ENOMEM;
            return NULL;
        }
    }
    p = slab_wf_serve(ctx, c, align, next);
    slab_wf_step_end(MT_SLAB_WF_OP_ALLOC);
    return p;
}

/* Fast path: a range check, the class index, a pop from the TLS bin. An
 * empty bin first takes the owner's frees into the current slab, inline too
 * (a program that frees what it allocated empties the bin once per round of
 * each class). With link_check a link that is not near goes to the slow
 * path (its pop checks it exactly), which the fast path calls anyway: no
 * stack frame here. */
#define MT_IMPLEMENTS_alloc
MT_INLINE void *slab_wf_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size = ctx->size;
    slab_wf_step_begin();
    if (slab_wf_takes(size, ctx->align)) {
        size_t c = slab_wf_class_index(size);
        void *p = slab_wf_tl.free[c];
        mt_slab_wf_slab *s;
        /* the own list once a remote chain's count is settled (slow path) */
        if (MT_UNLIKELY(!p) && !slab_wf_tl.lazy[c] && (s = slab_wf_tl.cur[c]) && (p = s->free)) {
            s->free = NULL; /* the bin takes the list, also for the slow path */
            slab_wf_tl.free[c] = p;
        }
        if (MT_LIKELY(p)) {
            /* acquire: a remote chain's link may be the remote free's last
             * store, after which the block is ours */
            void *rest = atomic_load_explicit(mt_slab_wf_link(p), memory_order_acquire);
            /* NULL ends every bin: taken inline (link_far would return it
             * unreported), so the last block of a bin costs no call; a
             * PENDING link keeps its block (slab_wf_pop) */
            if (MT_LIKELY(rest != MT_SLAB_WF_PENDING) &&
                (!MT_LINK_CHECK || MT_LIKELY(slab_wf_link_near(p, rest)) || !rest)) {
                MT_ASSERT(mt_entry_owner(mt_pagemap_get(p)) == MT_SELF_ID); /* a bin link into our slab */
                slab_wf_tl.free[c] = rest;
                /* the next pop reads rest's link: a block another thread
                 * freed, or one freed long ago, is a miss there, so ask for
                 * its line now */
                mt_prefetch(rest);
                slab_wf_tl.used[c]++;
                slab_wf_step_end(MT_SLAB_WF_OP_ALLOC);
                if (mt_chain_wants_usable) { /* the hint (core/ctx.h): the class's size */
                    ctx->ptr = p;
                    ctx->usable = slab_wf_class_size(c);
                }
                return p;
            }
        }
    }
    /* not MT_COLD_ALLOC: a bin is one slab's run of blocks and runs dry
     * often, and a quick request's repeat (the inline path again) costs
     * more than the asker's stack frame saves */
    return MT_COLD_CALL(ctx, copy, slab_wf_alloc_slow(&copy, next));
}

/* ---- free ---- */

/* Another thread's block (or one of a heap this thread does not hold): push
 * it on the slab's remote stack — one XCHG and a link store; if the XCHG took
 * the owner's MARK, also push the slab on the owner heap's notification stack
 * (the same two steps). The FAA comes last: once it is done this thread
 * never touches the slab again, which is what makes release safe. */
static void slab_wf_remote_free(mt_slab_wf_slab *s, void *p, uintptr_t st)
{
    atomic_store_explicit(mt_slab_wf_link(p), MT_SLAB_WF_PENDING, memory_order_relaxed);
    slab_wf_step();
    void *old = mt_fas(&s->rhead, p);
    if (old == MT_SLAB_WF_MARK) {
        atomic_store_explicit(mt_slab_wf_link(p), NULL, memory_order_release);
        slab_wf_heap *h = (slab_wf_heap *)(st & ~(uintptr_t)MT_SLAB_WF_TAGS);
        atomic_store_explicit(&s->nnext, (mt_slab_wf_slab *)MT_SLAB_WF_PENDING, memory_order_relaxed);
        slab_wf_step();
        mt_slab_wf_slab *top = mt_fas(&h->notify[s->cls], s);
        atomic_store_explicit(&s->nnext, top, memory_order_release);
    } else {
        atomic_store_explicit(mt_slab_wf_link(p), old, memory_order_release);
    }
    slab_wf_step();
    atomic_fetch_add_explicit(&s->remote, 1, memory_order_release);
    slab_wf_step_end(MT_SLAB_WF_OP_FREE_REMOTE);
}

/* The owner freed the last block of one of its slabs that it counts (or a
 * current slab's count passed 0 on its way down): a slab that is not
 * current goes to the heap's empty cache, or below, if no block of it is in
 * use any more (remote frees included). Out of line but not `cold`: free's
 * hit ends in a tail call of it, and GCC 12 then predicted the whole hit
 * never taken and moved it into free.cold, a jump away from free. */
static __attribute__((noinline)) void slab_wf_release_if_empty(slab_wf_heap *h, mt_slab_wf_slab *s)
{
    if (slab_wf_tl.cur[s->cls] != s && slab_wf_releasable(s)) {
        slab_wf_partial_remove(h, s->cls, s);
        slab_wf_empty_put(h, s, MT_BELOW(free));
    }
}

/* A block the fast path did not take: an aligned address, a remote block, or
 * one of the thread's own slabs that is full (it goes back on the partial
 * list, at its tail; its MARK stays and is resolved when the slab is used
 * or empty). */
MT_SLOW void slab_wf_free_slow(mt_slab_wf_slab *s, void *p)
{
    uintptr_t st = mt_load_relaxed(&s->ostate);
    slab_wf_heap *h = slab_wf_tl.heap;
    if (st & MT_SLAB_WF_ALIGNED)
        p = mt_slab_wf_unalign(s, p);
    if (!h || (st & ~(uintptr_t)MT_SLAB_WF_TAGS) != (uintptr_t)h) {
        slab_wf_remote_free(s, p, st);
        return;
    }
    *(void **)p = s->free;
    s->free = p;
    s->used--;
    /* at the tail: a refill reaches it after the slabs listed before it,
     * by when more of its blocks have come back; taken next, it would give
     * this one block and run dry again */
    if ((st & MT_SLAB_WF_STATE) == MT_SLAB_WF_FULL)
        slab_wf_partial_add(h, s->cls, s, false);
    slab_wf_release_if_empty(h, s);
    slab_wf_step_end(MT_SLAB_WF_OP_FREE_LOCAL);
}

/* Fast path: the block's slab is listed in this thread's heap (current or
 * partial: one state, so one compare that random free order cannot make
 * unpredictable): a push on the slab's own list, which alloc collects when
 * the bin runs dry. Only a count reaching 0, a full slab (which must be
 * listed), an aligned address and another heap's block take a call. */
#define MT_IMPLEMENTS_free
MT_INLINE void *slab_wf_free(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    mt_slab_wf_slab *s = (mt_slab_wf_slab *)mt_payload_ptr(ctx->meta);
    void *p = ctx->ptr;
    slab_wf_step_begin();
    if (MT_LIKELY(mt_load_relaxed(&s->ostate) == slab_wf_tl.tag)) { /* tag 0: no heap, no match */
        *(void **)p = s->free;
        s->free = p;
        if (MT_UNLIKELY(--s->used == 0))
            slab_wf_release_if_empty(slab_wf_tl.heap, s);
    } else {
        slab_wf_free_slow(s, p);
        return NULL;
    }
    slab_wf_step_end(MT_SLAB_WF_OP_FREE_LOCAL);
    return NULL;
}

MT_SLOW size_t slab_wf_usable_aligned(const mt_slab_wf_slab *s, const void *p)
{
    return (uintptr_t)mt_slab_wf_unalign(s, p) + s->csize - (uintptr_t)p;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *slab_wf_getmeta(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    const mt_slab_wf_slab *s = (const mt_slab_wf_slab *)mt_payload_ptr(ctx->meta);
    if (MT_UNLIKELY(mt_load_relaxed(&s->ostate) & MT_SLAB_WF_ALIGNED)) {
        if (ctx->chain == MT_SAFETY_QUICK)
            return NULL; /* the asker's slow path asks again */
        ctx->usable = slab_wf_usable_aligned(s, ctx->ptr);
        ctx->szcls_key = 0; /* usable is not the class size */
        return ctx->ptr;
    }
    ctx->usable = s->csize;
    ctx->szcls = s->cls;
    ctx->szcls_key = s->cls < slab_wf_bins ? slab_wf_szcls_key : 0; /* an aligned class: no policy's */
    return ctx->ptr;
}

/* Blocks keep their class: the socket reallocates when the size leaves it. */
#define MT_IMPLEMENTS_resize
MT_INLINE void *slab_wf_resize(mt_ctx *ctx, mt_lfunc *next)
{
    return MT_NOT_MINE(ctx, MT_SELF_ID) ? next(ctx) : NULL;
}

#define MT_IMPLEMENTS_create
MT_INLINE void *slab_wf_create(mt_ctx *ctx, mt_lfunc *next)
{
    if (slab_wf_tl.state == MT_SLAB_WF_NEW)
        slab_wf_tl.state = MT_SLAB_WF_ACTIVE;
    return next(ctx);
}

/* ---- thread exit, purge, fork ---- */

MT_SLOW void slab_wf_exit_slow(void)
{
    slab_wf_tl.state = MT_SLAB_WF_EXITED;
    slab_wf_heap *h = slab_wf_tl.heap;
    if (!h)
        return;
    slab_wf_save(h);
    slab_wf_tidy(h, MT_BELOW(free));
    slab_wf_disown(h);
}

#define MT_IMPLEMENTS_thread_exit
MT_INLINE void *slab_wf_thread_exit(mt_ctx *ctx, mt_lfunc *next)
{
    slab_wf_exit_slow();
    return next(ctx);
}

/* malloc_trim: the calling thread's heap and every abandoned heap give back
 * their free slabs. Heaps of live threads are theirs. */
MT_SLOW bool slab_wf_purge_all(void)
{
    bool any = false;
    slab_wf_heap *h = slab_wf_tl.heap;
    if (h) {
        slab_wf_save(h);
        any = slab_wf_tidy(h, MT_BELOW(free));
        slab_wf_load(h);
    }
    for (h = mt_load_acquire(&slab_wf_state.heaps); h; h = h->reg_next) {
        uintptr_t want = MT_SLAB_WF_ABANDONED;
        if (mt_load_relaxed(&h->state) == want && mt_cas(&h->state, &want, MT_SLAB_WF_OWNED)) {
            any |= slab_wf_tidy(h, MT_BELOW(free));
            mt_store_release(&h->state, MT_SLAB_WF_ABANDONED);
        }
    }
    return any;
}

#define MT_IMPLEMENTS_purge
MT_INLINE void *slab_wf_purge(mt_ctx *ctx, mt_lfunc *next)
{
    bool any = slab_wf_purge_all();
    return (next(ctx) || any) ? (void *)1 : NULL;
}

/* In a fork child a remote free killed between its XCHG and its link store
 * left a PENDING link for ever. Cut it (the block is free: nobody in the
 * child holds it) and count the free whose FAA never came. */
static void slab_wf_cut_blocks(mt_slab_wf_slab *s, void *n)
{
    for (void *nx; n && n != MT_SLAB_WF_MARK; n = slab_wf_next_of(n, nx))
        if ((nx = mt_load_relaxed(mt_slab_wf_link(n))) == MT_SLAB_WF_PENDING) {
            mt_store_relaxed(mt_slab_wf_link(n), NULL);
            atomic_fetch_add_explicit(&s->remote, 1, memory_order_relaxed);
            return;
        }
}

static void slab_wf_cut_slabs(mt_slab_wf_slab *s)
{
    for (mt_slab_wf_slab *nx; s; s = nx)
        if ((nx = mt_load_relaxed(&s->nnext)) == (mt_slab_wf_slab *)MT_SLAB_WF_PENDING) {
            mt_store_relaxed(&s->nnext, NULL);
            atomic_fetch_add_explicit(&s->remote, 1, memory_order_relaxed);
            return;
        }
}

MT_SLOW void slab_wf_fork_repair(void)
{
    slab_wf_heap *h = slab_wf_tl.heap;
    if (!h)
        return;
    slab_wf_save(h);
    for (size_t c = slab_wf_first(); c < slab_wf_classes; c = slab_wf_class_next(c)) {
        slab_wf_cut_slabs(h->nchain[c]);
        slab_wf_cut_slabs(mt_load_relaxed(&h->notify[c]));
        mt_slab_wf_slab *s = h->cur[c], *first = h->partial[c];
        if (s) {
            slab_wf_cut_blocks(s, s->rchain);
            slab_wf_cut_blocks(s, mt_load_relaxed(&s->rhead));
        }
        for (s = first; s; s = s->next == first ? NULL : s->next) {
            slab_wf_cut_blocks(s, s->rchain);
            slab_wf_cut_blocks(s, mt_load_relaxed(&s->rhead));
        }
    }
    slab_wf_load(h);
}

#define MT_IMPLEMENTS_fork_child
MT_INLINE void *slab_wf_fork_child(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    slab_wf_fork_repair();
    return NULL;
}

/* ---- for tests: counters, step maxima, the invariant checker ---- */

MT_UNUSED static mt_slab_wf_stat slab_wf_stat(void)
{
    mt_slab_wf_stat st = {mt_load_relaxed(&slab_wf_state.slabs), mt_load_relaxed(&slab_wf_state.nheaps)};
    return st;
}

/* The most steps one operation of kind `op` (MT_SLAB_WF_OP_*) took in any
 * thread so far (0 unless MT_SLAB_WF_STEPS). */
MT_UNUSED static uint32_t slab_wf_steps_max(int op) { return mt_load_relaxed(&slab_wf_state.steps_max[op]); }

#define MT_SLAB_WF_MAX_CAP \
    ((MT_SLAB_SIZE > MT_GRANULE ? MT_SLAB_SIZE : MT_GRANULE) / 16 + MT_SLAB_WF_MIN_BLOCKS)

/* Count the blocks of list n (free, rchain or the remote stack) into `seen`;
 * returns the count, or UINT32_MAX if a node is not a free block of s. */
static uint32_t slab_wf_check_list(const mt_slab_wf_slab *s, void *n, uint64_t *seen)
{
    uintptr_t base = mt_slab_wf_base(s);
    uint32_t count = 0;
    for (; n && n != MT_SLAB_WF_MARK; n = *(void **)n) {
        uintptr_t off = (uintptr_t)n - base, i = off / s->csize;
        if (n == MT_SLAB_WF_PENDING || (uintptr_t)n < base || off % s->csize || i >= s->carved ||
            (seen[i / 64] >> (i % 64) & 1))
            return UINT32_MAX;
        seen[i / 64] |= (uint64_t)1 << (i % 64);
        count++;
    }
    return count;
}

/* One slab of class c in heap h; `state` is the expected state, or -1 for
 * any. `binned`: it is the calling thread's current slab, whose bin (TLS)
 * holds blocks and hand-outs of it too. */
static const char *slab_wf_check_slab(slab_wf_heap *h, size_t c, mt_slab_wf_slab *s, int state, bool binned)
{
    uint64_t seen[(MT_SLAB_WF_MAX_CAP + 63) / 64] = {0};
    uintptr_t st = mt_load_relaxed(&s->ostate);
    size_t len = (size_t)s->granules << MT_GRANULE_SHIFT;
    if ((st & ~(uintptr_t)MT_SLAB_WF_TAGS) != (uintptr_t)h)
        return MT_STR(MT_NAME) ": slab of another heap";
    if (state >= 0 && (st & MT_SLAB_WF_STATE) != (uintptr_t)state)
        return MT_STR(MT_NAME) ": slab state does not match its list";
    if (s->cls != c || s->csize != slab_wf_csize(c) || len != slab_wf_slab_len(c) ||
        s != mt_slab_wf_header_at(mt_slab_wf_base(s), len) ||
        s->capacity != ((uintptr_t)s - mt_slab_wf_base(s)) / s->csize || s->carved > s->capacity)
        return MT_STR(MT_NAME) ": slab geometry";
    uintptr_t entry = mt_entry(MT_SELF_ID, mt_payload_of(s));
    if (mt_pagemap_get((void *)mt_slab_wf_base(s)) != entry || mt_pagemap_get(s) != entry)
        return MT_STR(MT_NAME) ": page map does not name the slab";
    uint32_t a = slab_wf_check_list(s, binned ? slab_wf_tl.free[c] : NULL, seen);
    uint32_t o = slab_wf_check_list(s, s->free, seen);
    uint32_t b = slab_wf_check_list(s, s->rchain, seen);
    uint32_t r = slab_wf_check_list(s, mt_load_relaxed(&s->rhead), seen);
    if (a == UINT32_MAX || o == UINT32_MAX || b == UINT32_MAX || r == UINT32_MAX)
        return MT_STR(MT_NAME) ": free list holds a foreign, duplicate or never-carved block";
    uint32_t used = s->used + (binned ? slab_wf_tl.used[c] : 0);
    if (mt_slab_wf_in_use(s, used) + a + o + b + r != s->carved)
        return MT_STR(MT_NAME) ": blocks in use + free blocks != blocks carved";
    if ((st & MT_SLAB_WF_STATE) == MT_SLAB_WF_FULL && !s->marked && !s->notify_pending)
        return MT_STR(MT_NAME) ": full slab nobody will be told about";
    if ((st & MT_SLAB_WF_STATE) == MT_SLAB_WF_EMPTY &&
        (mt_slab_wf_in_use(s, used) || s->marked || s->notify_pending))
        return MT_STR(MT_NAME) ": cached slab is not free";
    return NULL;
}

static const char *slab_wf_check_heap(slab_wf_heap *h, bool mine)
{
    const char *why;
    for (size_t c = slab_wf_first(); c < slab_wf_classes; c = slab_wf_class_next(c)) {
        mt_slab_wf_slab *cur = mine ? slab_wf_tl.cur[c] : h->cur[c], *s;
        if (cur && (why = slab_wf_check_slab(h, c, cur, MT_SLAB_WF_LISTED, mine)))
            return why;
        if (!cur && mine && (slab_wf_tl.free[c] || slab_wf_tl.used[c]))
            return MT_STR(MT_NAME) ": blocks in the bin of a class without a current slab";
        size_t n = 0, limit = mt_load_relaxed(&slab_wf_state.slabs);
        mt_slab_wf_slab *first = h->partial[c];
        for (s = first; s; s = s->next == first ? NULL : s->next) {
            if (++n > limit || s->next->prev != s)
                return MT_STR(MT_NAME) ": partial list broken";
            if (s == cur)
                return MT_STR(MT_NAME) ": the current slab is also in the partial list";
            if ((why = slab_wf_check_slab(h, c, s, MT_SLAB_WF_LISTED, false)))
                return why;
        }
        for (int i = 0; i < 2; i++) {
            s = i ? mt_load_relaxed(&h->notify[c]) : h->nchain[c];
            for (n = 0; s; s = mt_load_relaxed(&s->nnext)) {
                if (++n > limit || s == (mt_slab_wf_slab *)MT_SLAB_WF_PENDING)
                    return MT_STR(MT_NAME) ": notification stack broken";
                if ((why = slab_wf_check_slab(h, c, s, -1, mine && s == cur)))
                    return why;
            }
        }
    }
    uint32_t n = 0;
    for (mt_slab_wf_slab *s = h->empty; s; s = s->next)
        if (++n > MT_TLLABS || (why = slab_wf_check_slab(h, s->cls, s, MT_SLAB_WF_EMPTY, false)))
            return why ? why : MT_STR(MT_NAME) ": more empty slabs than tllabs";
    return n == h->nempty ? NULL : MT_STR(MT_NAME) ": empty slab count";
}

/* 0 if the calling thread's heap and every abandoned heap are consistent,
 * else the number of inconsistent heaps (*why: "NAME: the first problem").
 * Call it while no other thread frees into these heaps. */
MT_SLOW MT_UNUSED size_t slab_wf_check_heaps(const char **why)
{
    size_t bad = 0;
    const char *first = NULL, *w;
    slab_wf_heap *mine = slab_wf_tl.heap;
    if (mine && (w = slab_wf_check_heap(mine, true)))
        bad++, first = w;
    for (slab_wf_heap *h = mt_load_acquire(&slab_wf_state.heaps); h; h = h->reg_next) {
        uintptr_t want = MT_SLAB_WF_ABANDONED;
        if (h == mine || !mt_cas(&h->state, &want, MT_SLAB_WF_OWNED))
            continue;
        if ((w = slab_wf_check_heap(h, false)))
            bad++, first = first ? first : w;
        mt_store_release(&h->state, MT_SLAB_WF_ABANDONED);
    }
    if (why)
        *why = first;
    return bad;
}

#define MT_IMPLEMENTS_check
MT_INLINE void *slab_wf_check(mt_ctx *ctx, mt_lfunc *next)
{
    const char *why = NULL;
    return mt_check_then(slab_wf_check_heaps(&why) ? why : NULL, ctx, next);
}

/* Its traits (descriptor, core/ctx.h): mt_fresh_head on every block carved anew. */
#define MT_DESCRIPTOR MT_DESCRIPTOR_slab_wf
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_SIZECLASS
#undef MT_SIZECLASS_STEP
#undef MT_SLAB_SIZE
#undef MT_TLLABS
#undef MT_ERR_HANDLE
#undef MT_LINK_CHECK
#undef MT_SLAB_WF_COLLECT
#undef MT_SLAB_WF_TRIES
#undef MT_SLAB_WF_MIN_BLOCKS
#undef MT_SLAB_WF_BINS
#undef MT_SLAB_WF_STEPS
#undef MT_SLAB_WF_MAX_CAP
#undef MT_SLAB_WF_SWEEP
#ifdef MT_NAMES_slab_wf
#include "../names/slab_wf.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */
