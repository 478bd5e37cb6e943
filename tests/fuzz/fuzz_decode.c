/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: payload decode with fuzzed provider / id / version / pointer size
 * (framing in fuzz_common.h), then everything done with a decoded event:
 * text/JSON/names formatting, field walk with array elements, encode,
 * GCDynamicEvent. Also the direct family decoder and desc resolution, and the
 * generated straight-line bodies against the descriptor engine (same bytes).
 */
#include "fuzz_common.h"

#include "gcev_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gcev_input in;
    if (!fuzz_decode_input(data, size, &in)) {
        return 0;
    }
    /* a copy of exactly the payload's size, so ASan sees any read past its end */
    uint8_t *payload = in.size ? malloc(in.size) : NULL;
    if (in.size && !payload) {
        return 0;
    }
    if (in.size) {
        memcpy(payload, in.data, in.size);
    }
    in.data = payload;
    gcev_event ev;
    gcev_error err;
    gcev_status st = gcev_decode(&in, &ev, &err);
    /* the generated straight-line bodies against the descriptor engine: the same bytes */
    {
        gcev_event a, b;
        gcev_error ea, eb;
        memset(&a, 0xa5, sizeof a);
        memset(&b, 0xa5, sizeof b);
        memset(&ea, 0xa5, sizeof ea);
        memset(&eb, 0xa5, sizeof eb);
        gcev_status sa = gcev_decode(&in, &a, &ea);
        gcev_status sb = gcev_decode_engine_event(&in, &b, &eb);
        FUZZ_CHECK(sa == st && sa == sb && memcmp(&a, &b, sizeof a) == 0);
        FUZZ_CHECK(sa == GCEV_OK || (ea.code == eb.code && ea.offset == eb.offset && ea.field == eb.field &&
                                     ea.message == eb.message));
    }
    if (st == GCEV_OK) {
        FUZZ_CHECK((size_t)ev.consumed + ev.trailing == in.size);
        fuzz_exercise_event(&ev, (size_t)(data[5] >> 1 & 0x3f), 1);
    } else {
        FUZZ_CHECK(err.code == st);
        FUZZ_CHECK(err.offset <= in.size);
        (void)gcev_status_str(st);
    }
    /* the same bytes through the family entry point */
    gcev_status rs;
    const gcev_event_desc *d = gcev_event_desc_resolve(in.provider, in.event_id, in.version, &rs);
    if (d) {
        gcev_union u;
        uint32_t consumed = 0;
        gcev_status st2 =
            gcev_decode_family(d->family, in.version, in.pointer_size, in.data, in.size, &u, &consumed, &err);
        FUZZ_CHECK(st2 == st);
    }
    free(payload);
    return 0;
}
