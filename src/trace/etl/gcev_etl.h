/* SPDX-License-Identifier: MIT */
/* The ETL reader as the trace API sees it: detection and open. */
#ifndef GCEV_ETL_H
#define GCEV_ETL_H

#include "gcev_trace_core.h"

/* 1 when the first bytes (at least 80, or all there is) start an .etl file. */
int gcev_etl_detect(const uint8_t *head, size_t n);
/* Parses the logfile header after detection; sets t->ops, t->impl and t->info. */
gcev_status gcev_etl_open(gcev_trace *t, gcev_error *err);

#endif
