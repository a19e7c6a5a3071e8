/* chksum=magic — a constant check word.                     [model: magic]
 * Purpose: the cheapest check: catches linear overwrites (overflow,
 *   underflow) with anything but the constant; no key, no address.
 * Check word: MT_CHKSUM_MAGIC ("Mortise!" in ASCII) xor value, so it still
 *   depends on the stored value (a block's size or state).
 * Does not catch: a write of the same bytes; a check word copied from
 *   another block of the same size.
 * Time: one xor. Space: 8 bytes per check word (the layer's).
 * Example: delayed_free(chksum=magic)
 *     #define MT_CHKSUM magic
 *     #include <mortise/layers/delayed_free.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_chksum_magic(POLICY, SLOT) POLICY(chksum, magic, policy)
#if !defined(MORTISE_POLICY_CHKSUM_MAGIC_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_CHKSUM_MAGIC_H

#define MT_CHKSUM_MAGIC 0x214573697472654dull /* "Mortise!" little-endian */

MT_INLINE uint64_t mt_chksum_magic_keyed(uint64_t key, uintptr_t addr, uint64_t value)
{
    (void)key;
    (void)addr;
    return MT_CHKSUM_MAGIC ^ value;
}

MT_INLINE uint64_t mt_chksum_magic_calc(uintptr_t addr, uint64_t value)
{
    return mt_chksum_magic_keyed(0, addr, value);
}

#endif
