/* SPDX-License-Identifier: MIT */
/*
 * The public decode entry points: the O(1) (provider, id, version) look-up, then
 * the generated straight-line body of the event's template when it has one (one
 * bounds check, loads and stores), else, and whenever the body cannot decode (a
 * payload shorter than its template), the descriptor engine, which reports the
 * field and offset.
 */
#include <gcev/gcev.h>

#include "gcev_compiler.h"
#include "gcev_decode.h"
#include "gcev_error.h"
#include "gcev_fast.h"
#include "gcev_schema_desc.h"
#include "gcev_sized.h"

/* The first layout of gcev_input (gcev.h "Growable structs"). */
#define INPUT_V1 GCEV_SIZE_TO(gcev_input, size)

/* Every family fits the union's fixed size: gcev_event's layout does not follow the manifest. */
_Static_assert(sizeof(gcev_union) == GCEV_UNION_SIZE, "a family struct outgrew GCEV_UNION_SIZE");

static gcev_status fail(gcev_error *err, gcev_status code)
{
    return gcev_error_set(err, code, 0, NULL, NULL);
}

/* An input of another layout than this library's: decoded through a whole one. */
static GCEV_NOINLINE gcev_status decode_sized(const gcev_input *in, gcev_event *out, gcev_error *err)
{
    if (!in || !out) {
        return gcev_error_set(err, GCEV_E_INVALID_ARG, 0, NULL, "input and output are required");
    }
    gcev_input whole;
    gcev_status st = gcev_sized_in(&whole, sizeof whole, in, INPUT_V1);
    if (st != GCEV_OK) {
        return gcev_error_set(err, st, 0, NULL,
                              st == GCEV_E_INVALID_ARG
                                  ? "gcev_input.struct_size is from 1 to 3"
                                  : "gcev_input sets a member this library does not know");
    }
    return gcev_decode(&whole, out, err);
}

/*
 * Not an event (or version) of this provider: common in a trace walk that offers every
 * event of a compiled provider to the decoder. Out of line, so that gcev_decode()'s hot
 * path keeps no stack frame (the status this needs lives in memory) and reaches the body
 * as a plain tail call.
 */
static GCEV_NOINLINE gcev_status unknown_event(const gcev_input *in, gcev_event *out, gcev_error *err)
{
    out->desc = NULL;
    out->family = GCEV_FAMILY_NONE;
    out->consumed = out->trailing = 0;
    gcev_status st;
    gcev_desc_resolve(in->provider, in->event_id, in->version, &st);
    return fail(err, st);
}

gcev_status gcev_decode(const gcev_input *in, gcev_event *out, gcev_error *err)
{
    /* The hot path: valid arguments, an input of this library's layout and an event with
     * a body, which the call below reaches as a tail call. Anything else, and a body's
     * payload too short for its template, is the engine's (with every check and error in
     * one place). */
    if (!in || !out || !gcev_sized_whole(in, sizeof *in, INPUT_V1)) {
        return decode_sized(in, out, err);
    }
    if (in->provider && (in->pointer_size == 4 || in->pointer_size == 8) && in->data &&
        in->size <= UINT32_MAX - 1) {
        const unsigned k = gcev_desc_lookup(in->provider, in->event_id, in->version);
        if (!k) {
            return unknown_event(in, out, err);
        }
        {
            const gcev_event_desc *desc = &in->provider->events[k - 1];
            const gcev_event_fn body = gcev_gen_fast_event[desc->index][in->pointer_size == 8];
            if (body) {
                out->desc = desc;
                out->family = desc->family;
                out->version = in->version;
                out->pointer_size = in->pointer_size;
                out->newer_version = in->version > desc->version;
                /* the room of later members reads 0 (gcev.h); the engine zeroes it too */
                out->reserved_[0] = out->reserved_[1] = out->reserved_[2] = out->reserved_[3] = 0;
                return body(in, out, err);
            }
            /* a variable-size template: the engine, without checking and looking up again */
            return gcev_decode_engine_resolved(desc, in, out, err);
        }
    }
    return gcev_decode_engine_event(in, out, err);
}

gcev_status gcev_decode_desc(const gcev_event_desc *desc, uint8_t pointer_size, const uint8_t *data,
                             size_t size, void *struct_out, uint32_t *consumed, gcev_error *err)
{
    if (consumed) {
        *consumed = 0;
    }
    gcev_status st = gcev_decode_check_args(desc, pointer_size, data, size, struct_out, err);
    if (st != GCEV_OK) {
        return st;
    }
    uint32_t used = 0;
    const gcev_fast_fn body = gcev_gen_fast[desc->index][pointer_size == 8];
    if (body && body(data, (uint32_t)size, struct_out, &used)) {
        st = GCEV_OK;
    } else {
        st = gcev_decode_into(desc, pointer_size, data, (uint32_t)size, struct_out, &used, err);
    }
    if (consumed) {
        *consumed = used;
    }
    return st;
}

gcev_status gcev_decode_family(uint16_t family, uint16_t version, uint8_t pointer_size, const uint8_t *data,
                               size_t size, void *out, uint32_t *consumed, gcev_error *err)
{
    const gcev_family_info *fam = gcev_family_get(family);
    if (!fam || !out) {
        return fail(err, GCEV_E_INVALID_ARG);
    }
    gcev_status st;
    const gcev_event_desc *desc = gcev_desc_resolve(fam->provider, fam->id, version, &st);
    if (!desc) {
        return fail(err, st);
    }
    return gcev_decode_desc(desc, pointer_size, data, size, out, consumed, err);
}
