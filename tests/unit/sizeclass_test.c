/* Size-class policies: monotonic, round-trip, never below the request,
 * multiples of 16. Exhaustive up to 1 MiB, sampled above. */
#include <mortise/policy/sizeclass/sizeclass.h>
#include "../common/check.h"

#define MT_SIZECLASS_STEP 48

#define PROPERTIES(policy, limit)                                                  \
    do {                                                                           \
        int ok_mono = 1, ok_cover = 1, ok_round = 1, ok_align = 1;                 \
        size_t prev = 0;                                                           \
        for (size_t s = 1; s <= (limit); s += (s < (1u << 20) ? 1 : s / 7)) {      \
            size_t i = MT_SZCLS_FN(policy, index)(s);                              \
            size_t cs = MT_SZCLS_FN(policy, size)(i);                              \
            ok_mono &= i >= prev;                                                  \
            ok_cover &= cs >= s;                                                   \
            ok_round &= MT_SZCLS_FN(policy, index)(cs) == i;                       \
            ok_align &= cs % 16 == 0;                                              \
            ok_cover &= i == 0 || MT_SZCLS_FN(policy, size)(i - 1) < s;            \
            prev = i;                                                              \
        }                                                                          \
        CHECK(ok_mono);                                                            \
        CHECK(ok_cover);                                                           \
        CHECK(ok_round);                                                           \
        CHECK(ok_align);                                                           \
    } while (0)

int main(void)
{
    PROPERTIES(log2b, (size_t)1 << 40);
    PROPERTIES(interval, (size_t)1 << 22);
    /* log2b's worst internal fragmentation above 128 bytes is 25 % */
    size_t worst = 0;
    for (size_t s = 129; s < (1u << 20); s++) {
        size_t cs = mt_szcls_log2b_size(mt_szcls_log2b_index(s));
        size_t waste_permille = (cs - s) * 1000 / s;
        worst = waste_permille > worst ? waste_permille : worst;
    }
    CHECK(worst < 250);
    CHECK(mt_szcls_log2b_size(0) == 16 && mt_szcls_log2b_size(8) == 160);
    return check_report("sizeclass_test");
}
