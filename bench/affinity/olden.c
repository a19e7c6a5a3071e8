/* bench_olden — three programs in the style of the Olden benchmarks,
 * written for Mortise's affinity measurements (docs/affinity.md):
 *
 *   bench_olden -k treeadd|health|mst [-s SCALE]
 *
 * treeadd  two binary trees of 32-byte nodes built breadth first, one node
 *          of each in turn, then summed depth first many times.
 * health   a 4-ary tree of villages, each with a waiting list of patients
 *          (a 32-byte list cell and a 32-byte patient record from two
 *          sites); every step each village admits new patients, treats some
 *          (freed) and sends some up to its parent's list; every list is
 *          walked every step.
 * mst      Prim's minimum spanning tree over a complete graph whose edge
 *          weights live in per-vertex hash tables of 32-byte entries,
 *          allocated vertex by vertex in turn.
 * Each ends with `ok checksum=...`, the same under every allocator. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../tests/common/xorshift.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { return xorshift(&rng); }
static void *must(void *p)
{
    if (!p) {
        puts("FAIL out of memory");
        exit(1);
    }
    return p;
}

/* ---- treeadd ---- */
struct tnode {
    struct tnode *left, *right;
    uint64_t value, pad;
};
__attribute__((noinline)) static struct tnode *tree1_node(void)
{
    return must(calloc(1, sizeof(struct tnode)));
}
__attribute__((noinline)) static struct tnode *tree2_node(void)
{
    return must(calloc(1, sizeof(struct tnode)));
}

static uint64_t tree_add(const struct tnode *t)
{
    return t ? t->value + tree_add(t->left) + tree_add(t->right) : 0;
}

static uint64_t treeadd(double scale)
{
    const size_t n = (size_t)1 << 17; /* nodes per tree */
    struct tnode **q1 = must(malloc(n * sizeof *q1)), **q2 = must(malloc(n * sizeof *q2));
    for (size_t i = 0; i < n; i++) { /* breadth first: node i's children are 2i+1, 2i+2 */
        q1[i] = tree1_node();
        q2[i] = tree2_node();
        q1[i]->value = i;
        q2[i]->value = 3 * i;
        if (i) {
            struct tnode *p1 = q1[(i - 1) / 2], *p2 = q2[(i - 1) / 2];
            *(i & 1 ? &p1->left : &p1->right) = q1[i];
            *(i & 1 ? &p2->left : &p2->right) = q2[i];
        }
    }
    uint64_t sum = 0;
    int rounds = (int)(200 * scale) > 0 ? (int)(200 * scale) : 1;
    for (int r = 0; r < rounds; r++)
        sum += tree_add(q1[0]) + tree_add(q2[0]);
    for (size_t i = 0; i < n; i++) {
        free(q1[i]);
        free(q2[i]);
    }
    free(q1);
    free(q2);
    return sum;
}

/* ---- health ---- */
struct patient {
    uint64_t id, time, hosps, pad;
};
struct cell {
    struct cell *next;
    struct patient *p;
    uint64_t pad[2];
};
struct village {
    struct village *parent, *kids[4];
    struct cell *waiting;
    uint64_t seed;
};
__attribute__((noinline)) static struct cell *new_cell(void) { return must(malloc(sizeof(struct cell))); }
__attribute__((noinline)) static struct patient *new_patient(void)
{
    return must(malloc(sizeof(struct patient)));
}
__attribute__((noinline)) static struct village *new_village(void)
{
    return must(calloc(1, sizeof(struct village)));
}

static struct village *build_villages(struct village *parent, int level, struct village **all, size_t *n)
{
    struct village *v = new_village();
    v->parent = parent;
    all[(*n)++] = v;
    if (level > 0)
        for (int k = 0; k < 4; k++)
            v->kids[k] = build_villages(v, level - 1, all, n);
    return v;
}

