/* SPDX-License-Identifier: MIT */
/*
 * The CTF (LTTng) reader on small hand-written traces: the TSDL parser on
 * small metadata (model and errors with their line), packetized metadata, the
 * bit reader, then whole traces written here (metadata text + stream files in
 * a temporary folder): compact and large event headers with their extended
 * forms, 27-bit timestamp wrap-around, the clock offset, the event context,
 * payloads rebuilt in the ETW layout, the merge of two streams, every
 * truncation of a stream file, and hostile packets.
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

/* ---- TSDL parser -------------------------------------------------------------- */

static gcev_status parse(const char *text, gcev_ctf_meta *m, gcev_ctf_meta_error *e)
{
    return gcev_ctf_meta_parse(text, strlen(text), m, e);
}

static const char SMALL[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n"
    "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
    "trace { major = 1; minor = 8; byte_order = be;\n"
    "  uuid = \"e0fe85b7-b861-46a3-8c39-88de301a4385\";\n"
    "  packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; };\n"
    "};\n"
    "env { hostname = \"h\"; tracer_major = 2; architecture_bit_width = 32; };\n"
    "clock { name = \"monotonic\"; freq = 1000; offset_s = -3; offset = 7; };\n"
    "typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; }"
    " := uint27_clock_t;\n"
    "typedef struct { uint32_t a; unsigned long b; } pair_t;\n"
    "struct hdr { enum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
    "  variant <id> { struct { uint27_clock_t timestamp; } compact;\n"
    "                 struct { uint32_t id; unsigned long timestamp; } extended; } v;\n"
    "} align(8);\n"
    "callsite { name = \"x\"; func = \"f\"; ip = 0x1234; file = \"a.c\"; line = 3; };\n"
    "stream { id = 3; event.header := struct hdr; };\n"
    "event { name = \"p:two\"; id = 2; stream_id = 3; loglevel = -1;\n"
    "  fields := struct { pair_t p; string s; uint8_t n; uint32_t seq[n]; "
    "floating_point { exp_dig = 11; mant_dig = 53; align = 8; } d;\n"
    "    enum e : uint8_t { A, B = 5, \"C C\" = 7 ... 9, D } k; };\n"
    "};\n"
    "event { name = \"p:one\"; id = 1; stream_id = 3; fields := struct { uint8_t x, y[2][3]; }; };\n";

static void test_tsdl_small_model(void **state)
{
    (void)state;
    gcev_ctf_meta m;
    gcev_ctf_meta_error e;
    assert_int_equal(parse(SMALL, &m, &e), GCEV_OK);
    assert_int_equal(m.big_endian, 1);
    assert_int_equal(m.has_uuid, 1);
    assert_int_equal(m.uuid[0], 0xe0);
    assert_int_equal(m.uuid[15], 0x85);
    assert_int_equal(m.nclocks, 1);
    assert_int_equal(m.clocks[0].freq, 1000);
    assert_int_equal(m.clocks[0].offset_s, -3);
    assert_int_equal(m.clocks[0].offset, 7);
    const gcev_ctf_env *env = gcev_ctf_meta_env(&m, "architecture_bit_width");
    assert_non_null(env);
    assert_null(env->str);
    assert_int_equal(env->num, 32);
    assert_string_equal(gcev_ctf_meta_env(&m, "hostname")->str, "h");
    assert_int_equal(m.nstreams, 1);
    const gcev_ctf_stream_class *sc = gcev_ctf_meta_stream(&m, 3);
    assert_non_null(sc);
    assert_int_equal(sc->nevents, 2);
    /* the header: enum id (5 bits, align 1), variant, struct align(8) */
    const gcev_ctf_type *h = sc->event_header;
    assert_int_equal(h->kind, GCEV_CTF_STRUCT);
    assert_int_equal(h->align, 8);
    assert_int_equal(h->nfields, 2);
    const gcev_ctf_type *id = h->fields[0].type;
    assert_int_equal(id->kind, GCEV_CTF_ENUM);
    assert_int_equal(id->size, 5);
    assert_int_equal(id->align, 1);
    assert_int_equal(id->nentries, 2);
    assert_string_equal(gcev_ctf_enum_label(id, 30), "compact");
    assert_string_equal(gcev_ctf_enum_label(id, 31), "extended");
    const gcev_ctf_type *v = h->fields[1].type;
    assert_int_equal(v->kind, GCEV_CTF_VARIANT);
    assert_string_equal(v->ref, "id");
    const gcev_ctf_type *ts = v->fields[0].type->fields[0].type;
    assert_int_equal(ts->size, 27);
    assert_int_equal(ts->has_clock, 1);
    assert_int_equal(ts->clock, 0);
    /* events are sorted by id within the stream */
    const gcev_ctf_event_class *one = gcev_ctf_meta_event(&m, sc, 1);
    const gcev_ctf_event_class *two = gcev_ctf_meta_event(&m, sc, 2);
    assert_non_null(one);
    assert_non_null(two);
    assert_null(gcev_ctf_meta_event(&m, sc, 3));
    assert_string_equal(one->name, "p:one");
    assert_int_equal(two->loglevel, -1);
    /* uint8_t x, y[2][3]: an array of 2 arrays of 3 */
    const gcev_ctf_type *y = one->fields->fields[1].type;
    assert_int_equal(y->kind, GCEV_CTF_ARRAY);
    assert_int_equal(y->length, 2);
    assert_int_equal(y->elem->kind, GCEV_CTF_ARRAY);
    assert_int_equal(y->elem->length, 3);
    const gcev_ctf_type *f = two->fields;
    assert_int_equal(f->nfields, 6);
    assert_int_equal(f->fields[0].type->kind, GCEV_CTF_STRUCT);    /* typedef'd struct */
    assert_int_equal(f->fields[0].type->fields[1].type->size, 64); /* "unsigned long" */
    assert_int_equal(f->fields[1].type->kind, GCEV_CTF_STRING);
    assert_int_equal(f->fields[3].type->kind, GCEV_CTF_SEQUENCE);
    assert_string_equal(f->fields[3].type->ref, "n");
    assert_int_equal(f->fields[4].type->kind, GCEV_CTF_FLOAT);
    assert_int_equal(f->fields[4].type->size, 64);
    const gcev_ctf_type *k = f->fields[5].type;
    assert_int_equal(k->nentries, 4);
    assert_string_equal(gcev_ctf_enum_label(k, 0), "A");
    assert_string_equal(gcev_ctf_enum_label(k, 5), "B");
    assert_string_equal(gcev_ctf_enum_label(k, 8), "C C");
    assert_string_equal(gcev_ctf_enum_label(k, 10), "D");
    assert_null(gcev_ctf_enum_label(k, 6));
    gcev_ctf_meta_free(&m);
}

/* Every construct the parser accepts beyond SMALL, each read as declared. */
static const char CONSTRUCTS[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 16; } := u;\n"
    "typealias integer { size = 8; signed = TRUE; base = hex; encoding = ASCII; byte_order = network; } := "
    "u;\n"
    "typealias integer { size = 32; signed = false; base = oct; encoding = UTF8; } := int;\n"
    "typealias integer { size = 8; base = b; byte_order = little; } := bits_t;\n"
    "typealias integer { size = 8; base = 16; encoding = none; } := hex_t;\n"
    "typealias floating_point { exp_dig = 8; mant_dig = 24; byte_order = le; } := float;\n"
    "typealias string { encoding = ASCII; } := astr;\n"
    "typealias enum { E0, E1, E2, E3, E4, E5, E6, E7, E8, E9 = 0x1F } := ten_t;\n"
    "typealias enum neg : u { M = -2 ... -1, Z } := neg_t;\n"
    "typealias variant choice <sel> { u a; int b; } := choice_t;\n"
    "trace { major = 1; minor = 8; byte_order = le; uuid = \"E0FE85B7-B861-46A3-8C39-88DE301A4385\"; };\n"
    "env { s = \"a\\\"b\\n\\tc\"; };\n"
    "clock { name = c; offset = -9223372036854775808; };\n"
    "callsite { a = { b = { c; }; }; };\n"
    "stream { id = 2; packet.context := struct { int size; }; event.context := struct { u cpu; };\n"
    "  something := string; };\n"
    "stream { id = 1; };\n"
    "event { name = \"e\"; id = 0; stream_id = 2;\n"
    "  context := struct { u c; };\n"
    "  fields := struct { typealias integer { size = 64; } := u64; typedef u64 pair_t[2];\n"
    "    pair_t p; enum neg n; variant choice <n> v; ten_t t; float f; astr s; bits_t b; hex_t h; }; };\n";

static void test_tsdl_every_construct_reads_as_declared(void **state)
{
    (void)state;
    gcev_ctf_meta m;
    gcev_ctf_meta_error e;
    gcev_status st = parse(CONSTRUCTS, &m, &e);
    if (st != GCEV_OK) {
        fail_msg("line %u: %s", e.line, e.message);
    }
    assert_int_equal(m.big_endian, 0);
    assert_int_equal(m.uuid[0], 0xe0);
    assert_int_equal(m.uuid[15], 0x85);
    assert_string_equal(gcev_ctf_meta_env(&m, "s")->str, "a\"b\n\tc");
    assert_null(gcev_ctf_meta_env(&m, "nope"));
    assert_true(m.clocks[0].offset == INT64_MIN);
    /* streams sorted by id; a stream without events has none to find */
    assert_int_equal(m.nstreams, 2);
    assert_int_equal(m.streams[0].id, 1);
    assert_int_equal(m.streams[1].id, 2);
    assert_null(gcev_ctf_meta_event(&m, gcev_ctf_meta_stream(&m, 1), 0));
    const gcev_ctf_stream_class *sc = gcev_ctf_meta_stream(&m, 2);
    assert_int_equal(sc->packet_context->fields[0].type->base, 8);
    assert_int_equal(sc->packet_context->fields[0].type->encoding, 1);
    assert_int_equal(sc->event_context->nfields, 1);
    const gcev_ctf_event_class *ev = gcev_ctf_meta_event(&m, sc, 0);
    assert_non_null(ev);
    assert_int_equal(gcev_ctf_type_find(ev->context, "c"), 0);
    const gcev_ctf_type *f = ev->fields;
    assert_int_equal(f->nfields, 8);
    assert_int_equal(gcev_ctf_type_find(f, "nope"), -1);
    assert_int_equal(gcev_ctf_type_find(f->fields[0].type, "x"), -1); /* not a struct */
    /* the redeclared 'u': 8 bits, signed, hex, ASCII, big-endian */
    const gcev_ctf_type *c = ev->context->fields[0].type;
    assert_int_equal(c->size, 8);
    assert_int_equal(c->is_signed, 1);
    assert_int_equal(c->base, 16);
    assert_int_equal(c->encoding, 2);
    assert_int_equal(c->byte_order, GCEV_CTF_BO_BE);
    /* a typedef of an array, inside the struct */
    const gcev_ctf_type *pair = f->fields[0].type;
    assert_int_equal(pair->kind, GCEV_CTF_ARRAY);
    assert_int_equal(pair->length, 2);
    assert_int_equal(pair->elem->size, 64);
    /* a named enum with negative ranges, referred to by name */
    const gcev_ctf_type *n = f->fields[1].type;
    assert_int_equal(n->kind, GCEV_CTF_ENUM);
    assert_int_equal(n->nentries, 2);
    assert_true(n->entries[0].lo == (uint64_t)-2 && n->entries[0].hi == (uint64_t)-1);
    assert_int_equal(n->entries[1].lo, 0);
    /* a named variant used with another tag */
    const gcev_ctf_type *v = f->fields[2].type;
    assert_int_equal(v->kind, GCEV_CTF_VARIANT);
    assert_string_equal(v->ref, "n");
    assert_int_equal(v->nfields, 2);
    assert_int_equal(gcev_ctf_type_find(v, "b"), 1);
    /* ten entries (the table grows past 8), the container is the declared 'int' */
    const gcev_ctf_type *t = f->fields[3].type;
    assert_int_equal(t->nentries, 10);
    assert_int_equal(t->size, 32);
    assert_string_equal(gcev_ctf_enum_label(t, 31), "E9");
    assert_string_equal(gcev_ctf_enum_label(t, 8), "E8");
    const gcev_ctf_type *fl = f->fields[4].type;
    assert_int_equal(fl->kind, GCEV_CTF_FLOAT);
    assert_int_equal(fl->size, 32);
    assert_int_equal(fl->align, 8);
    assert_int_equal(fl->byte_order, GCEV_CTF_BO_LE);
    assert_int_equal(f->fields[5].type->encoding, 2);
    assert_int_equal(f->fields[6].type->base, 2);
    assert_int_equal(f->fields[6].type->byte_order, GCEV_CTF_BO_LE);
    assert_int_equal(f->fields[7].type->base, 16);
    assert_int_equal(f->fields[7].type->encoding, 0);
    gcev_ctf_meta_free(&m);
}

/* Input the table cannot hold: a NUL byte, text over the size limit, many names. */
static void test_tsdl_nul_size_limit_and_many_aliases(void **state)
{
    (void)state;
    gcev_ctf_meta m;
    gcev_ctf_meta_error e;
    static const char nul[] = "env { a = 1; };\n\0 env { b = 2; };";
    assert_int_equal(gcev_ctf_meta_parse(nul, sizeof nul - 1, &m, &e), GCEV_E_FORMAT);
    assert_int_equal(e.line, 2);
    assert_non_null(strstr(e.message, "NUL byte in metadata text"));
    /* the length is checked before a byte is read */
    assert_int_equal(gcev_ctf_meta_parse("", (size_t)GCEV_CTF_MAX_METADATA + 1, &m, &e), GCEV_E_LIMIT);
    assert_non_null(strstr(e.message, "metadata text larger than 64 MiB"));
    assert_null(m.arena);
    /* 100 aliases: the name table is rehashed on the way, every name still found */
    char buf[8192];
    size_t k = 0;
    for (int i = 0; i < 100; i++) {
        k += (size_t)snprintf(buf + k, sizeof buf - k, "typealias integer { size = %d; } := t%d;\n",
                              i % 64 + 1, i);
    }
    k += (size_t)snprintf(buf + k, sizeof buf - k, "event { fields := struct {");
    for (int i = 0; i < 100; i++) {
        k += (size_t)snprintf(buf + k, sizeof buf - k, " t%d f%d;", i, i);
    }
    snprintf(buf + k, sizeof buf - k, " }; };");
    assert_int_equal(parse(buf, &m, &e), GCEV_OK);
    const gcev_ctf_type *f = m.events[0].fields;
    assert_int_equal(f->nfields, 100);
    for (uint32_t i = 0; i < 100; i++) {
        assert_int_equal(f->fields[i].type->size, i % 64 + 1);
    }
    gcev_ctf_meta_free(&m);
    /* 33 array dimensions, an alias name over 255 bytes */
    k = (size_t)snprintf(buf, sizeof buf,
                         "typealias integer { size = 8; } := u8;\nevent { fields := struct { u8 x");
    for (int i = 0; i < 33; i++) {
        k += (size_t)snprintf(buf + k, sizeof buf - k, "[1]");
    }
    snprintf(buf + k, sizeof buf - k, "; }; };");
    assert_int_equal(parse(buf, &m, &e), GCEV_E_LIMIT);
    assert_non_null(strstr(e.message, "more than 32 array dimensions"));
    k = (size_t)snprintf(buf, sizeof buf, "typealias integer { size = 8; } :=");
    for (int i = 0; i < 30; i++) {
        k += (size_t)snprintf(buf + k, sizeof buf - k, " word%04d", i);
    }
    snprintf(buf + k, sizeof buf - k, ";");
    assert_int_equal(parse(buf, &m, &e), GCEV_E_FORMAT);
    assert_non_null(strstr(e.message, "alias name too long"));
}

typedef struct bad_case {
    const char *text;
    gcev_status code;
    uint32_t line;
    const char *msg;
} bad_case;

static void test_tsdl_errors_name_line_and_cause(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"/* CTF 1.8 */\n/* never closed", GCEV_E_FORMAT, 2, "unterminated comment"},
        {"typealias integer { size = 8; } := u8;\nstream { event.header := struct { u9 x; }; };",
         GCEV_E_FORMAT, 2, "type 'u9' is not declared"},
        {"typealias integer { size = 0; } := u0;", GCEV_E_UNSUPPORTED, 1, "integer size 0"},
        {"typealias integer { size = 65; } := u65;", GCEV_E_UNSUPPORTED, 1, "integer size 65"},
        {"typealias integer { align = 8; } := u;", GCEV_E_FORMAT, 1, "integer without a size"},
        {"typealias integer { size = 8; align = 3; } := u;", GCEV_E_FORMAT, 1, "power of two"},
        {"typealias floating_point { exp_dig = 5; mant_dig = 11; } := half;", GCEV_E_UNSUPPORTED, 1,
         "only 32-bit and 64-bit"},
        {"typealias string := s;\ntypealias enum : s { A } := e;", GCEV_E_FORMAT, 2, "must be an integer"},
        {"trace { major = 2; };", GCEV_E_UNSUPPORTED, 1, "CTF major version 2"},
        {"trace { byte_order = native; };", GCEV_E_FORMAT, 1, "le or be"},
        {"event { name = \"a\"; id = 1; };\nevent { name = \"b\"; id = 1; };", GCEV_E_FORMAT, 2,
         "event id 1 declared twice"},
        {"stream { id = 0; };\nevent { name = \"a\"; stream_id = 4; };", GCEV_E_FORMAT, 2, "stream 4"},
        {"stream { id = 1; };\nstream { id = 1; };", GCEV_E_FORMAT, 2, "stream id 1 declared twice"},
        {"env { x = 99999999999999999999; };", GCEV_E_FORMAT, 1, "64 bits"},
        {"env { x = \"a\nb\"; };", GCEV_E_FORMAT, 1, "newline inside a string"},
        {"frobnicate { };", GCEV_E_FORMAT, 1, "unexpected 'frobnicate'"},
        {"typealias integer { size = 8; } := u8;\nevent { fields := struct { u8 x; } };", GCEV_E_FORMAT, 2,
         "expected ';'"},
        {"event { fields := u; };", GCEV_E_FORMAT, 1, "type 'u' is not declared"},
        {"clock { name = c; freq = 0; };", GCEV_E_FORMAT, 1, "freq must not be 0"},
        {"typealias struct nope := x;", GCEV_E_FORMAT, 1, "struct 'nope' is not declared"},
        {"env { a = 1; } @", GCEV_E_FORMAT, 1, "unexpected character '@'"},
        /* numbers and strings */
        {"env { x = 0x; };", GCEV_E_FORMAT, 1, "hexadecimal number without digits"},
        {"env { x = 09; };", GCEV_E_FORMAT, 1, "bad digit in a base-8 number"},
        {"env { x = 0xfF; y = 12g; };", GCEV_E_FORMAT, 1, "malformed number"},
        {"env { x = \"abc", GCEV_E_FORMAT, 1, "unterminated string literal"},
        {"// a line comment\n/* a comment\nof two lines */ frob { };", GCEV_E_FORMAT, 3, "unexpected 'frob'"},
        {"env { a = ->; };", GCEV_E_FORMAT, 1, "expected a value"},
        {"env { a = -x; };", GCEV_E_FORMAT, 1, "expected a number"},
        {"env { a = b.; };", GCEV_E_FORMAT, 1, "expected a name after '.'"},
        /* attribute values */
        {"trace { major = -1; };", GCEV_E_FORMAT, 1, "'major' must be a non-negative integer"},
        {"clock { name = c; offset = x; };", GCEV_E_FORMAT, 1, "'offset' must be an integer"},
        {"clock { name = c;\noffset = -9223372036854775809; };", GCEV_E_FORMAT, 2,
         "'offset' is out of range"},
        {"clock { name = c; offset = 9223372036854775808; };", GCEV_E_FORMAT, 1, "'offset' is out of range"},
        {"typealias integer { size = 8; signed = maybe; } := u;", GCEV_E_FORMAT, 1,
         "'signed' must be true or false"},
        {"typealias integer { size = 8; byte_order = sideways; } := u;", GCEV_E_FORMAT, 1,
         "byte_order must be le, be, native or network"},
        {"typealias integer { size = 8; encoding = ebcdic; } := u;", GCEV_E_FORMAT, 1,
         "encoding must be none, UTF8 or ASCII"},
        {"typealias integer { size = 8; base = 7; } := u;", GCEV_E_FORMAT, 1, "base must be 2, 8, 10 or 16"},
        {"typealias integer { 5 = 8; } := u;", GCEV_E_FORMAT, 1, "expected an attribute name"},
        {"typealias integer { a. = 8; } := u;", GCEV_E_FORMAT, 1, "expected a name after '.'"},
        {"typealias floating_point { exp_dig = 8; mant_dig = 24; align = 3; } := f;", GCEV_E_FORMAT, 1,
         "align must be a power of two up to 65536"},
        {"typealias string { encoding = 7; } := s;", GCEV_E_FORMAT, 1,
         "encoding must be none, UTF8 or ASCII"},
        /* types */
        {"typealias struct := x;", GCEV_E_FORMAT, 1, "expected a struct name or body"},
        {"typealias integer { size = 8; } := u8;\ntypealias struct { u8 a; } align(3) := x;", GCEV_E_FORMAT,
         2, "align() needs a power of two up to 65536"},
        {"typealias variant := x;", GCEV_E_FORMAT, 1, "expected a variant name or body"},
        {"typealias variant v <t> := x;", GCEV_E_FORMAT, 1, "variant 'v' is not declared"},
        {"typealias enum e := x;", GCEV_E_FORMAT, 1, "enum 'e' is not declared"},
        {"typealias integer { size = 8; } := u8;\ntypealias enum : u8 := x;", GCEV_E_FORMAT, 2,
         "expected an enumeration body"},
        {"typealias enum { A } := x;", GCEV_E_FORMAT, 1,
         "enumeration without a container type, and no 'int' is declared"},
        {"typealias integer { size = 8; } := u8;\nevent { fields := struct { u8; }; };", GCEV_E_FORMAT, 2,
         "expected a type and a field name"},
        {"typealias integer { size = 8; } := unsigned char;\nevent { fields := struct { unsigned /* c */ "
         "char x; };"
         " };",
         GCEV_E_FORMAT, 2, "comment inside a type name"},
        {"typealias := x;", GCEV_E_FORMAT, 1, "expected a type"},
        {"typealias integer { size = 8; } := ;", GCEV_E_FORMAT, 1, "expected the alias name after ':='"},
        {"typealias integer { size = 8; } := u8;\nevent { fields := struct { u8 x;", GCEV_E_FORMAT, 2,
         "end of metadata inside a declaration list"},
        /* blocks */
        {"trace { major = 1; uuid = \"zz\"; };", GCEV_E_FORMAT, 1, "uuid must be a string of 32 hex digits"},
        {"trace { major = 1; packet.header := integer { size = 8; }; };", GCEV_E_FORMAT, 1,
         "packet.header must be a struct"},
        {"clock { name = 5; };", GCEV_E_FORMAT, 1, "clock name must be a name"},
        {"clock { freq = 5; };", GCEV_E_FORMAT, 1, "clock without a name"},
        {"stream { event.header := integer { size = 8; }; };", GCEV_E_FORMAT, 1,
         "event.header must be a struct"},
        {"stream { id = 0; };\nstream { };", GCEV_E_FORMAT, 2, "several stream blocks, one without an id"},
        {"event { context := struct { }; other := string; name = 5; };", GCEV_E_FORMAT, 1,
         "event name must be a string"},
        {"callsite { a = { b };\n", GCEV_E_FORMAT, 2, "end of metadata inside a block"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gcev_ctf_meta m;
        gcev_ctf_meta_error e;
        gcev_status st = parse(cases[i].text, &m, &e);
        if (st != cases[i].code || e.line != cases[i].line || !strstr(e.message, cases[i].msg)) {
            fail_msg("case %zu: got %s line %u '%s', want %s line %u '%s'", i, gcev_status_str(st), e.line,
                     e.message, gcev_status_str(cases[i].code), cases[i].line, cases[i].msg);
        }
        assert_null(m.arena);
    }
}

