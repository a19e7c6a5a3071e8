/* chksum=crc32 — CRC-32C of address, value and key.          [model: crc32]
 * Purpose: the highest detection rate (the paper's CRC check, as in
 *   Scudo): any change of up to 32 bits of address, value or key changes
 *   the word, and the key keeps it unforgeable without knowing it.
 * Check word: low half CRC-32C(key, addr, value), high half CRC-32C of the
 *   same continued over the key again.
 * Does not catch: a write of the same bytes.
 * Time: with SSE4.2 (-msse4.2) or the ARMv8 CRC extension 4 crc32
 *   instructions; otherwise 48 steps of a 16-entry table (Castagnoli
 *   polynomial 0x82F63B78, reflected). Space: 8 bytes per check word.
 * Example: tail_chksum(chksum=crc32)
 *     #define MT_CHKSUM crc32
 *     #include <mortise/layers/tail_chksum.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_chksum_crc32(POLICY, SLOT) POLICY(chksum, crc32, policy)
#if !defined(MORTISE_POLICY_CHKSUM_CRC32_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_CHKSUM_CRC32_H

#if defined(__SSE4_2__)
MT_INLINE uint32_t mt_crc32c_u64(uint32_t crc, uint64_t v)
{
    return (uint32_t)__builtin_ia32_crc32di(crc, v);
}
#elif defined(__ARM_FEATURE_CRC32)
MT_INLINE uint32_t mt_crc32c_u64(uint32_t crc, uint64_t v) { return __builtin_arm_crc32cd(crc, v); }
#else
/* One word, least significant byte first, a nibble per step. */
MT_INLINE uint32_t mt_crc32c_u64(uint32_t crc, uint64_t v)
{
    static const uint32_t table[16] = {
        0x00000000, 0x105ec76f, 0x20bd8ede, 0x30e349b1, 0x417b1dbc, 0x5125dad3, 0x61c69362, 0x7198540d,
        0x82f63b78, 0x92a8fc17, 0xa24bb5a6, 0xb21572c9, 0xc38d26c4, 0xd3d3e1ab, 0xe330a81a, 0xf36e6f75,
    };
    for (int i = 0; i < 8; i++) {
        crc ^= (uint32_t)(v & 0xff);
        v >>= 8;
        crc = (crc >> 4) ^ table[crc & 15];
        crc = (crc >> 4) ^ table[crc & 15];
    }
    return crc;
}
#endif

MT_INLINE uint64_t mt_chksum_crc32_keyed(uint64_t key, uintptr_t addr, uint64_t value)
{
    uint32_t lo = mt_crc32c_u64(mt_crc32c_u64(mt_crc32c_u64(0xffffffffu, key), (uint64_t)addr), value);
    uint32_t hi = mt_crc32c_u64(lo, key);
    return ((uint64_t)hi << 32) | (uint32_t)~lo;
}

MT_INLINE uint64_t mt_chksum_crc32_calc(uintptr_t addr, uint64_t value)
{
    return mt_chksum_crc32_keyed(mt_chksum_key(), addr, value);
}

#endif
