/* Output and failure counting for the self-test (no printf: the console
 * takes whole strings). */
#include "selftest.h"
#include "console.h"

unsigned bm_failures;

void bm_print(const char *text) { bm_write(text); }

void bm_print_line(const char *text)
{
    bm_write(text);
    bm_write("\n");
}

void bm_print_num(const char *label, uint32_t value)
{
    char digits[12], *p = digits + sizeof digits - 1;
    *p = 0;
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    bm_write(" ");
    bm_write(label);
    bm_write("=");
    bm_write(p);
}

bool bm_check(bool ok, const char *what, const char *file, int line)
{
    if (!ok) {
        bm_failures++;
        bm_print("FAIL: ");
        bm_print(what);
        bm_print(" at ");
        bm_print(file);
        bm_print_num("line", (uint32_t)line);
        bm_print_line("");
    }
    return ok;
}

static uint32_t random_state = 2463534242u;
void bm_random_seed(uint32_t seed) { random_state = seed ? seed : 2463534242u; }
uint32_t bm_random(void)
{
    uint32_t x = random_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return random_state = x;
}
