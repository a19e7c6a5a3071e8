/* mortise/names/tail_chksum.h — written by tools/layer_names.py from layers/tail_chksum.h; do not edit.
 * layers/tail_chksum.h writes its functions and state under the default instance
 * name tail_chksum; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_tail_chksum
#define MT_NAMES_tail_chksum
#define tail_chksum_alloc MT_SELF(alloc)
#define tail_chksum_alloc_slow MT_SELF(alloc_slow)
#define tail_chksum_canary MT_SELF(canary)
#define tail_chksum_check_word MT_SELF(check_word)
#define tail_chksum_claim_far MT_SELF(claim_far)
#define tail_chksum_encloses MT_SELF(encloses)
#define tail_chksum_examine MT_SELF(examine)
#define tail_chksum_finish MT_SELF(finish)
#define tail_chksum_free MT_SELF(free)
#define tail_chksum_free_below MT_SELF(free_below)
#define tail_chksum_free_far MT_SELF(free_far)
#define tail_chksum_free_slow MT_SELF(free_slow)
#define tail_chksum_freed_mark MT_SELF(freed_mark)
#define tail_chksum_getmeta MT_SELF(getmeta)
#define tail_chksum_getmeta_slow MT_SELF(getmeta_slow)
#define tail_chksum_head MT_SELF(head)
#define tail_chksum_head_bits MT_SELF(head_bits)
#define tail_chksum_head_canary MT_SELF(head_canary)
#define tail_chksum_headed_at MT_SELF(headed_at)
#define tail_chksum_id MT_SELF(id)
#define tail_chksum_inside_block MT_SELF(inside_block)
#define tail_chksum_inspect MT_SELF(inspect)
#define tail_chksum_inspect_heads MT_SELF(inspect_heads)
#define tail_chksum_inspect_named MT_SELF(inspect_named)
#define tail_chksum_mark_broken MT_SELF(mark_broken)
#define tail_chksum_mark_broken_at MT_SELF(mark_broken_at)
#define tail_chksum_mark_freed MT_SELF(mark_freed)
#define tail_chksum_owned_at MT_SELF(owned_at)
#define tail_chksum_quick_size MT_SELF(quick_size)
#define tail_chksum_raise MT_SELF(raise)
#define tail_chksum_report_unowned MT_SELF(report_unowned)
#define tail_chksum_reseal MT_SELF(reseal)
#define tail_chksum_resize MT_SELF(resize)
#define tail_chksum_resize_slow MT_SELF(resize_slow)
#define tail_chksum_seal MT_SELF(seal)
#define tail_chksum_sealed_from MT_SELF(sealed_from)
#define tail_chksum_sealed_over MT_SELF(sealed_over)
#define tail_chksum_size_mask MT_SELF(size_mask)
#define tail_chksum_usable_below MT_SELF(usable_below)
#define tail_chksum_vouch MT_SELF(vouch)
#else
#undef MT_NAMES_tail_chksum
#undef tail_chksum_alloc
#undef tail_chksum_alloc_slow
#undef tail_chksum_canary
#undef tail_chksum_check_word
#undef tail_chksum_claim_far
#undef tail_chksum_encloses
#undef tail_chksum_examine
#undef tail_chksum_finish
#undef tail_chksum_free
#undef tail_chksum_free_below
#undef tail_chksum_free_far
#undef tail_chksum_free_slow
#undef tail_chksum_freed_mark
#undef tail_chksum_getmeta
#undef tail_chksum_getmeta_slow
#undef tail_chksum_head
#undef tail_chksum_head_bits
#undef tail_chksum_head_canary
#undef tail_chksum_headed_at
#undef tail_chksum_id
#undef tail_chksum_inside_block
#undef tail_chksum_inspect
#undef tail_chksum_inspect_heads
#undef tail_chksum_inspect_named
#undef tail_chksum_mark_broken
#undef tail_chksum_mark_broken_at
#undef tail_chksum_mark_freed
#undef tail_chksum_owned_at
#undef tail_chksum_quick_size
#undef tail_chksum_raise
#undef tail_chksum_report_unowned
#undef tail_chksum_reseal
#undef tail_chksum_resize
#undef tail_chksum_resize_slow
#undef tail_chksum_seal
#undef tail_chksum_sealed_from
#undef tail_chksum_sealed_over
#undef tail_chksum_size_mask
#undef tail_chksum_usable_below
#undef tail_chksum_vouch
#endif
