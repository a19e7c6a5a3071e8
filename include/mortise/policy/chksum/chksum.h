/* mortise/policy/chksum/chksum.h — the chksum policy slot: the check word
 * a safety layer stores beside a block (the paper's chksum_t and
 * chksum_calculate).
 *
 * A policy NAME provides
 *     uint64_t mt_chksum_NAME_calc(uintptr_t addr, uint64_t value);
 * the 8-byte check word (mt_chksum_t) of the word `value` (a block's size, a
 * state) stored at address `addr`, and
 *     uint64_t mt_chksum_NAME_keyed(uint64_t key, uintptr_t addr, uint64_t value);
 * the same word with the key passed in: a layer that loads the key once per
 * operation (tail_chksum: its size word needs it too) computes every word of
 * the operation from that one load (the key is an atomic, so the compiler
 * never merges two loads of it). Layers keep the result next to the
 * block and recompute it to verify: a word that no longer matches was
 * overwritten. Every policy depends on `value`, so a forged size fails the
 * check; xor and crc32 also depend on the address and on a per-process
 * random key, so a check word copied from elsewhere, or guessed without the
 * key, fails too.
 *
 * Layers name the policy in their MT_CHKSUM slot and reach it as
 * MT_CHKSUM_FN(policy, calc) or MT_CHKSUM_FN(policy, keyed).
 *
 * Policies: magic (a constant: cheapest, catches linear overwrites with
 * anything but the constant), xor (address, value and key xor-ed), crc32
 * (CRC-32C of address, value and key: every change of up to 32 bits of the
 * inputs changes the check word).
 *
 * mt_chksum_key() is the per-process key, also used by delayed_free's
 * node_xor: random from the kernel (AT_RANDOM) mixed with the address of a
 * static (ASLR) and the cycle counter, fixed at its first use; a fork child
 * keeps it (the blocks it inherits were checked with it).
 */
#ifndef MORTISE_POLICY_CHKSUM_H
#define MORTISE_POLICY_CHKSUM_H

#include "../../core/platform.h"

typedef uint64_t mt_chksum_t;

#define MT_CHKSUM_FN(policy, op) MT_CAT(MT_CAT(mt_chksum_, policy), _##op)

MT_INLINE uint64_t mt_rotl64(uint64_t v, unsigned r) { return (v << r) | (v >> ((64 - r) & 63)); }

static _Atomic(uint64_t) mt_chksum_secret;

/* A 64-bit mixer (splitmix64's finaliser): every input bit moves every
 * output bit, so the key is not the AT_RANDOM bytes themselves. */
MT_INLINE uint64_t mt_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

MT_SLOW uint64_t mt_chksum_key_init(void)
{
    uint64_t seed = (uint64_t)(uintptr_t)&mt_chksum_secret ^ mt_cycles(), kernel;
    if (mt_pal_random_seed(&kernel))
        seed ^= kernel;
    uint64_t key = mt_mix64(seed) | 1; /* never 0: 0 means "not yet" */
    uint64_t expected = 0;
    if (!mt_cas(&mt_chksum_secret, &expected, key))
        key = expected; /* another thread fixed it first */
    return key;
}

/* The key if it is fixed, else 0: for fast paths that send the rare
 * "not yet" case to their slow path instead of calling the set-up inline
 * (a call there would make the compiler save registers on every call). */
MT_INLINE uint64_t mt_chksum_key_if_set(void) { return mt_load_relaxed(&mt_chksum_secret); }

MT_INLINE uint64_t mt_chksum_key(void)
{
    uint64_t k = mt_chksum_key_if_set();
    if (MT_UNLIKELY(!k))
        k = mt_chksum_key_init();
    return k;
}

#include "magic.h"
#include "xor.h"
#include "crc32.h"

#endif