/* Hostile metadata: nesting, long lists and big arrays are bounded, never a crash. */
static void test_tsdl_limits(void **state)
{
    (void)state;
    /* 40 nested anonymous structs */
    char buf[8192];
    size_t k = 0;
    k += (size_t)snprintf(buf + k, sizeof buf - k, "typealias integer { size = 8; } := u8;\ntypealias ");
    for (int i = 0; i < 40; i++) {
        k += (size_t)snprintf(buf + k, sizeof buf - k, "struct { ");
    }
    k += (size_t)snprintf(buf + k, sizeof buf - k, "u8 x; ");
    for (int i = 0; i < 40; i++) {
        k += (size_t)snprintf(buf + k, sizeof buf - k, "} f%d; ", i);
    }
    gcev_ctf_meta m;
    gcev_ctf_meta_error e;
    assert_int_equal(parse(buf, &m, &e), GCEV_E_LIMIT);
    assert_non_null(strstr(e.message, "nested deeper than 32"));
    /* 70000 fields in one struct */
    size_t n = 70000;
    char *big = malloc(n * 12 + 200);
    assert_non_null(big);
    k = (size_t)sprintf(big, "typealias integer { size = 8; } := u8;\nevent { fields := struct {");
    for (size_t i = 0; i < n; i++) {
        k += (size_t)sprintf(big + k, "u8 a%zu;", i);
    }
    strcpy(big + k, "}; };");
    assert_int_equal(parse(big, &m, &e), GCEV_E_LIMIT);
    assert_non_null(strstr(e.message, "more than 65536 fields"));
    free(big);
}

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

