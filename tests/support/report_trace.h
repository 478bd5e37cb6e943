/* SPDX-License-Identifier: MIT */
/* Traces of many GCs for the report's size and decimation tests, written with gcev_writer. */
#ifndef GCEV_REPORT_TRACE_H
#define GCEV_REPORT_TRACE_H

#include <stddef.h>
#include <stdint.h>

/*
 * A NetTrace V4 trace of `gcs` GCs over a simulated workstation-then-server process:
 * suspensions, GCStart/End, GCPerHeapHistory (5 generations), GCGlobalHeapHistory
 * (the heap count changes between 2 and 4, as DATAS does), GCHeapStats, an
 * AllocationTick per GC, a background GC with a foreground GC inside every 40th GC,
 * and one pause far longer than the others at GC gcs * 2 / 3 (its number,
 * report_trace_longest(gcs)). Deterministic. Returns malloc'ed bytes (NULL on failure).
 */
uint8_t *report_trace_write(uint32_t gcs, size_t *size);
/* The same with every size times size_scale and every gap between GCs times gap_scale:
 * the widest numbers a page carries (tens of GB, hours). */
uint8_t *report_trace_write_big(uint32_t gcs, uint32_t size_scale, uint32_t gap_scale, size_t *size);
/* The number (GCStart Count) of the GC with the longest pause in report_trace_write(gcs). */
uint32_t report_trace_longest(uint32_t gcs);

#endif
