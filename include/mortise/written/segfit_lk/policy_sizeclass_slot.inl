/* mortise/written/segfit_lk/policy_sizeclass_slot.inl — policy/sizeclass/slot.h written out for segfit_lk by
 * tools/layer_names.py; do not edit: edit policy/sizeclass/slot.h, then run --write. */
/* mortise/policy/sizeclass/slot.h — the sizeclass slot of the layer instance
 * being defined. No include guard: a layer header with a sizeclass slot
 * includes it once per instance, after MT_NAME is set:
 *   - the slot's defaults: sizeclass=log2b, interval's step 16;
 *   - segfit_lk_szcls_key, the policy's key for getmeta's class hint
 *     (core/ctx.h), 0 when the policy defines none. */
#ifndef MT_SIZECLASS
#define MT_SIZECLASS log2b
#endif
#ifndef MT_SIZECLASS_STEP
#define MT_SIZECLASS_STEP 16
#endif
#if MT_SZCLS_KEY(MT_SIZECLASS)
enum { segfit_lk_szcls_key = MT_SZCLS_KEY(MT_SIZECLASS) };
#else
enum { segfit_lk_szcls_key = 0 };
#endif
