/* SPDX-License-Identifier: MIT */
/* What the CTF tests share (ctf_helpers.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
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

#include "ctf_helpers.h"

gcev_status parse(const char *text, gcev_ctf_meta *m, gcev_ctf_meta_error *e)
{
    return gcev_ctf_meta_parse(text, strlen(text), m, e);
}

char *trace_metadata(int header)
{
    static const char *tmpl =
        "/* CTF 1.8 */\n"
        "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
        "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
        "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
        "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
        "typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n"
        "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
        "typealias integer { size = 27; align = 1; signed = false; } := uint27_t;\n"
        "trace { major = 1; minor = 8; uuid = \"00112233-4455-6677-8899-aabbccddeeff\"; byte_order = le;\n"
        "  packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; uint64_t "
        "stream_instance_id; }; };\n"
        "env { domain = \"ust\"; tracer_name = \"lttng-ust\"; architecture_bit_width = 64; };\n"
        "clock { name = \"monotonic\"; freq = 1000000000; offset_s = 1; offset = 500; };\n"
        "typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := "
        "uint27_clock_monotonic_t;\n"
        "typealias integer { size = 32; align = 8; signed = false; map = clock.monotonic.value; } := "
        "uint32_clock_monotonic_t;\n"
        "typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := "
        "uint64_clock_monotonic_t;\n"
        "struct packet_context { uint64_clock_monotonic_t timestamp_begin; uint64_clock_monotonic_t "
        "timestamp_end;\n"
        "  uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num; unsigned long "
        "events_discarded;\n"
        "  uint32_t cpu_id; };\n"
        "struct event_header_compact { enum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
        "  variant <id> { struct { uint27_clock_monotonic_t timestamp; } compact;\n"
        "    struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended; } v; } align(8);\n"
        "struct event_header_large { enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
        "  variant <id> { struct { uint32_clock_monotonic_t timestamp; } compact;\n"
        "    struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended; } v; } align(8);\n"
        "stream { id = 0; event.header := struct %s; packet.context := struct packet_context;\n"
        "  event.context := struct { integer { size = 32; align = 8; signed = 1; } _vpid;\n"
        "    integer { size = 32; align = 8; signed = 1; } _vtid;\n"
        "    integer { size = 8; align = 8; signed = 1; encoding = UTF8; } _procname[17]; }; };\n"
        "event { name = \"DotNETRuntime:GCStart_V2\"; id = 0; stream_id = 0; loglevel = 13; fields := struct "
        "{\n"
        "  uint32_t _Count; uint32_t _Depth; uint32_t _Reason; uint32_t _Type; uint16_t _ClrInstanceID;\n"
        "  uint64_t _ClientSequenceNumber; }; };\n"
        "event { name = \"DotNETRuntimePrivate:PrvFinalizeObject\"; id = 1; stream_id = 0; fields := struct "
        "{\n"
        "  uint64_t _TypeID; uint64_t _ObjectID; uint16_t _ClrInstanceID; string _TypeName; }; };\n"
        "event { name = \"DotNETRuntime:GCHeapStats_V1\"; id = 2; stream_id = 0; fields := struct {\n"
        "  uint32_t _length; uint32_t ____data___length;\n"
        "  integer { size = 8; align = 8; signed = 1; } ___data__[ ____data___length ]; }; };\n"
        "event { name = \"sched_process_exit\"; id = 3; stream_id = 0; fields := struct {\n"
        "  integer { size = 8; align = 8; signed = 0; encoding = UTF8; } _comm[16];\n"
        "  integer { size = 32; align = 8; signed = 1; } _tid; }; };\n"
        "event { name = \"DotNETRuntime:GCEnd_V1\"; id = 4; stream_id = 0; fields := struct {\n"
        "  uint32_t _Count; uint32_t _Deep; uint16_t _ClrInstanceID; }; };\n"
        "event { name = \"DotNETRuntime:ThreadCreating\"; id = 40; stream_id = 0; fields := struct {\n"
        "  uint64_t _ID; uint16_t _ClrInstanceID; }; };\n";
    size_t n = strlen(tmpl) + 64;
    char *s = malloc(n);
    assert_non_null(s);
    snprintf(s, n, tmpl, header == HDR_COMPACT ? "event_header_compact" : "event_header_large");
    return s;
}

/* Hex digits to bytes, blanks ignored; returns the count. */
size_t hexb(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (const char *c = hex; *c; c++) {
        if (*c == ' ') {
            continue;
        }
        unsigned v;
        assert_int_equal(sscanf(c, "%2x", &v), 1);
        assert_true(n < cap);
        out[n++] = (uint8_t)v;
        c++;
    }
    return n;
}