static void test_read_bits_both_orders(void **state)
{
    (void)state;
    /* 0b10110011 0b01011100 */
    const uint8_t d[] = {0xB3, 0x5C, 0xFF, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9A};
    /* little-endian: bit 0 = LSB of byte 0 */
    assert_int_equal(gcev_ctf_read_bits(d, 0, 5, 0), 0x13);
    assert_int_equal(gcev_ctf_read_bits(d, 5, 27, 0), (uint64_t)(0x00FF5CB3u >> 5));
    assert_int_equal(gcev_ctf_read_bits(d, 4, 8, 0), 0xCB);
    /* big-endian: bit 0 = MSB of byte 0 */
    assert_int_equal(gcev_ctf_read_bits(d, 0, 5, 1), 0x16);
    assert_int_equal(gcev_ctf_read_bits(d, 4, 8, 1), 0x35);
    assert_int_equal(gcev_ctf_read_bits(d, 0, 16, 1), 0xB35C);
    assert_int_equal(gcev_ctf_read_bits(d, 0, 16, 0), 0x5CB3);
    assert_true(gcev_ctf_read_bits(d, 1, 64, 0) == (((uint64_t)0x9A << 63) | (0x7856341200FF5CB3ull >> 1)));
}

/* ---- whole traces ---------------------------------------------------------------- */

typedef struct bw {
    uint8_t *d;
    size_t cap;
    uint64_t bits;
} bw;

static void bw_bits(bw *w, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, w->bits++) {
        size_t byte = (size_t)(w->bits / 8);
        if (byte >= w->cap) {
            size_t cap = w->cap ? w->cap * 2 : 256;
            w->d = realloc(w->d, cap);
            assert_non_null(w->d);
            memset(w->d + w->cap, 0, cap - w->cap);
            w->cap = cap;
        }
        if ((v >> i) & 1) {
            w->d[byte] |= (uint8_t)(1u << (w->bits % 8));
        }
    }
}

static void bw_align(bw *w, unsigned a)
{
    while (w->bits % a) {
        bw_bits(w, 0, 1);
    }
}

