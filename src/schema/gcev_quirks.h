/* SPDX-License-Identifier: MIT */
/* Where real payloads differ from the manifest (see doc/quirks.md). */
#ifndef GCEV_QUIRKS_H
#define GCEV_QUIRKS_H

#include <gcev/gcev.h>

/* 1 when the struct arrays of this event use C-aligned elements on the wire. */
int gcev_quirk_aligned_elements(const gcev_event_desc *desc);

#endif
