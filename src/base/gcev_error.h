/* SPDX-License-Identifier: MIT */
/* The one way every layer reports a fault into the caller's optional gcev_error. */
#ifndef GCEV_ERROR_H
#define GCEV_ERROR_H

#include <gcev/gcev.h>

/* Fills *err (when non-NULL) and returns code. */
static inline gcev_status gcev_error_set(gcev_error *err, gcev_status code, uint64_t offset,
                                         const char *field, const char *message)
{
    if (err) {
        err->code = code;
        err->offset = offset;
        err->field = field;
        err->message = message ? message : gcev_status_str(code);
    }
    return code;
}

#endif
