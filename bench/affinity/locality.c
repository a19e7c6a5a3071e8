/* bench_locality — linked structures whose nodes come from different call
 * sites, allocated interleaved, each then walked along its own links
 * (docs/affinity.md).
 *
 *   bench_locality [-w 0|1|2] [-s SCALE] [-m MULT]
 *
 * Four structures, each from its own call site: two lists of 16-byte nodes
 * (one appended at its tail, one pushed at its head), a balanced search tree
 * of 32-byte nodes allocated in depth-first order, and a hash table of
 * 32-byte nodes appended to their chains. One node of each list and, every
 * other step, one node of the tree and of the table are allocated in turn,
 * so a size-segregated allocator puts the two lists' nodes side by side
 * in one class, and the tree's and the table's in another: a structure's
 * nodes take two lines where they would take one on their own. The nodes
 * are reached through 0, 1 or 2 levels of wrapper functions (-w); the same
 * wrappers also serve strings of varying sizes from two other sites, as a
 * program's xmalloc would. Each structure is then walked many times on its
 * own, the way programs walk them: the lists in list order, the tree depth
 * first, the table by key lookups. A structure's own nodes take 1.6 MB
 * times MULT (-m, default 1: they fit a 2 MiB cache); interleaved with the
 * other structure of their size they span twice that (they do not). So
 * MULT sizes the workload to a cache: tools/affinity_bench.py also runs it
 * with the structures at 0.6 times this machine's last-level cache, where
 * the time of a walk, not only a simulator, sees the layout. Prints the
 * walks' time (`walk_s=`), then `ok checksum=...`, the same under every
 * allocator. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../../tests/common/xorshift.h"

#define NOINLINE __attribute__((noinline))
/* p is used after the call: not a tail call, each wrapper keeps a frame;
 * the line number keeps identical sites from being folded into one. */
static inline void *used_at(void *p, int line)
{
    __asm__ volatile("" : : "r"(p), "r"(line) : "memory");
    if (!p) {
        puts("FAIL out of memory");
        exit(1);
    }
    return p;
}
#define used(p) used_at((p), __LINE__)

NOINLINE static void *xalloc1(size_t n) { return used(malloc(n)); }
NOINLINE static void *xalloc2(size_t n) { return used(xalloc1(n)); }
static int depth;
/* Every site below calls through `depth` wrappers. */
#define ALLOC(n) used(depth == 0 ? malloc(n) : depth == 1 ? xalloc1(n) : xalloc2(n))

struct list_node {
    struct list_node *next;
    uint64_t value;
};
struct tree_node {
    struct tree_node *left, *right;
    uint64_t key, value;
};
struct hash_node {
    struct hash_node *next;
    uint64_t key, value, hits;
};
_Static_assert(sizeof(struct list_node) == 16 && sizeof(struct tree_node) == 32 &&
                   sizeof(struct hash_node) == 32,
               "node sizes");

static uint64_t rng = 88172645463325252ull;
static uint64_t next_random(void) { return xorshift(&rng); }

NOINLINE static struct list_node *list_a_node(void) { return ALLOC(sizeof(struct list_node)); }
NOINLINE static struct list_node *list_b_node(void) { return ALLOC(sizeof(struct list_node)); }
NOINLINE static struct tree_node *tree_node(void) { return ALLOC(sizeof(struct tree_node)); }
NOINLINE static struct hash_node *hash_node(void) { return ALLOC(sizeof(struct hash_node)); }
NOINLINE static char *name_string(size_t n) { return ALLOC(n); }
NOINLINE static char *label_string(size_t n) { return ALLOC(n); }

/* The tree over keys 0..n-1, built one node per call in depth-first
 * (preorder) order: a node, then its left subtree, then its right one. */
struct range {
    size_t lo, hi;
    struct tree_node **link;
};
struct tree_builder {
    struct range *stack;
    size_t top;
};

