/* A shared object for pal_symbol_test.c, built twice (PSL_VARIANT 1 and
 * 2: different names, sizes and counts, so the second may be loaded where
 * the first was): exported functions of many sizes, aliases (two names at
 * one address), a weak one, an IFUNC, a data object, a hidden function (not
 * in the dynamic table) and, on x86-64, a size-0 symbol and a symbol nested
 * inside another. */
#define PSL_CAT_(a, b) a##b
#define PSL_CAT(a, b) PSL_CAT_(a, b)
#define PSL_STR_(a) #a
#define PSL_STR(a) PSL_STR_(a)
#define PSL_NAME(n) PSL_CAT(PSL_CAT(psl, PSL_VARIANT), PSL_CAT(_f, n))
#define PSL_EXPORT __attribute__((visibility("default"), noinline))

volatile int psl_sink;

/* n selects the body's length: 1..8 blocks of work */
#define PSL_FN(n)                                       \
    PSL_EXPORT int PSL_NAME(n)(int x)                   \
    {                                                   \
        for (int i = 0; i < (n) % 8 + PSL_VARIANT; i++) \
            x = x * 31 + i + (n);                       \
        if (x & (n))                                    \
            psl_sink = x;                               \
        return x;                                       \
    }
#define PSL_FN10(n) \
    PSL_FN(n##0)    \
    PSL_FN(n##1)    \
    PSL_FN(n##2) PSL_FN(n##3) PSL_FN(n##4) PSL_FN(n##5) PSL_FN(n##6) PSL_FN(n##7) PSL_FN(n##8) PSL_FN(n##9)

PSL_FN10(1)
PSL_FN10(2)
PSL_FN10(3)
PSL_FN10(4)
#if PSL_VARIANT == 2
PSL_FN10(5)
PSL_FN10(6)
PSL_FN10(7)
#endif

__attribute__((visibility("hidden"), noinline)) int psl_hidden(int x)
{
    for (int i = 0; i < 5; i++)
        x = x * 7 + i;
    return x;
}

PSL_EXPORT int PSL_CAT(psl_calls_hidden, PSL_VARIANT)(int x) { return psl_hidden(x) + 1; }

/* two names for one function (dladdr names the first in its table order) */
PSL_EXPORT int PSL_CAT(psl_aliased, PSL_VARIANT)(int x) { return x * 3 + PSL_VARIANT; }
extern __attribute__((alias(PSL_STR(PSL_CAT(psl_aliased, PSL_VARIANT))))) int PSL_CAT(psl_alias,
                                                                                      PSL_VARIANT)(int);

__attribute__((weak, visibility("default"), noinline)) int PSL_CAT(psl_weak, PSL_VARIANT)(int x)
{
    return x - 1;
}

int PSL_CAT(psl_data, PSL_VARIANT)[64] = {1};

static int psl_impl(int x) { return x + 2; }
__attribute__((used)) static int (*psl_resolve(void))(int) { return psl_impl; }
__attribute__((ifunc("psl_resolve"))) int PSL_CAT(psl_ifunc, PSL_VARIANT)(int);

#if defined(__x86_64__)
/* psl_outer covers psl_inner (4 bytes), which a size-0 psl_mark follows */
#define PSL_ASM_(v)                                                                                 \
    ".text\n.globl psl_outer" #v "\n.type psl_outer" #v ",@function\npsl_outer" #v ":\n"            \
    " nop\n nop\n.globl psl_inner" #v "\n.type psl_inner" #v ",@function\npsl_inner" #v             \
    ":\n nop\n nop\n nop\n nop\n.size psl_inner" #v ", 4\n.globl psl_mark" #v "\n.type psl_mark" #v \
    ",@function\npsl_mark" #v ":\n nop\n nop\n nop\n ret\n"                                         \
    ".size psl_outer" #v ", .-psl_outer" #v "\n"
#define PSL_ASM(v) PSL_ASM_(v)
__asm__(PSL_ASM(PSL_VARIANT));
#endif
