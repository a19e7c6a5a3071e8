/* instances/chains/wfslabfl/fake3.inl — layers/fake.h and the fragments it shares with
 * other layers, written out for wfslabfl.c's instance fake3 by tools/layer_names.py;
 * do not edit: edit layers/fake.h (or its fragments), then run --write. */
/* fake — a layer that does nothing.
 *
 * Serves: nothing; forwards every operation unchanged to the next layer.
 * Slots: none. Time and space: zero — it exists to prove that composition is
 * free: inserting fake layers must leave the machine code of malloc and free
 * identical (tests/suites/zero_cost). Thread safety: stateless.
 * Example: mmap_heap::fake::segfit_lk::fake::malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_fake(LAYER, SLOT) \
    LAYER(fake, addon, 0, (), ())       \
    MT_OPS(SLOT, none)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include <mortise/core/layer.h>

#ifdef MT_NAME /* another instance name: the names below become its own */
#include <mortise/names/fake.h>
#else
#define MT_NAME fake
#endif

#define MT_DESCRIPTOR MT_DESCRIPTOR_fake
#include <mortise/core/layer_end.h>
#ifdef MT_NAMES_fake
#include <mortise/names/fake.h> /* forget them */
#endif
#endif /* MT_DESCRIBE */
