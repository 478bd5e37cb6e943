/* SPDX-License-Identifier: MIT */
/* The EventPipe reader as the trace API sees it: detection and open. */
#ifndef GCEV_NETTRACE_H
#define GCEV_NETTRACE_H

#include "gcev_trace_core.h"

/* The first bytes of a NetTrace (V4-V6) file. */
#define GCEV_NETTRACE_MAGIC "Nettrace"

/* 1 when the first bytes (at least 80, or all there is) start a .nettrace/.netperf. */
int gcev_nettrace_detect(const uint8_t *head, size_t n);
/* Parses the stream header after detection; sets t->ops, t->impl and t->info. */
gcev_status gcev_nettrace_open(gcev_trace *t, gcev_error *err);

#endif