static uint64_t health(double scale)
{
    static struct village *all[1400];
    size_t nv = 0;
    build_villages(NULL, 4, all, &nv); /* 341 villages */
    uint64_t sum = 0, id = 0;
    int steps = (int)(3000 * scale) > 0 ? (int)(3000 * scale) : 1;
    for (int s = 0; s < steps; s++) {
        for (size_t i = 0; i < nv; i++) {
            struct village *v = all[i];
            if (rnd() % 4 == 0 || s < 60) { /* admit */
                struct cell *c = new_cell();
                struct patient *p = new_patient();
                p->id = ++id;
                p->time = p->hosps = 0;
                c->p = p;
                c->next = v->waiting;
                v->waiting = c;
            }
        }
        for (size_t i = 0; i < nv; i++) {
            struct village *v = all[i];
            struct cell **at = &v->waiting;
            while (*at) {
                struct cell *c = *at;
                c->p->time++;
                sum += c->p->id ^ c->p->time;
                uint64_t r = rnd() % 64;
                if (r == 0) { /* treated */
                    *at = c->next;
                    free(c->p);
                    free(c);
                } else if (r == 1 && v->parent) { /* sent up */
                    *at = c->next;
                    c->p->hosps++;
                    c->next = v->parent->waiting;
                    v->parent->waiting = c;
                } else
                    at = &c->next;
            }
        }
    }
    for (size_t i = 0; i < nv; i++) {
        while (all[i]->waiting) {
            struct cell *c = all[i]->waiting;
            all[i]->waiting = c->next;
            sum += c->p->hosps;
            free(c->p);
            free(c);
        }
        free(all[i]);
    }
    return sum;
}

/* ---- mst ---- */
struct hentry {
    struct hentry *next;
    uint64_t key, weight, pad;
};
#define MST_BUCKETS 16
struct vertex {
    struct hentry *table[MST_BUCKETS];
    uint64_t mindist;
    int in_tree;
};
__attribute__((noinline)) static struct hentry *new_entry(void)
{
    return must(malloc(sizeof(struct hentry)));
}

static uint64_t edge_weight(size_t a, size_t b)
{
    uint64_t x = (uint64_t)(a < b ? a : b) * 1000003u + (a < b ? b : a);
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    return (x >> 40) + 1;
}

static uint64_t mst(double scale)
{
    size_t n = (size_t)(900 * (scale < 1 ? 1 : scale));
    if (n > 3000)
        n = 3000;
    struct vertex *v = must(calloc(n, sizeof *v));
    for (size_t j = 0; j < n; j++) /* entry j of every vertex in turn */
        for (size_t i = 0; i < n; i++) {
            if (i == j)
                continue;
            struct hentry *e = new_entry();
            e->key = j;
            e->weight = edge_weight(i, j);
            e->next = v[i].table[j % MST_BUCKETS];
            v[i].table[j % MST_BUCKETS] = e;
        }
    for (size_t i = 0; i < n; i++)
        v[i].mindist = UINT64_MAX;
    uint64_t total = 0;
    size_t last = 0;
    v[0].in_tree = 1;
    for (size_t added = 1; added < n; added++) {
        size_t best = 0;
        uint64_t bestd = UINT64_MAX;
        for (size_t i = 0; i < n; i++) { /* distances through the last vertex added */
            if (v[i].in_tree)
                continue;
            for (struct hentry *e = v[i].table[last % MST_BUCKETS]; e; e = e->next)
                if (e->key == last) {
                    if (e->weight < v[i].mindist)
                        v[i].mindist = e->weight;
                    break;
                }
            if (v[i].mindist < bestd) {
                bestd = v[i].mindist;
                best = i;
            }
        }
        v[best].in_tree = 1;
        total += bestd;
        last = best;
    }
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < MST_BUCKETS; b++)
            while (v[i].table[b]) {
                struct hentry *e = v[i].table[b];
                v[i].table[b] = e->next;
                free(e);
            }
    free(v);
    return total;
}

int main(int argc, char **argv)
{
    const char *kind = "treeadd";
    double scale = 1;
    int opt;
    while ((opt = getopt(argc, argv, "k:s:t:")) != -1) {
        if (opt == 'k')
            kind = optarg;
        else if (opt == 's')
            scale = atof(optarg);
    }
    uint64_t sum;
    if (!strcmp(kind, "treeadd"))
        sum = treeadd(scale);
    else if (!strcmp(kind, "health"))
        sum = health(scale);
    else if (!strcmp(kind, "mst"))
        sum = mst(scale);
    else {
        printf("FAIL unknown kind %s\n", kind);
        return 1;
    }
    printf("ok checksum=%016llx kind=%s\n", (unsigned long long)sum, kind);
    return 0;
}