static void bw_int(bw *w, uint64_t v, unsigned bits)
{
    bw_align(w, 8);
    bw_bits(w, v, bits);
}

static void bw_str(bw *w, const char *s)
{
    do {
        bw_int(w, (uint8_t)*s, 8);
    } while (*s++);
}

static void bw_put64_at(bw *w, uint64_t bitpos, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        w->d[bitpos / 8 + (uint64_t)i] = (uint8_t)(v >> (8 * i));
    }
}

enum { HDR_COMPACT, HDR_LARGE };

static char *trace_metadata(int header)
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

typedef struct ev_spec {
    int cls;     /* 0 GCStart_V2, 1 PrvFinalizeObject, 2 GCHeapStats blob, 3 kernel-like, 4 mismatched, 40 */
    uint64_t ts; /* cycles */
    uint32_t a;  /* a value for the fields */
    int packet;  /* packet index this event goes in */
} ev_spec;

typedef struct built {
    bw w;
    size_t nev;
    uint64_t ev_start[64], ev_end[64]; /* byte offsets in the file */
    uint64_t pkt_start[8], pkt_end[8];
    size_t npkt;
} built;

static const uint8_t UUID[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};

static void write_fields(bw *w, const ev_spec *e)
{
    switch (e->cls) {
    case 0:
        bw_int(w, e->a, 32);
        bw_int(w, 2, 32);
        bw_int(w, 3, 32);
        bw_int(w, 1, 32);
        bw_int(w, 7, 16);
        bw_int(w, 0x1122334455667788ull, 64);
        break;
    case 1:
        bw_int(w, 0xAAAA, 64);
        bw_int(w, e->a, 64);
        bw_int(w, 9, 16);
        bw_str(w, "Sys\xc3\xa9m.\xf0\x9f\x98\x80"); /* é and an emoji (a surrogate pair) */
        break;
    case 2:
        bw_int(w, 94, 32);
        bw_int(w, 94, 32);
        for (unsigned i = 0; i < 94; i++) {
            bw_int(w, (uint8_t)(i + e->a), 8);
        }
        break;
    case 3:
        for (unsigned i = 0; i < 16; i++) {
            bw_int(w, i < 4 ? (uint8_t) "bash"[i] : 0, 8);
        }
        bw_int(w, e->a, 32);
        break;
    case 4:
        bw_int(w, e->a, 32);
        bw_int(w, 0, 32);
        bw_int(w, 0, 16);
        break;
    default:
        bw_int(w, e->a, 64);
        bw_int(w, 0, 16);
        break;
    }
}

/* One stream file: packets of events (each packet padded to a multiple of 64 bytes + 32). */
static void build_stream(built *b, int header, const ev_spec *evs, size_t n, uint32_t cpu)
{
    memset(b, 0, sizeof *b);
    bw *w = &b->w;
    uint64_t last = 0;
    size_t i = 0;
    for (int pk = 0; i < n; pk++) {
        uint64_t pstart = w->bits;
        b->pkt_start[b->npkt] = pstart / 8;
        bw_int(w, 0xC1FC1FC1u, 32);
        for (int k = 0; k < 16; k++) {
            bw_int(w, UUID[k], 8);
        }
        bw_int(w, 0, 32);
        bw_int(w, 0, 64);
        uint64_t tb = evs[i].ts;
        bw_int(w, tb, 64);
        uint64_t te_pos = w->bits;
        bw_int(w, 0, 64);
        uint64_t cs_pos = w->bits;
        bw_int(w, 0, 64);
        uint64_t ps_pos = w->bits;
        bw_int(w, 0, 64);
        bw_int(w, (uint64_t)pk, 64);
        bw_int(w, 0, 64);
        bw_int(w, cpu, 32);
        last = tb;
        uint64_t tlast = tb;
        for (; i < n && evs[i].packet == pk; i++) {
            const ev_spec *e = &evs[i];
            bw_align(w, 8);
            b->ev_start[b->nev] = w->bits / 8;
            unsigned id = (unsigned)e->cls;
            if (header == HDR_COMPACT) {
                if (id < 31 && e->ts - last < (1u << 27)) {
                    bw_bits(w, id, 5);
                    bw_bits(w, e->ts & ((1u << 27) - 1), 27);
                } else {
                    bw_bits(w, 31, 5);
                    bw_int(w, id, 32);
                    bw_int(w, e->ts, 64);
                }
            } else {
                if (e->ts - last <= UINT32_MAX && (e->ts >> 32) == (last >> 32)) {
                    bw_int(w, id, 16);
                    bw_int(w, e->ts & 0xFFFFFFFFu, 32);
                } else {
                    bw_int(w, 65535, 16);
                    bw_int(w, id, 32);
                    bw_int(w, e->ts, 64);
                }
            }
            last = e->ts;
            tlast = e->ts;
            bw_int(w, 1000 + cpu, 32);
            bw_int(w, e->a, 32);
            const char *pn = "dotnet";
            for (unsigned k = 0; k < 17; k++) {
                bw_int(w, k < strlen(pn) ? (uint8_t)pn[k] : 0, 8);
            }
            write_fields(w, e);
            b->ev_end[b->nev] = (w->bits + 7) / 8;
            b->nev++;
        }
        uint64_t content = w->bits - pstart;
        uint64_t psize = (content / 8 / 64 + 1) * 64 + 32;
        while (w->bits < pstart + psize * 8) {
            bw_bits(w, 0, 8);
        }
        bw_put64_at(w, te_pos, tlast);
        bw_put64_at(w, cs_pos, content);
        bw_put64_at(w, ps_pos, psize * 8);
        b->pkt_end[b->npkt] = (pstart / 8) + psize;
        b->npkt++;
    }
}

