/* SPDX-License-Identifier: MIT */
/*
 * LTTng fields to ETW payloads (gcev_ctf_etw.c), one event class at a time.
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

typedef struct etw_case {
    const char *name, *fields; /* the event class */
    uint8_t pointer_size;
    const char *bytes;  /* the event's field bytes (little-endian trace) */
    const char *symbol; /* compiled event it maps to, or NULL */
    const char *provider;
    uint8_t raw;         /* payload = the field bytes as they are */
    const char *payload; /* hex */
} etw_case;

static void test_ctf_etw_fields_become_the_etw_payload(void **state)
{
    (void)state;
    static const etw_case cases[] = {
        /* no such runtime event: every field by its own type; UTF-8 to UTF-16 with U+FFFD for
         * overlong, surrogate, past-U+10FFFF and stray bytes, a pair for U+1F600 */
        {"DotNETRuntime:Mystery",
         "int16_t _a; floating_point { exp_dig = 11; mant_dig = 53; align = 8; } _d; string _s; uint8_t "
         "_b[3];"
         " uint16_t _w[2]; uint32_t _n; int32_t _q[_n];",
         8,
         "feff 000000000000f83f 68e282ac e08080 eda080 f09f9880 f4908080 c3a9 ff 00 010203 34127856 02000000"
         " ffffffff05000000",
         NULL, "Microsoft-Windows-DotNETRuntime", 0,
         "feff 000000000000f83f 6800 ac20 fdff fdff 3dd800de fdff e900 fdff 0000 010203 34127856 02000000"
         " ffffffff05000000"},
        /* fields with no ETW form (a 5-bit integer, a struct, an array of 5-bit integers): raw bytes */
        {"DotNETRuntime:Mystery2", "uint5_t _x; uint8_t _y;", 8, "1f07", NULL,
         "Microsoft-Windows-DotNETRuntime", 1, "1f07"},
        {"DotNETRuntime:Mystery3", "struct { uint8_t _i; } _s; uint8_t _y;", 8, "0102", NULL,
         "Microsoft-Windows-DotNETRuntime", 1, "0102"},
        {"DotNETRuntime:Mystery4", "uint5_t _arr[2]; uint8_t _y;", 8, "ff0309", NULL,
         "Microsoft-Windows-DotNETRuntime", 1, "ff0309"},
        {"DotNETRuntime:Mystery5", "", 8, "", NULL, "Microsoft-Windows-DotNETRuntime", 0, ""},
        /* a known event whose fields are not the manifest's: no id, each field by its own type */
        {"DotNETRuntime:GCEnd_V1", "uint32_t _Count; string _Depth; uint16_t _ClrInstanceID;", 8,
         "07000000 4100 0100", NULL, "Microsoft-Windows-DotNETRuntime", 0, "07000000 41000000 0100"},
        /* manifest fields: a win:Binary with its length, ANSI strings, pointers of a 32-bit process */
        {"DotNETRuntime:GCDynamicEvent",
         "string _Name; uint32_t _DataSize; uint8_t _Data[_DataSize]; uint16_t _ClrInstanceID;", 8,
         "4100 02000000 aabb 0500", "GCDynamicEvent", "Microsoft-Windows-DotNETRuntime", 0,
         "41000000 02000000 aabb 0500"},
        {"DotNETRuntimePrivate:CCWRefCountChangeAnsi",
         "uint64_t _HandleID; uint64_t _ObjectID; uint64_t _COMInterfacePointer; uint32_t _NewRefCount;"
         " uint64_t _AppDomainID; string _ClassName; string _NameSpace; string _Operation;"
         " uint16_t _ClrInstanceID;",
         4,
         "0100000000000000 0200000000000000 0300000000000000 04000000 0500000000000000 4300 4e00 4f00 0900",
         "CCWRefCountChangeAnsi", "Microsoft-Windows-DotNETRuntimePrivate", 0,
         "01000000 02000000 03000000 04000000 0500000000000000 4300 4e00 4f000000 0900"},
        /* UTF-8 sequences cut by the next lead byte or by the end: U+FFFD for each byte */
        {"DotNETRuntime:Mystery6", "string _s;", 8, "c3 e282 f09f98 c341 00", NULL,
         "Microsoft-Windows-DotNETRuntime", 0, "fdff fdff fdff fdff fdff fdff fdff 4100 0000"},
        {"DotNETRuntime:Mystery7", "string _s;", 8, "41 e282 00", NULL, "Microsoft-Windows-DotNETRuntime", 0,
         "4100 fdff fdff 0000"},
        /* the ETW payload as one ___data__ blob: only its bytes */
        {"DotNETRuntime:GCHeapStats_V1", "uint32_t _len; uint8_t ___data__[_len];", 8, "03000000 aabbcc",
         "GCHeapStats_V1", "Microsoft-Windows-DotNETRuntime", 0, "aabbcc"},
        /* a runtime-like prefix with no compiled provider; a known event with too few fields or a
         * field of no byte width */
        {"DotNETRuntimeStress:Thing", "uint8_t _y;", 8, "09", NULL, "Microsoft-Windows-DotNETRuntimeStress",
         0, "09"},
        {"DotNETRuntime:GCEnd_V1", "uint32_t _Count;", 8, "07000000", NULL, "Microsoft-Windows-DotNETRuntime",
         0, "07000000"},
        {"DotNETRuntime:GCEnd_V1", "uint5_t _Count; uint32_t _Depth; uint16_t _ClrInstanceID;", 8,
         "1f 02000000 0100", NULL, "Microsoft-Windows-DotNETRuntime", 1, "1f 02000000 0100"},
        /* not the runtime's: the fields' bytes under the prefix, or the default provider */
        {"lttng_ust_statedump:start", "uint8_t _y; uint16_t _z;", 8, "01 0203", NULL, "lttng_ust_statedump",
         1, "010203"},
        {"sched_switch", "uint8_t _y;", 8, "09", NULL, "lttng-modules", 1, "09"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const etw_case *k = &cases[i];
        char tsdl[2048];
        snprintf(tsdl, sizeof tsdl,
                 "/* CTF 1.8 */\n"
                 "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
                 "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
                 "typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
                 "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
                 "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
                 "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
                 "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
                 "trace { major = 1; minor = 8; byte_order = le; };\n"
                 "event { name = \"%s\"; id = 0; fields := struct { %s }; };\n",
                 k->name, k->fields);
        gcev_ctf_meta m;
        gcev_ctf_meta_error e;
        if (parse(tsdl, &m, &e) != GCEV_OK) {
            fail_msg("case %zu: line %u: %s", i, e.line, e.message);
        }
        const gcev_ctf_event_class *ev = &m.events[0];
        uint8_t data[256], want[256];
        size_t n = hexb(k->bytes, data, sizeof data);
        size_t wn = hexb(k->payload, want, sizeof want);
        gcev_ctf_cursor c;
        memset(&c, 0, sizeof c);
        c.data = data;
        c.end = c.avail = n * 8;
        c.work = 1u << 20;
        gcev_ctf_slot slots[16];
        assert_int_equal(gcev_ctf_decode_root(&c, GCEV_CTF_ROOT_EVENT_FIELDS, ev->fields, slots), GCEV_OK);
        assert_int_equal(c.pos, n * 8);
        gcev_ctf_class_map map;
        assert_int_equal(gcev_ctf_class_plan(ev, "lttng-modules", k->pointer_size, &map), GCEV_OK);
        assert_string_equal(map.provider_name, k->provider);
        assert_string_equal(map.event_name, strchr(k->name, ':') ? strchr(k->name, ':') + 1 : k->name);
        if (k->symbol) {
            assert_non_null(map.desc);
            assert_string_equal(map.desc->symbol, k->symbol);
            assert_non_null(map.provider);
        } else {
            assert_null(map.desc);
        }
        assert_int_equal(map.raw, k->raw);
        gcev_ctf_buf out = {NULL, 0, 0};
        const uint8_t *payload;
        uint32_t size;
        assert_int_equal(gcev_ctf_payload(&map, ev->fields, slots, data, 0, &out, &payload, &size), GCEV_OK);
        if (size != wn || (wn && memcmp(payload, want, wn) != 0)) {
            fail_msg("case %zu (%s): payload of %u bytes differs from the %zu expected", i, k->name, size,
                     wn);
        }
        free(out.data);
        gcev_ctf_class_map_free(&map);
        gcev_ctf_cursor_free(&c);
        gcev_ctf_meta_free(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ctf_etw_fields_become_the_etw_payload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
