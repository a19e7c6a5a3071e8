/* bench_locality — linked structures built with interleaved allocation of
 * same-size nodes from different call sites, then traversed in an order
 * that differs from the allocation order (docs/affinity.md).
 *
 *   bench_locality [-w 0|1|2] [-s SCALE]
 *
 * Four structures of 48-byte nodes, each from its own call site: a list
 * linked in a random order, a binary search tree of random keys, hash
 * chains, and a second list. One node of each is allocated in turn, so
 * under a general-purpose allocator a structure's nodes are spread over
 * four times its size. The nodes are reached through 0, 1 or 2 levels of
 * wrapper functions (-w); the same wrappers also serve strings of varying
 * sizes from two other sites, as a program's xmalloc would. Each structure
 * is then walked many times on its own (list order, in-order, random key
 * lookups), which is where the time goes. Ends with `ok checksum=...`, the
 * same under every allocator. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

struct node {
    struct node *next, *left, *right;
    uint64_t key, value, pad;
};

static uint64_t rng = 88172645463325252ull;
static uint64_t next_random(void) { return xorshift(&rng); }

NOINLINE static struct node *list_a_node(void) { return ALLOC(sizeof(struct node)); }
NOINLINE static struct node *list_b_node(void) { return ALLOC(sizeof(struct node)); }
NOINLINE static struct node *tree_node(void) { return ALLOC(sizeof(struct node)); }
NOINLINE static struct node *hash_node(void) { return ALLOC(sizeof(struct node)); }
NOINLINE static char *name_string(size_t n) { return ALLOC(n); }
NOINLINE static char *label_string(size_t n) { return ALLOC(n); }

static struct node *tree_insert(struct node *root, struct node *n)
{
    struct node **at = &root;
    while (*at)
        at = n->key < (*at)->key ? &(*at)->left : &(*at)->right;
    *at = n;
    return root;
}

static uint64_t tree_sum(const struct node *t)
{
    uint64_t s = 0;
    while (t) { /* Morris-free: recursion on the left, loop on the right */
        s += tree_sum(t->left) + t->value;
        t = t->right;
    }
    return s;
}

/* Link nodes in a random order (not the order they were allocated in). */
static struct node *link_shuffled(struct node **nodes, size_t n)
{
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = next_random() % (i + 1);
        struct node *t = nodes[i];
        nodes[i] = nodes[j];
        nodes[j] = t;
    }
    for (size_t i = 0; i + 1 < n; i++)
        nodes[i]->next = nodes[i + 1];
    nodes[n - 1]->next = NULL;
    return nodes[0];
}

int main(int argc, char **argv)
{
    double scale = 1;
    int opt;
    while ((opt = getopt(argc, argv, "w:s:t:")) != -1) {
        if (opt == 'w')
            depth = atoi(optarg);
        else if (opt == 's')
            scale = atof(optarg);
    }
    const size_t n = 40000; /* nodes per structure: ~2 MB each */
    const size_t buckets = 4096;
    const int rounds = (int)(20 * scale) > 0 ? (int)(20 * scale) : 1;
    struct node **a = used(calloc(n, sizeof *a)), **b = used(calloc(n, sizeof *b));
    struct node **table = used(calloc(buckets, sizeof *table));
    uint64_t *keys = used(calloc(n, sizeof *keys));
    char **strings = used(calloc(n / 4, sizeof *strings));
    struct node *tree = NULL;
    for (size_t i = 0; i < n; i++) {
        a[i] = list_a_node();
        b[i] = list_b_node();
        struct node *t = tree_node(), *h = hash_node();
        memset(a[i], 0, sizeof *a[i]);
        memset(b[i], 0, sizeof *b[i]);
        memset(t, 0, sizeof *t);
        memset(h, 0, sizeof *h);
        a[i]->value = i;
        b[i]->value = 2 * i;
        t->key = next_random();
        t->value = i & 255;
        tree = tree_insert(tree, t);
        keys[i] = h->key = next_random();
        h->value = i;
        h->next = table[h->key % buckets];
        table[h->key % buckets] = h;
        if (i % 4 == 0) { /* strings through the same wrappers, many sizes */
            size_t len = 8 + next_random() % 120;
            strings[i / 4] = i % 8 ? name_string(len) : label_string(len);
            memset(strings[i / 4], 'a' + (int)(i % 26), len - 1);
            strings[i / 4][len - 1] = 0;
        }
    }
    struct node *la = link_shuffled(a, n), *lb = link_shuffled(b, n);
    uint64_t sum = 0;
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 4; k++)
            for (struct node *p = la; p; p = p->next)
                sum += p->value;
        for (int k = 0; k < 4; k++)
            for (struct node *p = lb; p; p = p->next)
                sum += p->value;
        for (int k = 0; k < 2; k++)
            sum += tree_sum(tree);
        for (size_t k = 0; k < 2 * n; k++) {
            uint64_t key = keys[next_random() % n];
            for (struct node *p = table[key % buckets]; p; p = p->next)
                if (p->key == key) {
                    sum += p->value;
                    break;
                }
        }
    }
    for (size_t i = 0; i < n / 4; i++)
        sum += (uint64_t)strlen(strings[i]);
    printf("ok checksum=%016llx wrappers=%d nodes=%zu rounds=%d\n", (unsigned long long)sum, depth, 4 * n,
           rounds);
    return 0;
}
