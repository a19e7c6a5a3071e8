/* bench_octree: tree building and traversal, n-body style (like barnes in
 * the paper).
 *
 * A Barnes–Hut simulation of N bodies: every step the octree is rebuilt
 * from scratch, one heap node per cell. The eight octants under the root
 * are built by the threads in turn (octant i by thread i mod T), the forces
 * are computed in parallel over the bodies by walking the tree, and the
 * octants are freed by the next thread over (octant i by thread i+1 mod T),
 * so most nodes die on a thread that did not allocate them.
 *
 * Checks every step: the tree holds each body once, inside its cell's
 * bounds; each internal node's mass is the sum of its children's; every
 * node's seal is intact when it is freed. The arithmetic never depends on
 * the thread count or on addresses, so the checksum of the final positions
 * is the same for every allocator and every -t.
 */
#include <math.h>
#include <stdatomic.h>

#include "workload.h"

struct body {
    double x[3], v[3], a[3], m;
};

struct node {
    uint64_t id, seal;
    double center[3], half;
    double mass, com[3];
    struct node *child[8];
    int32_t body; /* index of the one body of a leaf, -1 for an internal node */
    int32_t count;
};

static struct body *bodies;
static size_t nbodies, nsteps;
static int nthreads;
static pthread_barrier_t barrier;
static struct node *octant[8];
static int32_t *octant_bodies[8];
static size_t octant_count[8];
static double root_center[3], root_half;
static _Atomic uint64_t node_serial;
static _Atomic uint64_t nodes_freed;

static struct node *node_new(const double center[3], double half)
{
    struct node *n = wl_malloc(sizeof *n, "octree node");
    wl_seal(n, WL_MIN_SEALED, atomic_fetch_add_explicit(&node_serial, 1, memory_order_relaxed));
    memcpy(n->center, center, sizeof n->center);
    n->half = half;
    n->mass = 0;
    memset(n->com, 0, sizeof n->com);
    memset(n->child, 0, sizeof n->child);
    n->body = -1;
    n->count = 0;
    return n;
}

static int which_child(const struct node *n, const double x[3])
{
    return (x[0] >= n->center[0]) | (x[1] >= n->center[1]) << 1 | (x[2] >= n->center[2]) << 2;
}

static struct node *child_for(struct node *n, int c)
{
    if (!n->child[c]) {
        double h = n->half / 2, ctr[3];
        for (int d = 0; d < 3; d++)
            ctr[d] = n->center[d] + ((c >> d) & 1 ? h : -h);
        n->child[c] = node_new(ctr, h);
    }
    return n->child[c];
}

static void insert(struct node *n, int32_t b, int depth)
{
    if (depth > 200)
        wl_fail("octree deeper than 200: coincident bodies");
    if (n->count == 0) {
        n->body = b;
        n->count = 1;
        return;
    }
    if (n->body >= 0) {
        int32_t old = n->body;
        n->body = -1;
        insert(child_for(n, which_child(n, bodies[old].x)), old, depth + 1);
    }
    n->count++;
    insert(child_for(n, which_child(n, bodies[b].x)), b, depth + 1);
}

/* Mass and centre of mass bottom-up, children in index order. */
static void summarize(struct node *n)
{
    if (n->body >= 0) {
        struct body *b = &bodies[n->body];
        n->mass = b->m;
        memcpy(n->com, b->x, sizeof n->com);
        return;
    }
    double m = 0, c[3] = {0, 0, 0};
    for (int i = 0; i < 8; i++) {
        struct node *k = n->child[i];
        if (!k)
            continue;
        summarize(k);
        m += k->mass;
        for (int d = 0; d < 3; d++)
            c[d] += k->mass * k->com[d];
    }
    n->mass = m;
    for (int d = 0; d < 3; d++)
        n->com[d] = m > 0 ? c[d] / m : n->center[d];
}

