/* SPDX-License-Identifier: MIT */
/*
 * The growable structs a caller passes in (gcev.h "Growable structs", doc/ABI.md): they
 * begin with `uint32_t struct_size`, the bytes the caller's struct has (0: the first layout).
 * gcev_sized_in() reads one into the library's own whole struct, so the rest of the library
 * reads whole structs and never reads past the caller's bytes.
 */
#ifndef GCEV_SIZED_H
#define GCEV_SIZED_H

#include <gcev/gcev.h>

#include <stddef.h>
#include <stdint.h>

/* The end of member m of type T: the size of a layout whose last member is m. */
#define GCEV_SIZE_TO(T, m) (offsetof(T, m) + sizeof(((T *)0)->m))

/*
 * Reads the caller's struct `in` (NULL: none, every member its default) into `out`, the
 * library's struct of `full` bytes: the caller's bytes (struct_size, 0 read as v1, the first
 * layout's size), 0 past them (members its release did not have take their defaults);
 * out's struct_size is set to `full`. Returns GCEV_OK; GCEV_E_INVALID_ARG for a struct_size
 * from 1 to 3 (smaller than itself); GCEV_E_UNSUPPORTED when the caller's struct is larger
 * than `full` and sets a byte past it (an option of a later release: ignoring it would
 * change what the call does).
 */
gcev_status gcev_sized_in(void *out, size_t full, const void *in, size_t v1);

/* 1 when the caller's struct at in (not NULL) can be read in place: it has this library's
 * layout (struct_size == full, or 0 while the first layout is the whole struct). */
static inline int gcev_sized_whole(const void *in, size_t full, size_t v1)
{
    uint32_t n = *(const uint32_t *)in;
    return n == full || (n == 0 && v1 == full);
}

#endif
