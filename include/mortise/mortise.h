/* mortise/mortise.h — one include for users of the framework: the request
 * context and layer contract, the composition macro, the page map and the
 * policy slots. Layer, OS-layer and socket headers are template headers,
 * included one per instance after this (see core/layer.h). */
#ifndef MORTISE_H
#define MORTISE_H
#include "core/platform.h"
#include "core/ctx.h"
#include "core/pagemap.h"
#include "core/layer.h"
#include "core/compose.h"
#include "policy/sync/sync.h"
#include "policy/sizeclass/sizeclass.h"
#endif
