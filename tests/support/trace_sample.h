/* SPDX-License-Identifier: MIT */
/* A small trace built with gcev_writer, shared by the reader tests. */
#ifndef GCEV_TRACE_SAMPLE_H
#define GCEV_TRACE_SAMPLE_H

#include <gcev/gcev_writer.h>

enum { SAMPLE_EVENTS = 6 };

/* The EventSource provider's GUID in the NetPerf V1 sample (V1 has no names). */
#define SAMPLE_V1_GUID "8e9f5090-2d75-4d03-8a81-e5afbf85daf1"

/* Writes the sample in one format (1-6); returns a malloc'ed copy of the bytes. */
uint8_t *sample_trace(uint32_t version, int compressed, size_t *size);

/* Finishes w and frees it: a malloc'ed copy of the trace it wrote (*size bytes), or NULL. */
uint8_t *sample_writer_bytes(gcev_writer *w, size_t *size);

#endif
