/* chksum=xor — address, value and a per-process key, xor-ed.  [model: xor]
 * Purpose: the paper's xor check (wfslabs): as cheap as magic on the fast
 *   path (a load of the key and two xors), but a check word differs per
 *   block and per process, so it cannot be copied from another block or
 *   written by a program that does not know the key.
 * Check word: key xor addr xor rotl(value, 29).
 * Does not catch: a write of the same bytes; an attacker who learns the key
 *   (e.g. by reading a check word and the block's address and size).
 * Time: a load and three ALU operations. Space: 8 bytes per check word.
 * Example: tail_chksum(chksum=xor)
 *     #define MT_CHKSUM xor
 *     #include <mortise/layers/tail_chksum.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_chksum_xor(POLICY, SLOT) POLICY(chksum, xor, policy)
#if !defined(MORTISE_POLICY_CHKSUM_XOR_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_CHKSUM_XOR_H

MT_INLINE uint64_t mt_chksum_xor_keyed(uint64_t key, uintptr_t addr, uint64_t value)
{
    return key ^ (uint64_t)addr ^ mt_rotl64(value, 29);
}

MT_INLINE uint64_t mt_chksum_xor_calc(uintptr_t addr, uint64_t value)
{
    return mt_chksum_xor_keyed(mt_chksum_key(), addr, value);
}

#endif