static char *make_dir(void)
{
    const char *base = getenv("GCEV_BINARY_DIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/ctf-test-XXXXXX", base ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

static void write_file(const char *dir, const char *name, const void *data, size_t n)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    if (n) {
        assert_int_equal(fwrite(data, 1, n, f), n);
    }
    fclose(f);
}

static void remove_dir(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static const ev_spec EVENTS[] = {
    {0, 100, 1, 0},
    {1, 200, 0x1000, 0},
    {2, 300, 5, 0},
    {3, 400, 77, 0},
    /* the 27-bit timestamp wraps: compact headers across 2^27 */
    {4, (1u << 27) - 5, 8, 0},
    {0, (1u << 27) + 10, 2, 0},
    /* a jump too big for 27 bits: extended header */
    {0, (1ull << 33) + 3, 3, 1},
    /* id >= 31: extended header */
    {40, (1ull << 33) + 4, 99, 1},
    {0, (1ull << 33) + 5, 4, 1},
};
enum { NEVENTS = sizeof EVENTS / sizeof EVENTS[0] };

static char *write_trace(int header, built *b)
{
    char *dir = make_dir();
    char *meta = trace_metadata(header);
    write_file(dir, "metadata", meta, strlen(meta));
    free(meta);
    build_stream(b, header, EVENTS, NEVENTS, 2);
    write_file(dir, "channel0_2", b->w.d, (size_t)(b->w.bits / 8));
    return dir;
}

static const uint64_t NS0 = 1000000000ull + 500; /* offset_s = 1, offset = 500 cycles at 1 GHz */

static void check_event(const gcev_trace_event *ev, const ev_spec *e)
{
    assert_int_equal(ev->timestamp, (int64_t)(e->ts + NS0));
    assert_int_equal(ev->process_id, 1002);
    assert_int_equal(ev->thread_id, e->a);
    assert_int_equal(ev->processor, 2);
    assert_string_equal(ev->process_name, "dotnet");
    assert_int_equal(ev->pointer_size, 8);
    switch (e->cls) {
    case 0: {
        assert_string_equal(ev->provider_name, "Microsoft-Windows-DotNETRuntime");
        assert_string_equal(ev->event_name, "GCStart_V2");
        assert_int_equal(ev->no_event_id, 0);
        assert_int_equal(ev->event_id, 1);
        assert_int_equal(ev->version, 2);
        assert_non_null(ev->provider);
        assert_int_equal(ev->payload_size, 26);
        gcev_input in = {.struct_size = sizeof in,
                         .provider = ev->provider,
                         .event_id = ev->event_id,
                         .version = ev->version,
                         .pointer_size = ev->pointer_size,
                         .data = ev->payload,
                         .size = ev->payload_size};
        gcev_event d;
        assert_int_equal(gcev_decode(&in, &d, NULL), GCEV_OK);
        assert_int_equal(d.consumed, 26);
        assert_int_equal(d.u.gc_start.count, e->a);
        assert_int_equal(d.u.gc_start.depth, 2);
        assert_int_equal(d.u.gc_start.reason, 3);
        assert_int_equal(d.u.gc_start.type, 1);
        assert_int_equal(d.u.gc_start.clr_instance_id, 7);
        assert_true(d.u.gc_start.client_sequence_number == 0x1122334455667788ull);
        break;
    }
    case 1: {
        assert_string_equal(ev->provider_name, "Microsoft-Windows-DotNETRuntimePrivate");
        assert_int_equal(ev->event_id, 192);
        assert_int_equal(ev->version, 0);
        /* 8 + 8 + 2 + UTF-16 "Sysém.😀" (7 + 2 units) + NUL */
        static const uint8_t want_name[] = {'S', 0,   'y', 0,    's',  0,    0xe9, 0, 'm',
                                            0,   '.', 0,   0x3d, 0xd8, 0x00, 0xde, 0, 0};
        assert_int_equal(ev->payload_size, 18 + sizeof want_name);
        assert_memory_equal(ev->payload + 18, want_name, sizeof want_name);
        gcev_input in = {.struct_size = sizeof in,
                         .provider = ev->provider,
                         .event_id = ev->event_id,
                         .version = ev->version,
                         .pointer_size = ev->pointer_size,
                         .data = ev->payload,
                         .size = ev->payload_size};
        gcev_event d;
        assert_int_equal(gcev_decode(&in, &d, NULL), GCEV_OK);
        assert_int_equal(d.consumed, ev->payload_size);
        break;
    }
    case 2:
        assert_int_equal(ev->event_id, 4);
        assert_int_equal(ev->version, 1);
        assert_int_equal(ev->payload_size, 94);
        for (unsigned i = 0; i < 94; i++) {
            assert_int_equal(ev->payload[i], (uint8_t)(i + e->a));
        }
        break;
    case 3:
        assert_string_equal(ev->provider_name, "lttng-ust"); /* no prefix: the tracer's name */
        assert_string_equal(ev->event_name, "sched_process_exit");
        assert_int_equal(ev->no_event_id, 1);
        assert_null(ev->provider);
        assert_int_equal(ev->payload_size, 20); /* the CTF bytes as they are */
        assert_memory_equal(ev->payload, "bash", 4);
        break;
    case 4:
        /* GCEnd_V1 whose fields are not the manifest's: named, no id */
        assert_string_equal(ev->event_name, "GCEnd_V1");
        assert_int_equal(ev->no_event_id, 1);
        assert_null(ev->provider);
        assert_int_equal(ev->payload_size, 10);
        break;
    default:
        assert_string_equal(ev->provider_name, "Microsoft-Windows-DotNETRuntime");
        assert_string_equal(ev->event_name, "ThreadCreating");
        assert_int_equal(ev->no_event_id, 1);
        assert_int_equal(ev->payload_size, 10);
        break;
    }
}

static void read_all_events(const char *dir, size_t want)
{
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
    const gcev_trace_info *info = gcev_trace_get_info(t);
    assert_int_equal(info->format, GCEV_FORMAT_CTF);
    assert_int_equal(info->format_version, 18);
    assert_int_equal(info->clock_frequency, 1000000000u);
    assert_int_equal(info->sync_time_qpc, (int64_t)(EVENTS[0].ts + NS0));
    assert_int_equal(info->processor_count, 3);
    assert_string_equal(gcev_trace_format_name(info->format), "ctf");
    gcev_trace_event ev;
    size_t n = 0;
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        assert_true(n < want);
        check_event(&ev, &EVENTS[n]);
        n++;
    }
    assert_int_equal(st, GCEV_END);
    assert_int_equal(n, want);
    gcev_trace_close(t);
}

static void test_trace_compact_headers(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    read_all_events(dir, NEVENTS);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

static void test_trace_large_headers(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_LARGE, &b);
    read_all_events(dir, NEVENTS);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/* Two per-CPU streams come out merged in time order (ties: the first stream). */
static void test_trace_streams_merged_in_time_order(void **state)
{
    (void)state;
    char *dir = make_dir();
    char *meta = trace_metadata(HDR_COMPACT);
    write_file(dir, "metadata", meta, strlen(meta));
    free(meta);
    static const ev_spec a[] = {{0, 10, 1, 0}, {0, 30, 3, 0}, {0, 50, 5, 1}, {0, 51, 6, 1}};
    static const ev_spec c[] = {{0, 20, 2, 0}, {0, 30, 4, 0}, {0, 60, 7, 0}};
    built ba, bc;
    build_stream(&ba, HDR_COMPACT, a, 4, 0);
    build_stream(&bc, HDR_COMPACT, c, 3, 1);
    write_file(dir, "channel0_0", ba.w.d, (size_t)(ba.w.bits / 8));
    write_file(dir, "channel0_1", bc.w.d, (size_t)(bc.w.bits / 8));
    write_file(dir, "channel0_2", NULL, 0); /* an empty stream file */
    gcev_trace *t;
    gcev_error err;
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME};
    assert_int_equal(gcev_trace_open_file(dir, &o, &t, &err), GCEV_OK);
    gcev_trace_event ev;
    uint32_t want = 1;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        gcev_input in = {.struct_size = sizeof in,
                         .provider = ev.provider,
                         .event_id = ev.event_id,
                         .version = ev.version,
                         .pointer_size = ev.pointer_size,
                         .data = ev.payload,
                         .size = ev.payload_size};
        gcev_event d;
        assert_int_equal(gcev_decode(&in, &d, NULL), GCEV_OK);
        assert_int_equal(d.u.gc_start.count, want);
        assert_int_equal(ev.processor, (want == 2 || want == 4 || want == 7) ? 1 : 0);
        want++;
    }
    assert_int_equal(want, 8);
    gcev_trace_close(t);
    free(ba.w.d);
    free(bc.w.d);
    remove_dir(dir);
    free(dir);
}

/*
 * Every cut of the stream file: the events that lie whole before the cut come
 * out, then (unless the cut falls between packets) GCEV_E_TRUNCATED_FILE whose
 * message names the stream file and whose offset lies between the first
 * missing event (or packet) and the cut.
 */
static void test_trace_every_truncation(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    size_t full = (size_t)(b.w.bits / 8);
    for (size_t cut = 0; cut <= full; cut++) {
        write_file(dir, "channel0_2", b.w.d, cut);
        size_t whole = 0;
        for (size_t i = 0; i < b.nev; i++) {
            size_t pk = (size_t)EVENTS[i].packet;
            if (b.ev_end[i] <= cut && b.pkt_start[pk] + 84 <= cut) {
                whole++;
            }
        }
        int boundary = 0;
        for (size_t p = 0; p < b.npkt; p++) {
            boundary |= cut == b.pkt_start[p] || cut == b.pkt_end[p];
        }
        boundary |= cut == 0;
        gcev_trace *t;
        gcev_error err = {0};
        assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
        gcev_trace_event ev;
        size_t n = 0;
        gcev_status st;
        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
            check_event(&ev, &EVENTS[n]);
            n++;
        }
        if (n != whole) {
            fail_msg("cut %zu: %zu events, want %zu", cut, n, whole);
        }
        if (boundary) {
            if (st != GCEV_END) {
                fail_msg("cut %zu (a packet boundary): %s %s", cut, gcev_status_str(st), err.message);
            }
        } else {
            if (st != GCEV_E_TRUNCATED_FILE) {
                fail_msg("cut %zu: %s, want truncated (%s)", cut, gcev_status_str(st), err.message);
            }
            assert_non_null(strstr(err.message, "channel0_2"));
            /* from the end of the last whole event, and not before the cut packet's start */
            uint64_t lo = whole ? b.ev_end[whole - 1] : 0;
            for (size_t p = 0; p < b.npkt; p++) {
                if (cut > b.pkt_start[p] && cut < b.pkt_end[p] && b.pkt_start[p] > lo) {
                    lo = b.pkt_start[p];
                }
            }
            if (err.offset < lo || err.offset > cut) {
                fail_msg("cut %zu: error offset %llu not in [%llu, %zu] (%s)", cut,
                         (unsigned long long)err.offset, (unsigned long long)lo, cut, err.message);
            }
            /* sticky */
            gcev_error again = {0};
            assert_int_equal(gcev_trace_next(t, &ev, &again), GCEV_E_TRUNCATED_FILE);
            assert_int_equal(again.offset, err.offset);
        }
        gcev_trace_close(t);
    }
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/* Hostile packets: each gives a specific error after the events before it. */
static void test_trace_bad_packets(void **state)
{
    (void)state;
    typedef struct mutation {
        size_t at;   /* byte offset from the first event's start (SIZE_MAX: from the file start) */
        size_t back; /* for the file-start mutations: offset from 0 */
        uint8_t byte;
        gcev_status code;
        const char *msg;
    } mutation;
    const mutation muts[] = {
        {SIZE_MAX, 0, 0x00, GCEV_E_FORMAT, "packet magic"},
        {SIZE_MAX, 4, 0x01, GCEV_E_FORMAT, "uuid differs"},
        {SIZE_MAX, 20, 0x07, GCEV_E_FORMAT, "stream class the metadata does not declare"},
        {SIZE_MAX, 48 + 7, 0x7f, GCEV_E_FORMAT, "content_size exceeds"},
        {SIZE_MAX, 56 + 7, 0x7f, GCEV_E_LIMIT, "packet larger than the block-size limit"},
        {0, 0, 0x1e, GCEV_E_FORMAT, "event id 30 is not declared"},
    };
    for (size_t k = 0; k < sizeof muts / sizeof muts[0]; k++) {
        built b;
        char *dir = write_trace(HDR_COMPACT, &b);
        size_t off = muts[k].at == SIZE_MAX ? muts[k].back : (size_t)b.ev_start[1] + muts[k].at;
        if (muts[k].at != SIZE_MAX) {
            /* the 5-bit id of the second event */
            b.w.d[off] = (uint8_t)((b.w.d[off] & 0xE0) | muts[k].byte);
        } else {
            b.w.d[off] = muts[k].byte;
        }
        write_file(dir, "channel0_2", b.w.d, (size_t)(b.w.bits / 8));
        gcev_trace *t;
        gcev_error err = {0};
        assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
        gcev_trace_event ev;
        size_t n = 0;
        gcev_status st;
        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
            n++;
        }
        assert_int_equal(n, muts[k].at == SIZE_MAX ? 0 : 1);
        if (st != muts[k].code || !strstr(err.message, muts[k].msg) || !strstr(err.message, "channel0_2")) {
            fail_msg("mutation %zu: %s '%s'", k, gcev_status_str(st), err.message);
        }
        gcev_trace_close(t);
        free(b.w.d);
        remove_dir(dir);
        free(dir);
    }
}