/* Structure check: returns the bodies below n. */
static long check(const struct node *n, uint8_t *seen)
{
    wl_open(n, WL_MIN_SEALED, "octree check");
    if (n->body >= 0) {
        const struct body *b = &bodies[n->body];
        for (int d = 0; d < 3; d++)
            if (fabs(b->x[d] - n->center[d]) > n->half * (1 + 1e-12))
                wl_fail("body %d outside its cell", n->body);
        if (seen[n->body]++)
            wl_fail("body %d twice in the tree", n->body);
        if (n->count != 1)
            wl_fail("leaf count %d", n->count);
        return 1;
    }
    long total = 0;
    double m = 0;
    for (int i = 0; i < 8; i++)
        if (n->child[i]) {
            total += check(n->child[i], seen);
            m += n->child[i]->mass;
        }
    if (total != n->count)
        wl_fail("cell counts %d bodies, holds %ld", n->count, total);
    if (fabs(m - n->mass) > 1e-9 * (m + 1))
        wl_fail("cell mass %g, children sum %g", n->mass, m);
    return total;
}

static void destroy(struct node *n)
{
    for (int i = 0; i < 8; i++)
        if (n->child[i])
            destroy(n->child[i]);
    wl_free_sealed(n, WL_MIN_SEALED, "octree free");
    atomic_fetch_add_explicit(&nodes_freed, 1, memory_order_relaxed);
}

static const double theta2 = 0.5 * 0.5, soft2 = 1e-4;

static void accumulate(const struct node *n, const struct body *b, double acc[3])
{
    if (n->count == 0 || (n->body >= 0 && &bodies[n->body] == b))
        return;
    double d[3], r2 = soft2;
    for (int k = 0; k < 3; k++) {
        d[k] = n->com[k] - b->x[k];
        r2 += d[k] * d[k];
    }
    double size = 2 * n->half;
    if (n->body >= 0 || size * size < theta2 * r2) {
        double inv = n->mass / (r2 * sqrt(r2));
        for (int k = 0; k < 3; k++)
            acc[k] += d[k] * inv;
        return;
    }
    for (int i = 0; i < 8; i++)
        if (n->child[i])
            accumulate(n->child[i], b, acc);
}

static void worker(int t, void *arg)
{
    (void)arg;
    const double dt = 1e-3;
    for (size_t step = 0; step < nsteps; step++) {
        /* Build: this thread's octants. */
        for (int o = t; o < 8; o += nthreads) {
            double h = root_half / 2, ctr[3];
            for (int d = 0; d < 3; d++)
                ctr[d] = root_center[d] + ((o >> d) & 1 ? h : -h);
            octant[o] = octant_count[o] ? node_new(ctr, h) : NULL;
            for (size_t i = 0; i < octant_count[o]; i++)
                insert(octant[o], octant_bodies[o][i], 1);
            if (octant[o])
                summarize(octant[o]);
        }
        pthread_barrier_wait(&barrier);
        if (t == 0) {
            uint8_t *seen = calloc(nbodies, 1);
            if (!seen)
                wl_fail("no memory for the check");
            long total = 0;
            for (int o = 0; o < 8; o++)
                if (octant[o])
                    total += check(octant[o], seen);
            if ((size_t)total != nbodies)
                wl_fail("step %zu: tree holds %ld of %zu bodies", step, total, nbodies);
            free(seen);
        }
        /* Forces over this thread's share of the bodies. */
        size_t lo = nbodies * (size_t)t / (size_t)nthreads, hi = nbodies * (size_t)(t + 1) / (size_t)nthreads;
        for (size_t i = lo; i < hi; i++) {
            double acc[3] = {0, 0, 0};
            for (int o = 0; o < 8; o++)
                if (octant[o])
                    accumulate(octant[o], &bodies[i], acc);
            memcpy(bodies[i].a, acc, sizeof acc);
        }
        pthread_barrier_wait(&barrier);
        /* Free the octant built by the previous thread; move this share. */
        for (int o = (t + nthreads - 1) % nthreads; o < 8; o += nthreads)
            if (octant[o])
                destroy(octant[o]);
        for (size_t i = lo; i < hi; i++)
            for (int d = 0; d < 3; d++) {
                bodies[i].v[d] += bodies[i].a[d] * dt;
                bodies[i].x[d] += bodies[i].v[d] * dt;
            }
        pthread_barrier_wait(&barrier);
        if (t == 0) {
            /* Bounding cube and the bodies of each octant for the next step. */
            double lo3[3] = {INFINITY, INFINITY, INFINITY}, hi3[3] = {-INFINITY, -INFINITY, -INFINITY};
            for (size_t i = 0; i < nbodies; i++)
                for (int d = 0; d < 3; d++) {
                    lo3[d] = fmin(lo3[d], bodies[i].x[d]);
                    hi3[d] = fmax(hi3[d], bodies[i].x[d]);
                }
            root_half = 0;
            for (int d = 0; d < 3; d++) {
                root_center[d] = (lo3[d] + hi3[d]) / 2;
                root_half = fmax(root_half, (hi3[d] - lo3[d]) / 2 * 1.0001);
            }
            memset(octant_count, 0, sizeof octant_count);
            for (size_t i = 0; i < nbodies; i++) {
                int o = (bodies[i].x[0] >= root_center[0]) | (bodies[i].x[1] >= root_center[1]) << 1 |
                        (bodies[i].x[2] >= root_center[2]) << 2;
                octant_bodies[o][octant_count[o]++] = (int32_t)i;
            }
        }
        pthread_barrier_wait(&barrier);
    }
}

