/* SPDX-License-Identifier: MIT */
/*
 * Packetized CTF metadata (gcev_ctf_metadata_packets.c): packets unpacked into the TSDL text,
 * both byte orders, and each way a packet header can be wrong.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, strdup */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <gcev/gcev.h>
#include <gcev/gcev_trace.h>

#include "gcev_ctf_decode.h"
#include "gcev_ctf_etw.h"
#include "gcev_schema_desc.h"
#include "gcev_ctf_meta.h"
#include "failalloc.h"
#include "zip_builder.h"

#include "ctf_helpers.h"

static void test_metadata_packets_unpacked(void **state)
{
    (void)state;
    const char *text = "/* CTF 1.8 */ env { a = 1; };";
    size_t tl = strlen(text);
    /* two packets, the second padded past its content */
    uint8_t pk[2 * 37 + 64];
    memset(pk, 0, sizeof pk);
    size_t split = 10, pos = 0;
    for (int i = 0; i < 2; i++) {
        size_t n = i == 0 ? split : tl - split;
        size_t psize = 37 + n + (i == 1 ? 16 : 0);
        uint8_t *h = pk + pos;
        h[0] = 0x57, h[1] = 0x1d, h[2] = 0xd1, h[3] = 0x75;
        uint32_t c = (uint32_t)(37 + n) * 8, p = (uint32_t)psize * 8;
        memcpy(h + 24, &c, 4); /* little-endian host assumed by the fixture: checked below */
        memcpy(h + 28, &p, 4);
        h[35] = 1, h[36] = 8;
        memcpy(h + 37, text + (i == 0 ? 0 : split), n);
        pos += psize;
    }
    uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    if (first != 1) {
        skip(); /* the fixture writes host-order sizes */
    }
    char *out;
    size_t len;
    gcev_ctf_meta_error e;
    assert_int_equal(gcev_ctf_metadata_text(pk, pos, &out, &len, &e), GCEV_OK);
    assert_int_equal(len, tl);
    assert_memory_equal(out, text, tl);
    free(out);
    /* cut inside the second packet's content */
    assert_int_equal(gcev_ctf_metadata_text(pk, 37 + split + 37 + 2, &out, &len, &e), GCEV_E_TRUNCATED_FILE);
    assert_int_equal(e.offset, 37 + split);
    assert_null(out);
    /* a bad magic in the second packet */
    pk[37 + split] = 0;
    assert_int_equal(gcev_ctf_metadata_text(pk, pos, &out, &len, &e), GCEV_E_FORMAT);
    assert_int_equal(e.offset, 37 + split);
    /* neither packets nor "/ * CTF" text */
    assert_int_equal(gcev_ctf_metadata_text((const uint8_t *)"trace {", 7, &out, &len, &e), GCEV_E_FORMAT);
}

/* One metadata packet with explicit byte order, sizes and flags. */
static size_t meta_packet(uint8_t *h, int be, const char *text, uint32_t content_bits, uint32_t packet_bits,
                          uint8_t compression, uint8_t encryption)
{
    memset(h, 0, 37);
    const uint32_t v[3] = {0x75d11d57u, content_bits, packet_bits};
    const size_t at[3] = {0, 24, 28};
    for (int k = 0; k < 3; k++) {
        for (int b = 0; b < 4; b++) {
            h[at[k] + (size_t)b] = (uint8_t)(v[k] >> (be ? 24 - 8 * b : 8 * b));
        }
    }
    h[32] = compression;
    h[33] = encryption;
    h[35] = 1, h[36] = 8;
    memcpy(h + 37, text, strlen(text));
    return 37 + strlen(text);
}

/* Big-endian packets, and each way a packet header can be wrong: status and offset. */
static void test_metadata_packets_big_endian_and_bad_headers(void **state)
{
    (void)state;
    const char *text = "/* CTF 1.8 */";
    const uint32_t c = (uint32_t)(37 + strlen(text)) * 8;
    uint8_t pk[2 * 64];
    char *out;
    size_t len;
    gcev_ctf_meta_error e;
    size_t n = meta_packet(pk, 1, text, c, c, 0, 0);
    n += meta_packet(pk + n, 1, text, c, c, 0, 0);
    assert_int_equal(gcev_ctf_metadata_text(pk, n, &out, &len, &e), GCEV_OK);
    assert_int_equal(len, 2 * strlen(text));
    assert_memory_equal(out, "/* CTF 1.8 *//* CTF 1.8 */", len);
    free(out);
    /* the second packet's header cut short */
    assert_int_equal(gcev_ctf_metadata_text(pk, n / 2 + 20, &out, &len, &e), GCEV_E_TRUNCATED_FILE);
    assert_int_equal(e.offset, n / 2);
    assert_non_null(strstr(e.message, "inside a packet header"));
    assert_null(out);
    static const struct {
        uint32_t content, packet;
        uint8_t compression, encryption;
        gcev_status want;
        uint64_t offset;
    } bad[] = {
        {0, 0, 1, 0, GCEV_E_UNSUPPORTED, 32},          {0, 0, 0, 1, GCEV_E_UNSUPPORTED, 32},
        {37 * 8 + 4, 64 * 8, 0, 0, GCEV_E_FORMAT, 24}, /* not whole bytes */
        {36 * 8, 64 * 8, 0, 0, GCEV_E_FORMAT, 24},     /* content smaller than the header */
        {64 * 8, 40 * 8, 0, 0, GCEV_E_FORMAT, 24},     /* content past the packet */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int be = 0; be < 2; be++) {
            n = meta_packet(pk, be, text, bad[i].content ? bad[i].content : c,
                            bad[i].packet ? bad[i].packet : c, bad[i].compression, bad[i].encryption);
            assert_int_equal(gcev_ctf_metadata_text(pk, n, &out, &len, &e), bad[i].want);
            assert_int_equal(e.code, bad[i].want);
            assert_int_equal(e.offset, bad[i].offset);
            assert_null(out);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metadata_packets_unpacked),
        cmocka_unit_test(test_metadata_packets_big_endian_and_bad_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
