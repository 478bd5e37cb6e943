/* SPDX-License-Identifier: MIT */
/* TDH (TraceLogging) payloads as JSON, reached from gcev_trace_format_fields_json(). */
#ifndef GCEV_TDH_JSON_H
#define GCEV_TDH_JSON_H

#include <gcev/gcev_trace.h>

/* gcev_trace_format_fields_json() for ev->field_type_system == GCEV_FIELD_TYPES_TDH. */
size_t gcev_tdh_format_fields_json(const gcev_trace_event *ev, char *buf, size_t n);

#endif
