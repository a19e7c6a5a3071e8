/* tlsf_glk's bounded steps on this target: the composition counts every
 * bitmap search, list operation, split and merge (MT_TLSF_STEP, comp_tlsf.c)
 * and each operation's count must stay within the bound tlsf_glk.h states —
 * malloc 5, aligned 7, free 5, resize 4, so a realloc that moves at most
 * 12 (the resize tried, then malloc and free) — whatever the heap holds.
 * The heap is grown to 1 MiB first and must not grow while counting:
 * taking a chunk from below is outside the bound. */
#include "selftest.h"
#include "steps.h"

unsigned long bm_tlsf_steps;
size_t bm_tlsf_heap_bytes(void);

enum { MALLOC, ALIGNED, FREE, REALLOC, KINDS };
static const char *const kind_name[KINDS] = {"malloc", "aligned", "free", "realloc"};
static const unsigned long bound[KINDS] = {5, 7, 5, 12};
static unsigned long most[KINDS], count[KINDS];

#define SLOTS 1024
static void *slot[SLOTS];
static size_t slot_size[SLOTS];

static void counted(int kind, unsigned long before)
{
    unsigned long steps = bm_tlsf_steps - before;
    count[kind]++;
    if (steps > most[kind])
        most[kind] = steps;
}

void bm_tlsf_step_test(const bm_allocator *a)
{
    const size_t heap = (size_t)1 << 20;
    unsigned before_failures = bm_failures;
    bm_random_seed(12345);
    a->free(a->malloc(heap - (64 << 10)));
    size_t grown = bm_tlsf_heap_bytes(), live = 0;
    BM_CHECK(grown >= heap);

    for (unsigned op = 0; op < 30000; op++) {
        size_t k = bm_random() % SLOTS, size = 16 + bm_random() % ((bm_random() % 4 ? 512 : 16384));
        unsigned what = bm_random() % 8;
        bool room = live + size < heap / 100 * 45;
        unsigned long before = bm_tlsf_steps;
        if (slot[k] && what < 4) {
            a->free(slot[k]);
            counted(FREE, before);
            slot[k] = NULL;
            live -= slot_size[k];
        } else if (slot[k] && (room || size < slot_size[k])) {
            void *q = a->realloc(slot[k], size);
            counted(REALLOC, before);
            if (BM_CHECK(q != NULL)) {
                slot[k] = q;
                live = live - slot_size[k] + size;
                slot_size[k] = size;
            }
        } else if (!slot[k] && room) {
            bool aligned = what == 7;
            slot[k] = aligned ? a->aligned_alloc((size_t)32 << (bm_random() % 8), size) : a->malloc(size);
            counted(aligned ? ALIGNED : MALLOC, before);
            if (BM_CHECK(slot[k] != NULL)) {
                slot_size[k] = size;
                live += size;
            }
        }
    }
    for (size_t k = 0; k < SLOTS; k++)
        if (slot[k]) {
            unsigned long before = bm_tlsf_steps;
            a->free(slot[k]);
            counted(FREE, before);
            slot[k] = NULL;
        }
    BM_CHECK(bm_tlsf_heap_bytes() == grown);
    BM_CHECK(a->check() == NULL);
    for (int k = 0; k < KINDS; k++) {
        BM_CHECK(most[k] <= bound[k]);
        BM_CHECK(count[k] > 500);
    }
    a->trim(0);

    bm_print(bm_failures == before_failures ? "ok   " : "FAIL ");
    bm_print("tlsf_glk bounded steps (most/bound/ops):");
    for (int k = 0; k < KINDS; k++) {
        bm_print(" ");
        bm_print(kind_name[k]);
        bm_print_num("most", (uint32_t)most[k]);
        bm_print_num("bound", (uint32_t)bound[k]);
        bm_print_num("ops", (uint32_t)count[k]);
    }
    bm_print_line("");
}