/* A perfcollect-style .trace.zip read in place, from memory and from a file; a cut stream entry. */
static void test_trace_in_zip(void **state)
{
    (void)state;
    built b;
    build_stream(&b, HDR_COMPACT, EVENTS, NEVENTS, 2);
    char *meta = trace_metadata(HDR_COMPACT);
    size_t full = (size_t)(b.w.bits / 8);
    for (int cut = 0; cut < 2; cut++) {
        size_t len = cut ? (size_t)b.ev_start[3] + 5 : full; /* inside the 4th event */
        zipb_entry ents[] = {
            {"x.trace/", NULL, 0, ZIPB_STORE, 0},
            {"x.trace/perfcollect.log", "log", 3, ZIPB_DEFLATE, 0},
            {"x.trace/t/metadata", meta, strlen(meta), ZIPB_DEFLATE, 0},
            {"x.trace/t/channel0_2", b.w.d, len, ZIPB_DEFLATE, 0},
            {"x.trace/t/index/channel0_2.idx", "idx", 3, ZIPB_STORE, 0},
        };
        size_t zsize = 0;
        uint8_t *zip = zipb_build(ents, sizeof ents / sizeof ents[0], &zsize);
        assert_non_null(zip);
        char *path = zipb_write_temp(zip, zsize, ".trace.zip");
        assert_non_null(path);
        for (int from_file = 0; from_file < 2; from_file++) {
            gcev_trace *t;
            gcev_error err = {0};
            gcev_status st = from_file ? gcev_trace_open_file(path, NULL, &t, &err)
                                       : gcev_trace_open_memory(zip, zsize, NULL, &t, &err);
            if (st != GCEV_OK) {
                fail_msg("open: %s", err.message);
            }
            assert_int_equal(gcev_trace_get_info(t)->format, GCEV_FORMAT_CTF);
            gcev_trace_event ev;
            size_t n = 0;
            while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
                check_event(&ev, &EVENTS[n]);
                n++;
            }
            if (cut) {
                assert_int_equal(n, 3);
                assert_int_equal(st, GCEV_E_TRUNCATED_FILE);
                assert_non_null(strstr(err.message, "x.trace/t/channel0_2"));
                assert_true(err.offset >= b.ev_start[3] && err.offset <= len);
            } else {
                assert_int_equal(st, GCEV_END);
                assert_int_equal(n, NEVENTS);
            }
            gcev_trace_close(t);
        }
        unlink(path);
        free(path);
        free(zip);
    }
    free(meta);
    free(b.w.d);
}

static void test_open_folder_errors(void **state)
{
    (void)state;
    char *dir = make_dir();
    gcev_trace *t = (gcev_trace *)1;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_E_UNSUPPORTED);
    assert_null(t);
    assert_non_null(strstr(err.message, "no 'metadata' file"));
    write_file(dir, "metadata", "/* CTF 1.8 */\nenv { a = ; };", 27);
    assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_E_FORMAT);
    assert_non_null(strstr(err.message, "metadata: TSDL line 2"));
    assert_non_null(strstr(err.message, "expected a value"));
    remove_dir(dir);
    free(dir);
}

/* Every allocation of open + read failing in turn (TSDL parse, streams, the merge; folder
 * and ZIP in memory; file and time order): GCEV_E_NOMEM or the same events. */