static void tree_add_next(struct tree_builder *b)
{
    struct range r = b->stack[--b->top];
    size_t mid = r.lo + (r.hi - r.lo) / 2;
    struct tree_node *t = tree_node();
    t->left = t->right = NULL;
    t->key = mid;
    t->value = mid * 2654435761u;
    *r.link = t;
    if (mid + 1 < r.hi)
        b->stack[b->top++] = (struct range){mid + 1, r.hi, &t->right};
    if (r.lo < mid)
        b->stack[b->top++] = (struct range){r.lo, mid, &t->left};
}

static uint64_t tree_sum(const struct tree_node *t)
{
    uint64_t s = 0;
    while (t) { /* preorder: the node, its left subtree, then on to the right */
        s += t->value + tree_sum(t->left);
        t = t->right;
    }
    return s;
}

int main(int argc, char **argv)
{
    double scale = 1;
    long mult = 1;
    int opt;
    while ((opt = getopt(argc, argv, "w:s:t:m:")) != -1) {
        if (opt == 'w')
            depth = atoi(optarg);
        else if (opt == 's')
            scale = atof(optarg);
        else if (opt == 'm')
            mult = atol(optarg);
    }
    if (mult < 1 || mult > 1000) {
        puts("FAIL -m takes 1 to 1000");
        return 2;
    }
    const size_t nlist = 100000 * (size_t)mult, ntree = 50000 * (size_t)mult, buckets = 16384 * (size_t)mult;
    const int rounds = (int)(500 * scale) > 0 ? (int)(500 * scale) : 1;
    struct hash_node **table = used(calloc(buckets, sizeof *table));
    struct hash_node **tails = used(calloc(buckets, sizeof *tails));
    char **strings = used(calloc(nlist / 4, sizeof *strings));
    struct tree_builder tb = {used(calloc(64, sizeof(struct range))), 0};
    struct tree_node *tree = NULL;
    tb.stack[tb.top++] = (struct range){0, ntree, &tree};
    struct list_node *la = NULL, **la_tail = &la, *lb = NULL;
    for (size_t i = 0; i < nlist; i++) {
        struct list_node *a = list_a_node(), *b = list_b_node();
        a->value = i;
        a->next = NULL;
        *la_tail = a;
        la_tail = &a->next;
        b->value = 3 * i;
        b->next = lb;
        lb = b;
        if (i % 2 == 0) {
            tree_add_next(&tb);
            struct hash_node *h = hash_node();
            h->key = i / 2 * 7919 % ntree;
            h->value = i;
            h->hits = 0;
            h->next = NULL;
            size_t k = h->key % buckets;
            if (tails[k])
                tails[k]->next = h;
            else
                table[k] = h;
            tails[k] = h;
        }
        if (i % 4 == 0) { /* strings through the same wrappers, many sizes */
            size_t len = 8 + next_random() % 120;
            strings[i / 4] = i % 8 ? name_string(len) : label_string(len);
            memset(strings[i / 4], 'a' + (int)(i % 26), len - 1);
            strings[i / 4][len - 1] = 0;
        }
    }
    if (tb.top != 0) {
        puts("FAIL the tree was not built whole");
        return 1;
    }
    uint64_t sum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 4; k++)
            for (const struct list_node *p = la; p; p = p->next)
                sum += p->value;
        for (int k = 0; k < 4; k++)
            for (const struct list_node *p = lb; p; p = p->next)
                sum += p->value;
        for (int k = 0; k < 4; k++)
            sum += tree_sum(tree);
        for (size_t k = 0; k < ntree; k++) {
            uint64_t key = next_random() % ntree;
            for (struct hash_node *p = table[key % buckets]; p; p = p->next)
                if (p->key == key) {
                    sum += p->value + p->hits++;
                    break;
                }
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (size_t i = 0; i < nlist / 4; i++)
        sum += (uint64_t)strlen(strings[i]);
    /* the walks' own time: what the layout changes (the build is the
     * allocator's own cost, measured with the whole run) */
    double walk_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("walk_s=%.4f\n", walk_s);
    printf("ok checksum=%016llx wrappers=%d nodes=%zu rounds=%d\n", (unsigned long long)sum, depth,
           2 * nlist + 2 * ntree, rounds);
    return 0;
}
