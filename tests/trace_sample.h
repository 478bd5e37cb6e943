/* SPDX-License-Identifier: MIT */
/* A small trace built with gcev_writer, shared by the reader tests. */
#ifndef GCEV_TRACE_SAMPLE_H
#define GCEV_TRACE_SAMPLE_H

#include <gcev/gcev_writer.h>

enum { SAMPLE_EVENTS = 6 };

/* Writes the sample in one format; returns a malloc'ed copy of the bytes. */
uint8_t *sample_trace(uint32_t version, int compressed, size_t *size);

#endif
