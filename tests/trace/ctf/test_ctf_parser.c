/* SPDX-License-Identifier: MIT */
/*
 * The TSDL parser (gcev_ctf_lexer.c, gcev_ctf_parser.c) on small metadata: the model it
 * builds, its errors with their line, its limits, and every flipped byte of the reader
 * tests' metadata.
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsdl_small_model),
        cmocka_unit_test(test_tsdl_every_construct_reads_as_declared),
        cmocka_unit_test(test_tsdl_nul_size_limit_and_many_aliases),
        cmocka_unit_test(test_tsdl_every_flipped_byte_parses_or_names_its_line),
        cmocka_unit_test(test_tsdl_errors_name_line_and_cause),
        cmocka_unit_test(test_tsdl_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
