/* SPDX-License-Identifier: MIT */
/* Tables the generator emits in gcev_events.c, read by the hand-written engine. */
#ifndef GCEV_GENERATED_H
#define GCEV_GENERATED_H

#include "gcev_schema_desc.h"

extern const gcev_provider *const gcev_gen_providers[];
extern const size_t gcev_gen_nproviders;
extern const gcev_family_info gcev_gen_families[]; /* indexed by gcev_family */

#endif