static void test_ctf_each_allocation_failure_is_nomem_or_the_same_events(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    char *meta = trace_metadata(HDR_COMPACT);
    zipb_entry ents[] = {
        {"x.trace/", NULL, 0, ZIPB_STORE, 0},
        {"x.trace/t/metadata", meta, strlen(meta), ZIPB_DEFLATE, 0},
        {"x.trace/t/channel0_2", b.w.d, (size_t)(b.w.bits / 8), ZIPB_DEFLATE, 0},
    };
    size_t zsize = 0;
    uint8_t *zip = zipb_build(ents, sizeof ents / sizeof ents[0], &zsize);
    assert_non_null(zip);
    for (uint32_t order = GCEV_TRACE_ORDER_FILE; order <= GCEV_TRACE_ORDER_TIME; order++) {
        for (int in_zip = 0; in_zip < 2; in_zip++) {
            failalloc_trace r = {in_zip ? NULL : dir, zip, zsize, 0, {.order = order}, 0, 0};
            assert_true(failalloc_every_read(&r) > 0);
            assert_int_equal(r.events, NEVENTS);
        }
    }
    free(zip);
    free(meta);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/* ---- LTTng fields to ETW payloads (gcev_ctf_etw.c), one event class at a time ---- */

/* Hex digits to bytes, blanks ignored; returns the count. */
static size_t hexb(const char *hex, uint8_t *out, size_t cap)
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

/* ---- decoding event fields (gcev_ctf_decode.c): outcomes, table-driven ---- */

typedef struct dec_case {
    const char *context; /* event.context struct body, decoded first, or NULL */
    const char *fields;
    const char *bytes;
    uint32_t end, avail; /* content end and bytes present; 0: all of bytes */
    uint64_t work;       /* decode steps allowed; 0: plenty */
    gcev_status want;
    uint64_t pos; /* OK: bits decoded; else the fault's bit offset */
    const char *msg;
} dec_case;

static void test_ctf_decode_fields_outcomes_name_offset_and_cause(void **state)
{
    (void)state;
    static const dec_case cases[] = {
        /* bounds */
        {NULL, "string _s;", "4142", 0, 0, 0, GCEV_E_FORMAT, 0, "string not terminated"},
        {NULL, "string _s;", "4142", 4, 2, 0, GCEV_E_TRUNCATED_FILE, 0, "stream file ends inside a string"},
        {NULL, "uint32_t _x;", "0102", 0, 0, 0, GCEV_E_FORMAT, 0, "past the packet's content size"},
        {NULL, "uint32_t _x;", "0102", 4, 2, 0, GCEV_E_TRUNCATED_FILE, 0,
         "stream file ends inside this event"},
        {NULL, "uint8_t _a; integer { size = 8; align = 64; } _b;", "01", 0, 0, 0, GCEV_E_FORMAT, 64,
         "past the packet's content size"},
        {NULL, "uint32_t _arr[1000];", "0102030405060708", 0, 0, 0, GCEV_E_FORMAT, 0,
         "array or sequence goes past the packet's content size"},
        {NULL, "uint8_t _a; uint8_t _b; uint8_t _c; uint8_t _d;", "01020304", 0, 0, 3, GCEV_E_LIMIT, 16,
         "more decode steps"},
        /* variants */
        {NULL, "uint8_t _t; variant <_t> { uint8_t a; } _v;", "0000", 0, 0, 0, GCEV_E_FORMAT, 8,
         "variant tag is not an enumeration"},
        {NULL, "enum : uint8_t { A = 0, B = 1 } _t; variant <_t> { uint8_t A; } _v;", "0100", 0, 0, 0,
         GCEV_E_FORMAT, 8, "variant tag value selects no option"},
        {NULL, "enum : uint8_t { A = 0, B = 1 } _t; variant <_t> { uint8_t A; } _v;", "0007", 0, 0, 0,
         GCEV_OK, 16, NULL},
        {NULL, "variant { uint8_t a; } _v;", "00", 0, 0, 0, GCEV_E_FORMAT, 0, "variant without a tag"},
        {NULL,
         "enum : int8_t { NEG = -5 ... -1, POS = 0 ... 5 } _t; variant <_t> { uint8_t NEG; uint16_t POS; } "
         "_v;",
         "fe07", 0, 0, 0, GCEV_OK, 16, NULL},
        /* sequence lengths and paths */
        {NULL, "string _n; uint8_t _q[_n];", "0000", 0, 0, 0, GCEV_E_FORMAT, 8,
         "sequence length is not an integer"},
        {NULL, "int8_t _n; uint8_t _q[_n];", "ff", 0, 0, 0, GCEV_E_FORMAT, 8, "negative sequence length"},
        {NULL, "uint8_t _q[_m];", "00", 0, 0, 0, GCEV_E_FORMAT, 0, "names no decoded field"},
        {NULL, "struct { uint8_t n; } _s; uint8_t _q[_s.n];", "0100", 0, 0, 0, GCEV_E_UNSUPPORTED, 8,
         "dotted relative paths are not supported"},
        {NULL, "struct { uint8_t n; } _s; uint8_t _q[event.fields._s.n];", "0100", 0, 0, 0,
         GCEV_E_UNSUPPORTED, 8, "path into a nested struct is not supported"},
        {NULL, "uint8_t _n; uint8_t _q[event.fields._n];", "02aabb", 0, 0, 0, GCEV_OK, 24, NULL},
        {NULL, "uint8_t _q[event.fields._n]; uint8_t _n;", "02aabb", 0, 0, 0, GCEV_E_FORMAT, 0,
         "names no decoded field"},
        {"uint8_t _len;", "uint8_t _q[event.context._len];", "02aabb", 0, 0, 0, GCEV_OK, 24, NULL},
        {"uint8_t _len;", "uint8_t _q[event.context._nope];", "02aabb", 0, 0, 0, GCEV_E_FORMAT, 8,
         "names no decoded field"},
        /* nested structs find their parents' fields; arrays of structs decode element by element */
        {NULL, "uint8_t _n; struct { uint8_t _m; struct { uint8_t _q[_n]; } _in; } _out;", "0105aa", 0, 0, 0,
         GCEV_OK, 24, NULL},
        {NULL, "struct { uint8_t _a; uint16_t _b; } _arr[2];", "0102000304 00", 0, 0, 0, GCEV_OK, 48, NULL},
        {NULL, "struct { uint8_t _a; uint16_t _b; } _arr[2];", "0102000304", 0, 0, 0, GCEV_E_FORMAT, 32,
         "past the packet's content size"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const dec_case *k = &cases[i];
        char tsdl[2048];
        snprintf(tsdl, sizeof tsdl,
                 "/* CTF 1.8 */\n"
                 "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
                 "typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
                 "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
                 "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
                 "trace { major = 1; minor = 8; byte_order = le; };\n"
                 "event { name = \"e\"; id = 0; %s%s%s fields := struct { %s }; };\n",
                 k->context ? "context := struct { " : "", k->context ? k->context : "",
                 k->context ? " };" : "", k->fields);
        gcev_ctf_meta m;
        gcev_ctf_meta_error e;
        if (parse(tsdl, &m, &e) != GCEV_OK) {
            fail_msg("case %zu: line %u: %s", i, e.line, e.message);
        }
        const gcev_ctf_event_class *ev = &m.events[0];
        uint8_t data[64] = {0};
        size_t n = hexb(k->bytes, data, sizeof data);
        gcev_ctf_cursor c;
        memset(&c, 0, sizeof c);
        c.data = data;
        c.end = (k->end ? k->end : n) * 8;
        c.avail = (k->avail ? k->avail : n) * 8;
        c.work = k->work ? k->work : 1u << 20;
        gcev_ctf_slot cslots[8], slots[8];
        gcev_status st = GCEV_OK;
        if (ev->context) {
            st = gcev_ctf_decode_root(&c, GCEV_CTF_ROOT_EVENT_CONTEXT, ev->context, cslots);
        }
        if (st == GCEV_OK) {
            st = gcev_ctf_decode_root(&c, GCEV_CTF_ROOT_EVENT_FIELDS, ev->fields, slots);
        }
        uint64_t pos = st == GCEV_OK ? c.pos : c.err_pos;
        if (st != k->want || pos != k->pos || (k->msg && (!c.err_msg || !strstr(c.err_msg, k->msg)))) {
            fail_msg("case %zu (%s): got %s at bit %llu '%s', want %s at bit %llu '%s'", i, k->fields,
                     gcev_status_str(st), (unsigned long long)pos, st == GCEV_OK ? "" : c.err_msg,
                     gcev_status_str(k->want), (unsigned long long)k->pos, k->msg ? k->msg : "");
        }
        gcev_ctf_cursor_free(&c);
        gcev_ctf_meta_free(&m);
    }
    /* no steps left before the root */
    gcev_ctf_meta m;
    assert_int_equal(parse("/* CTF 1.8 */ typealias integer { size = 8; } := u8;"
                           " event { name = \"e\"; fields := struct { u8 _a; }; };",
                           &m, NULL),
                     GCEV_OK);
    gcev_ctf_cursor c;
    memset(&c, 0, sizeof c);
    uint8_t one = 1;
    c.data = &one;
    c.end = c.avail = 8;
    gcev_ctf_slot sl[1];
    assert_int_equal(gcev_ctf_decode_root(&c, GCEV_CTF_ROOT_EVENT_FIELDS, m.events[0].fields, sl),
                     GCEV_E_LIMIT);
    assert_non_null(strstr(c.err_msg, "more decode steps"));
    gcev_ctf_meta_free(&m);
}

/* Reads dir with keep_going; checks each event against EVENTS[want[i]]; returns the end status. */
static gcev_status read_keep_going(const char *dir, const size_t *want, size_t nwant, gcev_trace **out)
{
    gcev_trace_options o = {.struct_size = sizeof o, .keep_going = 1};
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(dir, &o, out, &err), GCEV_OK);
    gcev_trace_event ev;
    size_t n = 0;
    gcev_status st;
    while ((st = gcev_trace_next(*out, &ev, &err)) == GCEV_OK) {
        assert_true(n < nwant);
        check_event(&ev, &EVENTS[want[n]]);
        n++;
    }
    assert_int_equal(n, nwant);
    return st;
}

/*
 * Keep-going on CTF: an undeclared event id inside packet 0 skips the rest of that packet
 * (the events of packet 1 follow); a file cut inside packet 1's header skips to the end of
 * the file. Each skip says where, how much, why and the timestamp of the next event.
 */
static void test_ctf_keep_going_skips_a_damaged_packet_or_the_cut_rest(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    size_t full = (size_t)(b.w.bits / 8);
    uint8_t *bad = malloc(full);
    memcpy(bad, b.w.d, full);
    bad[b.ev_start[1]] = (uint8_t)((bad[b.ev_start[1]] & 0xE0) | 29); /* compact id 29: not declared */
    write_file(dir, "channel0_2", bad, full);
    /* without keep-going: the error */
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
    gcev_trace_event ev;
    assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_OK);
    assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_E_FORMAT);
    assert_int_equal(err.offset, b.ev_start[1]);
    assert_non_null(strstr(err.message, "event id 29 is not declared for stream class 0"));
    gcev_trace_close(t);
    static const size_t after_bad_event[] = {0, 6, 7, 8};
    assert_int_equal(read_keep_going(dir, after_bad_event, 4, &t), GCEV_END);
    assert_int_equal(gcev_trace_skip_count(t), 1);
    const gcev_trace_skip *k = gcev_trace_skip_at(t, 0);
    assert_true(k->offset >= b.ev_end[0] && k->offset <= b.ev_start[1]);
    assert_int_equal(k->offset + k->bytes, b.pkt_end[0]);
    assert_int_equal(k->status, GCEV_E_FORMAT);
    assert_int_equal(k->fault_offset, b.ev_start[1]);
    assert_non_null(strstr(k->message, "event id 29 is not declared"));
    assert_int_equal(k->has_timestamp, 1);
    assert_int_equal(k->timestamp, (int64_t)(EVENTS[6].ts + NS0));
    assert_int_equal(gcev_trace_skipped_bytes(t), k->bytes);
    gcev_trace_close(t);
    /* the file cut inside packet 1's header: packet 0 whole, then the rest skipped */
    size_t cut = (size_t)b.pkt_start[1] + 40;
    write_file(dir, "channel0_2", b.w.d, cut);
    static const size_t packet0[] = {0, 1, 2, 3, 4, 5};
    assert_int_equal(read_keep_going(dir, packet0, 6, &t), GCEV_END);
    assert_int_equal(gcev_trace_skip_count(t), 1);
    k = gcev_trace_skip_at(t, 0);
    assert_int_equal(k->offset, b.pkt_start[1]);
    assert_int_equal(k->offset + k->bytes, cut);
    assert_int_equal(k->status, GCEV_E_TRUNCATED_FILE);
    assert_int_equal(k->has_timestamp, 0);
    gcev_trace_close(t);
    free(bad);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/* A packet whose events_discarded grew since the previous one: a drop of that many events,
 * on the packet's CPU, at the packet's offset. */
static void test_ctf_events_discarded_between_packets_is_a_drop(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    /* events_discarded: after magic, uuid, stream_id, instance id, timestamps, sizes, seq */
    bw_put64_at(&b.w, (b.pkt_start[1] + 72) * 8, 5);
    write_file(dir, "channel0_2", b.w.d, (size_t)(b.w.bits / 8));
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
    gcev_trace_event ev;
    size_t n = 0;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        check_event(&ev, &EVENTS[n]);
        n++;
    }
    assert_int_equal(n, NEVENTS);
    assert_int_equal(gcev_trace_dropped_events(t), 5);
    assert_int_equal(gcev_trace_drop_count(t), 1);
    const gcev_trace_drop *d = gcev_trace_drop_at(t, 0);
    assert_int_equal(d->dropped, 5);
    assert_int_equal(d->capture_thread_id, 2);
    assert_int_equal(d->file_offset, b.pkt_start[1]);
    gcev_trace_close(t);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/* Every byte of the stream file flipped to its complement and to 0x80, one at a time, read in
 * both orders (and with keep-going): the read ends cleanly, or with a format, truncation,
 * limit or unsupported error that names the stream file and lies inside it. */
