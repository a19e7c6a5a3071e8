/* mortise/layers/segfit/class_locks.h — one lock per size class: taking
 * them all for fork and walking the classes under them for check
 * (segfit_lk, slab_lk).
 *
 * Template part (no include guard), included once per instance after the
 * instance's state is declared.
 * Needs: MT_SELF(state).cls[i].lock of sync policy MT_SYNC for every class
 *   i < MT_SZCLS_CLASSES(MT_SIZECLASS), MT_SELF(classes_used)()
 *   (segfit/classes.h), and MT_SELF(check_class_locked)(i) declared.
 * Defines:
 *   MT_SELF(lock_classes)(), MT_SELF(unlock_classes)(), MT_SELF(reset_classes)()
 *       every used class's lock taken in index order (fork_prepare: the
 *       order every path that holds two class locks would take), released,
 *       or re-initialised in a forked child;
 *   MT_SELF(check_classes)(n)   check_class_locked(i) for i < n, each under
 *       its class lock in turn: the first broken invariant, or NULL.
 */
MT_INLINE void MT_SELF(lock_classes)(void)
{
    for (size_t i = 0; i < MT_SELF(classes_used)(); i++)
        MT_SYNC_FN(MT_SYNC, lock)(&MT_SELF(state).cls[i].lock);
}

MT_INLINE void MT_SELF(unlock_classes)(void)
{
    for (size_t i = 0; i < MT_SELF(classes_used)(); i++)
        MT_SYNC_FN(MT_SYNC, unlock)(&MT_SELF(state).cls[i].lock);
}

MT_INLINE void MT_SELF(reset_classes)(void)
{
    for (size_t i = 0; i < MT_SELF(classes_used)(); i++)
        MT_SYNC_FN(MT_SYNC, init)(&MT_SELF(state).cls[i].lock);
}

MT_SLOW MT_UNUSED const char *MT_SELF(check_classes)(size_t n)
{
    const char *broken = NULL;
    for (size_t i = 0; i < n && !broken; i++) {
        MT_SYNC_FN(MT_SYNC, lock)(&MT_SELF(state).cls[i].lock);
        broken = MT_SELF(check_class_locked)(i);
        MT_SYNC_FN(MT_SYNC, unlock)(&MT_SELF(state).cls[i].lock);
    }
    return broken;
}
