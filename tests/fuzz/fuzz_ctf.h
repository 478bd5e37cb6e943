/* SPDX-License-Identifier: MIT */
/*
 * Input framing of fuzz_ctf (and of its seeds, fuzz_ctf_seeds): a CTF trace
 * folder as one byte string.
 *   [0]      mode: bit 0 = streams read through a read callback (short reads of
 *            1 << (bits 1..3) bytes) instead of from memory; bit 4 = keep-going
 *   then     files, each [u32 little-endian length][bytes]; a length past the
 *            end takes what is left. File 0 is "trace/metadata", files 1..8 are
 *            the streams "trace/channel0_<k>".
 */
#ifndef GCEV_FUZZ_CTF_H
#define GCEV_FUZZ_CTF_H

#include <stddef.h>
#include <stdint.h>

enum { FUZZ_CTF_MAX_FILES = 9 };

typedef struct fuzz_ctf_file {
    const uint8_t *data;
    size_t size;
} fuzz_ctf_file;

/* Splits an input; returns the number of files (0 when the input is empty). */
static inline size_t fuzz_ctf_split(const uint8_t *data, size_t size, uint8_t *mode, fuzz_ctf_file *files)
{
    if (size == 0) {
        return 0;
    }
    *mode = data[0];
    size_t pos = 1, n = 0;
    while (pos < size && n < FUZZ_CTF_MAX_FILES) {
        size_t len = 0;
        for (int i = 0; i < 4 && pos < size; i++) {
            len |= (size_t)data[pos++] << (8 * i);
        }
        if (len > size - pos) {
            len = size - pos;
        }
        files[n].data = data + pos;
        files[n].size = len;
        n++;
        pos += len;
    }
    return n;
}

#endif