static void test_ctf_every_flipped_stream_byte_is_read_or_a_located_error(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    size_t full = (size_t)(b.w.bits / 8);
    uint8_t *m = malloc(full);
    for (size_t pos = 0; pos < full; pos += failalloc_quick() ? 7 : 1) {
        for (int how = 0; how < 2; how++) {
            memcpy(m, b.w.d, full);
            m[pos] = how ? 0x80 : (uint8_t)~m[pos];
            write_file(dir, "channel0_2", m, full);
            for (int mode = 0; mode < 3; mode++) {
                gcev_trace_options o = {.struct_size = sizeof o,
                                        .order = mode == 1 ? GCEV_TRACE_ORDER_TIME : GCEV_TRACE_ORDER_FILE,
                                        .keep_going = mode == 2};
                gcev_trace *t = NULL;
                gcev_error err = {0};
                assert_int_equal(gcev_trace_open_file(dir, &o, &t, &err), GCEV_OK);
                gcev_trace_event ev;
                size_t n = 0;
                gcev_status st;
                while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
                    n++;
                }
                assert_true(n <= 2 * NEVENTS);
                if (st != GCEV_END) {
                    if (st != GCEV_E_FORMAT && st != GCEV_E_TRUNCATED_FILE && st != GCEV_E_LIMIT &&
                        st != GCEV_E_UNSUPPORTED) {
                        fail_msg("byte %zu -> %02x: %s", pos, m[pos], gcev_status_str(st));
                    }
                    assert_true(err.offset <= full);
                    assert_non_null(strstr(err.message, "channel0_2"));
                }
                gcev_trace_close(t);
            }
        }
    }
    free(m);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/* Every byte of the reader tests' metadata flipped (complement, a NUL, a quote, a brace), one
 * at a time: it parses, or fails with a format, unsupported or limit error on a line of
 * the text with a message, and leaves no model behind. */
static void test_tsdl_every_flipped_byte_parses_or_names_its_line(void **state)
{
    (void)state;
    char *meta = trace_metadata(HDR_COMPACT);
    size_t n = strlen(meta);
    uint32_t lines = 1;
    for (size_t i = 0; i < n; i++) {
        lines += meta[i] == '\n';
    }
    char *m = malloc(n + 1);
    static const char subst[] = {0, '"', '{', '}'};
    for (size_t pos = 0; pos < n; pos += failalloc_quick() ? 7 : 1) {
        for (int how = 0; how < 5; how++) {
            memcpy(m, meta, n + 1);
            m[pos] = how == 4 ? (char)~m[pos] : subst[how];
            gcev_ctf_meta md;
            gcev_ctf_meta_error e;
            gcev_status st = gcev_ctf_meta_parse(m, n, &md, &e);
            if (st == GCEV_OK) {
                gcev_ctf_meta_free(&md);
                continue;
            }
            if (st != GCEV_E_FORMAT && st != GCEV_E_UNSUPPORTED && st != GCEV_E_LIMIT) {
                fail_msg("byte %zu -> %02x: %s", pos, (unsigned char)m[pos], gcev_status_str(st));
            }
            assert_true(e.line >= 1 && e.line <= lines);
            assert_true(e.message[0] != '\0');
            assert_null(md.arena);
        }
    }
    free(m);
    free(meta);
}

/*
 * The least a CTF trace can be: no packet header or context (the stream file is one packet),
 * no event header (the stream's one event class is implied), a clock at 1 kHz with a negative
 * cycle offset (or no clock at all): both events read, of the implied class, at the clock's
 * origin in ns, on no known CPU.
 */
static void test_ctf_minimal_trace_one_packet_implied_event_class(void **state)
{
    (void)state;
    for (int clock = 0; clock < 2; clock++) {
        char *dir = make_dir();
        char meta[1024];
        snprintf(meta, sizeof meta,
                 "/* CTF 1.8 */\n"
                 "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
                 "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
                 "trace { major = 1; minor = 8; byte_order = le; };\n"
                 "%s"
                 "stream { id = 0; };\n"
                 "event { name = \"DotNETRuntime:GCEnd_V1\"; id = 0; stream_id = 0; fields := struct {\n"
                 "  uint32_t _Count; uint32_t _Depth; uint16_t _ClrInstanceID; }; };\n",
                 clock ? "clock { name = \"monotonic\"; freq = 1000; offset_s = 2; offset = -500; };\n" : "");
        write_file(dir, "metadata", meta, strlen(meta));
        static const uint8_t events[20] = {7, 0, 0, 0, 2, 0, 0, 0, 1, 0, 8, 0, 0, 0, 2, 0, 0, 0, 1, 0};
        write_file(dir, "channel0_0", events, sizeof events);
        gcev_trace *t;
        gcev_error err = {0};
        if (gcev_trace_open_file(dir, NULL, &t, &err) != GCEV_OK) {
            fail_msg("open: %s", err.message);
        }
        gcev_trace_event ev;
        for (int i = 0; i < 2; i++) {
            gcev_status st = gcev_trace_next(t, &ev, &err);
            if (st != GCEV_OK) {
                fail_msg("event %d: %s %s", i, gcev_status_str(st), err.message);
            }
            assert_string_equal(ev.event_name, "GCEnd_V1");
            assert_int_equal(ev.event_id, 2);
            assert_int_equal(ev.version, 1);
            assert_int_equal(ev.payload_size, 10);
            assert_memory_equal(ev.payload, events + 10 * i, 10);
            assert_int_equal(ev.timestamp, clock ? 1500000000 : 0); /* 2 s minus 500 cycles of 1 ms */
            assert_int_equal(ev.processor, UINT32_MAX);
        }
        assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_END);
        gcev_trace_close(t);
        remove_dir(dir);
        free(dir);
    }
}

/* Each packet-header and packet-context field that can be wrong, in packet 1: the events of
 * packet 0, then a format (or limit) error at the packet (the uuid's own offset) that says
 * which field. */
static void test_ctf_bad_packet_fields_name_the_field(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    size_t full = (size_t)(b.w.bits / 8);
    uint8_t *m = malloc(full);
    static const struct {
        size_t at;   /* in packet 1 */
        uint64_t v;  /* little-endian value written there */
        unsigned w;  /* bytes */
        size_t erat; /* error offset in packet 1 */
        gcev_status want;
        const char *msg;
    } cases[] = {
        {0, 0x12345678, 4, 0, GCEV_E_FORMAT, "packet magic is not 0xc1fc1fc1"},
        {4, 0xee, 1, 4, GCEV_E_FORMAT, "packet uuid differs from the metadata's"},
        {20, 9, 4, 0, GCEV_E_FORMAT, "packet names a stream class the metadata does not declare"},
        {48, 1u << 20, 8, 0, GCEV_E_FORMAT, "content_size exceeds it"},    /* content_size bits */
        {56, 1001, 8, 0, GCEV_E_FORMAT, "packet_size is not whole bytes"}, /* packet_size bits */
        {48, 64, 8, 0, GCEV_E_FORMAT, "the header exceeds the content"},   /* content < header */
        {56, UINT64_C(1) << 40, 8, 0, GCEV_E_LIMIT, "larger than the block-size limit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(m, b.w.d, full);
        for (unsigned k = 0; k < cases[i].w; k++) {
            m[b.pkt_start[1] + cases[i].at + k] = (uint8_t)(cases[i].v >> (8 * k));
        }
        if (cases[i].at == 56 && cases[i].v >> 32) { /* keep content_size within it */
            for (unsigned k = 0; k < 8; k++) {
                m[b.pkt_start[1] + 48 + k] = (uint8_t)(UINT64_C(2048) >> (8 * k));
            }
        }
        write_file(dir, "channel0_2", m, full);
        gcev_trace *t;
        gcev_error err = {0};
        assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
        gcev_trace_event ev;
        size_t n = 0;
        gcev_status st;
        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
            check_event(&ev, &EVENTS[n]);
            n++;
        }
        if (n != 6 || st != cases[i].want || err.offset != b.pkt_start[1] + cases[i].erat ||
            !strstr(err.message, cases[i].msg) || !strstr(err.message, "channel0_2")) {
            fail_msg("case %zu: %zu events, %s at %llu '%s'", i, n, gcev_status_str(st),
                     (unsigned long long)err.offset, err.message);
        }
        gcev_trace_close(t);
    }
    free(m);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsdl_small_model),
        cmocka_unit_test(test_tsdl_every_construct_reads_as_declared),
        cmocka_unit_test(test_tsdl_nul_size_limit_and_many_aliases),
        cmocka_unit_test(test_tsdl_every_flipped_byte_parses_or_names_its_line),
        cmocka_unit_test(test_tsdl_errors_name_line_and_cause),
        cmocka_unit_test(test_tsdl_limits),
        cmocka_unit_test(test_metadata_packets_unpacked),
        cmocka_unit_test(test_metadata_packets_big_endian_and_bad_headers),
        cmocka_unit_test(test_read_bits_both_orders),
        cmocka_unit_test(test_trace_compact_headers),
        cmocka_unit_test(test_trace_large_headers),
        cmocka_unit_test(test_trace_streams_merged_in_time_order),
        cmocka_unit_test(test_trace_every_truncation),
        cmocka_unit_test(test_trace_bad_packets),
        cmocka_unit_test(test_trace_in_zip),
        cmocka_unit_test(test_open_folder_errors),
        cmocka_unit_test(test_ctf_etw_fields_become_the_etw_payload),
        cmocka_unit_test(test_ctf_decode_fields_outcomes_name_offset_and_cause),
        cmocka_unit_test(test_ctf_keep_going_skips_a_damaged_packet_or_the_cut_rest),
        cmocka_unit_test(test_ctf_events_discarded_between_packets_is_a_drop),
        cmocka_unit_test(test_ctf_every_flipped_stream_byte_is_read_or_a_located_error),
        cmocka_unit_test(test_ctf_minimal_trace_one_packet_implied_event_class),
        cmocka_unit_test(test_ctf_bad_packet_fields_name_the_field),
        cmocka_unit_test(test_ctf_each_allocation_failure_is_nomem_or_the_same_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
