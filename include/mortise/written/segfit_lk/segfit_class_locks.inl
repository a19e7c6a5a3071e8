/* mortise/written/segfit_lk/segfit_class_locks.inl — layers/segfit/class_locks.h written out for segfit_lk by
 * tools/layer_names.py; do not edit: edit layers/segfit/class_locks.h, then run --write. */
/* mortise/layers/segfit/class_locks.h — one lock per size class: taking
 * them all for fork and walking the classes under them for check
 * (segfit_lk, slab_lk).
 *
 * Template part (no include guard), included once per instance after the
 * instance's state is declared.
 * Needs: segfit_lk_state.cls[i].lock of sync policy MT_SYNC for every class
 *   i < MT_SZCLS_CLASSES(MT_SIZECLASS), segfit_lk_classes_used()
 *   (segfit/classes.h), and segfit_lk_check_class_locked(i) declared.
 * Defines:
 *   segfit_lk_lock_classes(), segfit_lk_unlock_classes(), segfit_lk_reset_classes()
 *       every used class's lock taken in index order (fork_prepare: the
 *       order every path that holds two class locks would take), released,
 *       or re-initialised in a forked child;
 *   segfit_lk_check_classes(n)   check_class_locked(i) for i < n, each under
 *       its class lock in turn: the first broken invariant, or NULL.
 */
MT_INLINE void segfit_lk_lock_classes(void)
{
    for (size_t i = 0; i < segfit_lk_classes_used(); i++)
        MT_SYNC_FN(MT_SYNC, lock)(&segfit_lk_state.cls[i].lock);
}

MT_INLINE void segfit_lk_unlock_classes(void)
{
    for (size_t i = 0; i < segfit_lk_classes_used(); i++)
        MT_SYNC_FN(MT_SYNC, unlock)(&segfit_lk_state.cls[i].lock);
}

MT_INLINE void segfit_lk_reset_classes(void)
{
    for (size_t i = 0; i < segfit_lk_classes_used(); i++)
        MT_SYNC_FN(MT_SYNC, init)(&segfit_lk_state.cls[i].lock);
}

MT_SLOW MT_UNUSED const char *segfit_lk_check_classes(size_t n)
{
    const char *broken = NULL;
    for (size_t i = 0; i < n && !broken; i++) {
        MT_SYNC_FN(MT_SYNC, lock)(&segfit_lk_state.cls[i].lock);
        broken = segfit_lk_check_class_locked(i);
        MT_SYNC_FN(MT_SYNC, unlock)(&segfit_lk_state.cls[i].lock);
    }
    return broken;
}