int main(int argc, char **argv)
{
    struct wl_args a = wl_parse(argc, argv, "Barnes-Hut octree rebuilt every step, cross-thread frees");
    nthreads = a.threads;
    nbodies = 6000;
    nsteps = wl_scaled(30, a.scale, 1);
    if (a.scale < 1)
        nbodies = wl_scaled(nbodies, a.scale, 64);
    bodies = calloc(nbodies, sizeof *bodies);
    for (int o = 0; o < 8; o++)
        octant_bodies[o] = calloc(nbodies, sizeof(int32_t));
    if (!bodies)
        wl_fail("no memory for %zu bodies", nbodies);
    struct wl_rng rng = wl_rng_seed(0xba77e5);
    for (size_t i = 0; i < nbodies; i++) {
        for (int d = 0; d < 3; d++) {
            bodies[i].x[d] = (double)wl_next(&rng) / 18446744073709551616.0 * 2 - 1;
            bodies[i].v[d] = ((double)wl_next(&rng) / 18446744073709551616.0 - 0.5) * 0.1;
        }
        bodies[i].m = 1.0 / (double)nbodies;
    }
    /* The first step's octants, as thread 0 computes them after each step. */
    root_half = 1.0001;
    for (size_t i = 0; i < nbodies; i++) {
        int o = (bodies[i].x[0] >= 0) | (bodies[i].x[1] >= 0) << 1 | (bodies[i].x[2] >= 0) << 2;
        octant_bodies[o][octant_count[o]++] = (int32_t)i;
    }
    pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
    wl_run_threads(nthreads, worker, NULL);
    pthread_barrier_destroy(&barrier);
    if (atomic_load(&nodes_freed) != atomic_load(&node_serial))
        wl_fail("%llu nodes made, %llu freed", (unsigned long long)atomic_load(&node_serial),
                (unsigned long long)atomic_load(&nodes_freed));
    uint64_t checksum = 0;
    for (size_t i = 0; i < nbodies; i++)
        for (int d = 0; d < 3; d++) {
            uint64_t bits;
            if (!isfinite(bodies[i].x[d]))
                wl_fail("body %zu left the finite world", i);
            memcpy(&bits, &bodies[i].x[d], 8);
            checksum = wl_mix(checksum ^ bits);
        }
    printf("ok checksum=%016llx bodies=%zu steps=%zu nodes=%llu\n", (unsigned long long)checksum, nbodies,
           nsteps, (unsigned long long)atomic_load(&node_serial));
    for (int o = 0; o < 8; o++)
        free(octant_bodies[o]);
    free(bodies);
    return 0;
}
