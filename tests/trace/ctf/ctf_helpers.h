/* SPDX-License-Identifier: MIT */
/*
 * What the CTF tests (tests/trace/ctf/test_ctf*.c) share: TSDL text parsed into a model, the
 * metadata of the traces the reader tests write, and payload bytes from hex.
 */
#ifndef GCEV_TESTS_CTF_HELPERS_H
#define GCEV_TESTS_CTF_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "gcev_ctf_meta.h"

enum { HDR_COMPACT, HDR_LARGE };

gcev_status parse(const char *text, gcev_ctf_meta *m, gcev_ctf_meta_error *e);

char *trace_metadata(int header);

/* Hex digits to bytes, blanks ignored; returns the count. */
size_t hexb(const char *hex, uint8_t *out, size_t cap);

#endif
