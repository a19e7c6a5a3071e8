/* mortise/names/buddy_glk.h — written by tools/layer_names.py from layers/buddy_glk.h; do not edit.
 * layers/buddy_glk.h writes its functions and state under the default instance
 * name buddy_glk; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_buddy_glk
#define MT_NAMES_buddy_glk
#define buddy_glk_alloc MT_SELF(alloc)
#define buddy_glk_alloc_block MT_SELF(alloc_block)
#define buddy_glk_args MT_SELF(args)
#define buddy_glk_at MT_SELF(at)
#define buddy_glk_block_page MT_SELF(block_page)
#define buddy_glk_check_chunk MT_SELF(check_chunk)
#define buddy_glk_check_locked MT_SELF(check_locked)
#define buddy_glk_chunk MT_SELF(chunk)
#define buddy_glk_chunk_of MT_SELF(chunk_of)
#define buddy_glk_cs_add_chunk MT_SELF(cs_add_chunk)
#define buddy_glk_cs_alloc MT_SELF(cs_alloc)
#define buddy_glk_cs_discard_free MT_SELF(cs_discard_free)
#define buddy_glk_cs_free MT_SELF(cs_free)
#define buddy_glk_cs_resize MT_SELF(cs_resize)
#define buddy_glk_cs_take_free_chunk MT_SELF(cs_take_free_chunk)
#define buddy_glk_drop_chunk MT_SELF(drop_chunk)
#define buddy_glk_entry MT_SELF(entry)
#define buddy_glk_fork_child MT_SELF(fork_child)
#define buddy_glk_fork_parent MT_SELF(fork_parent)
#define buddy_glk_fork_prepare MT_SELF(fork_prepare)
#define buddy_glk_free MT_SELF(free)
#define buddy_glk_free_block MT_SELF(free_block)
#define buddy_glk_get MT_SELF(get)
#define buddy_glk_getmeta MT_SELF(getmeta)
#define buddy_glk_id MT_SELF(id)
#define buddy_glk_inline_map MT_SELF(inline_map)
#define buddy_glk_invariants MT_SELF(invariants)
#define buddy_glk_level_for MT_SELF(level_for)
#define buddy_glk_levels MT_SELF(levels)
#define buddy_glk_link_broken MT_SELF(link_broken)
#define buddy_glk_link_sound MT_SELF(link_sound)
#define buddy_glk_new_chunk MT_SELF(new_chunk)
#define buddy_glk_node MT_SELF(node)
#define buddy_glk_pages MT_SELF(pages)
#define buddy_glk_purge MT_SELF(purge)
#define buddy_glk_push_free MT_SELF(push_free)
#define buddy_glk_record_size MT_SELF(record_size)
#define buddy_glk_release MT_SELF(release)
#define buddy_glk_relink MT_SELF(relink)
#define buddy_glk_remove_free MT_SELF(remove_free)
#define buddy_glk_resize MT_SELF(resize)
#define buddy_glk_resize_block MT_SELF(resize_block)
#define buddy_glk_set MT_SELF(set)
#define buddy_glk_span MT_SELF(span)
#define buddy_glk_state MT_SELF(state)
#else
#undef MT_NAMES_buddy_glk
#undef buddy_glk_alloc
#undef buddy_glk_alloc_block
#undef buddy_glk_args
#undef buddy_glk_at
#undef buddy_glk_block_page
#undef buddy_glk_check_chunk
#undef buddy_glk_check_locked
#undef buddy_glk_chunk
#undef buddy_glk_chunk_of
#undef buddy_glk_cs_add_chunk
#undef buddy_glk_cs_alloc
#undef buddy_glk_cs_discard_free
#undef buddy_glk_cs_free
#undef buddy_glk_cs_resize
#undef buddy_glk_cs_take_free_chunk
#undef buddy_glk_drop_chunk
#undef buddy_glk_entry
#undef buddy_glk_fork_child
#undef buddy_glk_fork_parent
#undef buddy_glk_fork_prepare
#undef buddy_glk_free
#undef buddy_glk_free_block
#undef buddy_glk_get
#undef buddy_glk_getmeta
#undef buddy_glk_id
#undef buddy_glk_inline_map
#undef buddy_glk_invariants
#undef buddy_glk_level_for
#undef buddy_glk_levels
#undef buddy_glk_link_broken
#undef buddy_glk_link_sound
#undef buddy_glk_new_chunk
#undef buddy_glk_node
#undef buddy_glk_pages
#undef buddy_glk_purge
#undef buddy_glk_push_free
#undef buddy_glk_record_size
#undef buddy_glk_release
#undef buddy_glk_relink
#undef buddy_glk_remove_free
#undef buddy_glk_resize
#undef buddy_glk_resize_block
#undef buddy_glk_set
#undef buddy_glk_span
#undef buddy_glk_state
#endif
