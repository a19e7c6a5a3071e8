/* bench_strbuf: realloc-heavy string and array processing, one thread (the
 * realloc side of espresso in the paper).
 *
 * For each generated line of words: the line is built by growing one string
 * with realloc per word; it is split into a word array grown with realloc
 * per element and one heap copy per word; every word is then doubled in
 * place with realloc, the array is shrunk back with realloc, and the words
 * are joined again in reverse order into a second growing string. A window
 * of the last 256 lines stays live, so blocks of many sizes interleave.
 * Every string's hash is checked against the hash computed while the words
 * were generated (no heap involved), so a realloc that loses or damages
 * bytes fails the run. -t is accepted and ignored.
 */
#include "workload.h"

#define WINDOW 256

struct line {
    char *text; /* the words in reverse order, doubled */
    size_t len;
    uint64_t expect; /* hash `text` must have */
};

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}
#define FNV0 0xcbf29ce484222325ull

static char *append(char *s, size_t *len, const char *w, size_t n)
{
    char *t = realloc(s, *len + n + 1);
    if (!t)
        wl_fail("realloc(%zu) returned NULL", *len + n + 1);
    memcpy(t + *len, w, n);
    *len += n;
    t[*len] = 0;
    return t;
}

static void check_line(const struct line *l, const char *where)
{
    if (!l->text || strlen(l->text) != l->len || fnv(FNV0, l->text, l->len) != l->expect)
        wl_fail("%s: line text damaged", where);
}

int main(int argc, char **argv)
{
    struct wl_args a = wl_parse(argc, argv, "realloc-heavy string and array processing, one thread");
    size_t lines = wl_scaled(150000, a.scale, 1);
    struct wl_rng rng = wl_rng_seed(0x57b0f);
    struct line window[WINDOW] = {{0}};
    uint64_t checksum = 0, reallocs = 0;
    char word[32];
    for (size_t k = 0; k < lines; k++) {
        /* Generate the words; hash the line as it must read when built. */
        size_t nwords = 4 + wl_below(&rng, 40), len = 0;
        uint64_t forward = FNV0, words_hash = 0;
        char *text = NULL;
        for (size_t i = 0; i < nwords; i++) {
            size_t n = 1 + wl_below(&rng, 14);
            for (size_t j = 0; j < n; j++)
                word[j] = (char)('a' + wl_below(&rng, 26));
            if (i) {
                forward = fnv(forward, " ", 1);
                text = append(text, &len, " ", 1);
            }
            forward = fnv(forward, word, n);
            words_hash += wl_mix(fnv(FNV0, word, n));
            text = append(text, &len, word, n);
            reallocs += 1 + (i > 0);
        }
        if (fnv(FNV0, text, len) != forward || strlen(text) != len)
            wl_fail("line %zu: built string damaged", k);

        /* Split into an array grown one slot at a time. */
        char **parts = NULL;
        size_t nparts = 0;
        for (char *p = text; *p;) {
            char *e = strchr(p, ' ');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            char **grown = realloc(parts, (nparts + 1) * sizeof *parts);
            if (!grown)
                wl_fail("realloc of the word array returned NULL");
            parts = grown;
            parts[nparts] = wl_malloc(n + 1, "word copy");
            memcpy(parts[nparts], p, n);
            parts[nparts][n] = 0;
            nparts++;
            reallocs++;
            p += n + (e != NULL);
        }
        free(text);
        if (nparts != nwords)
            wl_fail("line %zu: %zu words split, %zu generated", k, nparts, nwords);

        /* Double every word in place; check the multiset of words. */
        uint64_t seen = 0;
        for (size_t i = 0; i < nparts; i++) {
            size_t n = strlen(parts[i]);
            seen += wl_mix(fnv(FNV0, parts[i], n));
            char *d = realloc(parts[i], 2 * n + 1);
            if (!d)
                wl_fail("realloc of a word returned NULL");
            memcpy(d + n, d, n);
            d[2 * n] = 0;
            parts[i] = d;
            reallocs++;
        }
        if (seen != words_hash)
            wl_fail("line %zu: words damaged by the split", k);

        /* Drop every third word, shrink the array, join the rest reversed. */
        size_t kept = 0;
        for (size_t i = 0; i < nparts; i++) {
            if (i % 3 == 2)
                free(parts[i]);
            else
                parts[kept++] = parts[i];
        }
        char **shrunk = realloc(parts, kept * sizeof *parts);
        if (kept && !shrunk)
            wl_fail("shrinking realloc returned NULL");
        parts = shrunk;
        reallocs++;
        struct line out = {NULL, 0, FNV0};
        for (size_t i = kept; i-- > 0;) {
            size_t n = strlen(parts[i]);
            if (n % 2 || memcmp(parts[i], parts[i] + n / 2, n / 2))
                wl_fail("line %zu: doubled word damaged", k);
            out.text = append(out.text, &out.len, parts[i], n);
            out.expect = fnv(out.expect, parts[i], n);
            free(parts[i]);
            reallocs++;
        }
        free(parts);
        if (!out.text)
            out.text = append(out.text, &out.len, "", 0);

        struct line *slot = &window[k % WINDOW];
        if (slot->text) {
            check_line(slot, "window");
            checksum = wl_mix(checksum ^ slot->expect);
            free(slot->text);
        }
        *slot = out;
    }
    for (size_t i = 0; i < WINDOW; i++) {
        if (!window[i].text)
            continue;
        check_line(&window[i], "window");
        checksum = wl_mix(checksum ^ window[i].expect);
        free(window[i].text);
    }
    printf("ok checksum=%016llx lines=%zu reallocs=%llu\n", (unsigned long long)checksum, lines,
           (unsigned long long)reallocs);
    return 0;
}
