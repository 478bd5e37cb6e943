/* SPDX-License-Identifier: MIT */
/*
 * gcev-gen: reads ETW instrumentation manifests (our manifest/gc.man or the
 * runtime's ClrEtwAll.man) and emits the schema tables, typed structs and map
 * tables of libgcev. Host tool only; never linked into the library.
 */
#ifndef GCEV_GEN_H
#define GCEV_GEN_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "gcev_schema_consts.h"

/* Field kinds as the manifest names them: T_<NAME> for each GCEV_TYPE_LIST entry,
 * so the numbering is gcev_type's (gcev.h). */
enum gen_type {
#define GEN_TYPE_ENUM_(name, manifest_name, w4, w8, a4, a8) T_##name,
    GCEV_TYPE_LIST(GEN_TYPE_ENUM_)
#undef GEN_TYPE_ENUM_
        T_COUNT_
};

typedef struct gen_field {
    char *name;
    int type; /* enum gen_type */
    int out_hex;
    char *map;            /* map name or NULL */
    char *count_ref;      /* count="Field" */
    unsigned fixed_count; /* count="N" */
    char *length_ref;     /* length="Field" */
    unsigned fixed_length;
    struct gen_field *children; /* <struct> members */
    size_t nchildren;
    const char *file; /* manifest it was read from */
    int line;
    /* resolved */
    int count_index, length_index; /* sibling indexes or -1 */
    struct gen_map *map_ref;
} gen_field;

typedef struct gen_template {
    char *tid;
    gen_field *fields;
    size_t nfields;
    int line;
} gen_template;

typedef struct gen_map_entry {
    uint32_t value;
    char *name;
} gen_map_entry;

typedef struct gen_map {
    char *name;
    int bitmap;
    gen_map_entry *entries;
    size_t nentries;
    int used;
    int line;
} gen_map;

typedef struct gen_named_value {
    char *name;
    uint64_t value;
    char *task; /* opcodes: owning task or NULL for provider-level */
} gen_named_value;

typedef struct gen_event {
    unsigned id, version;
    char *symbol, *task, *opcode, *level, *keywords, *template_id;
    int line;
    const char *file;
    /* resolved */
    unsigned level_value, opcode_value, task_value;
    uint64_t keyword_mask;
    gen_template *tmpl;
    struct gen_family *family;
} gen_event;

typedef struct gen_family {
    char *name;  /* symbol of the lowest version without _V<n> */
    char *cname; /* C identifier part, e.g. "gc_start", "private_gc_join" */
    unsigned id;
    gen_event **versions;
    size_t nversions;
    /* union of fields over versions (top level) */
    gen_field **fields; /* representative field (widest type) */
    size_t nfields;
    /* struct arrays: one element struct per <struct> name */
} gen_family;

typedef struct gen_provider {
    char *name, *guid, *symbol;
    char *cprefix; /* "" or "private_" ... */
    char *cshort;  /* "runtime", "private", ... */
    const char *file;
    int line;
    gen_named_value *keywords;
    size_t nkeywords;
    gen_named_value *tasks;
    size_t ntasks;
    gen_named_value *opcodes;
    size_t nopcodes;
    gen_map *maps;
    size_t nmaps;
    gen_template *templates;
    size_t ntemplates;
    gen_event *events;
    size_t nevents;
    gen_family *families;
    size_t nfamilies;
} gen_provider;

typedef struct gen_string {
    char *id, *value;
} gen_string;

typedef struct gen_model {
    gen_provider *providers;
    size_t nproviders;
    gen_string *strings;
    size_t nstrings;
    char **manifest_names;
    size_t nmanifests;
} gen_model;

/* Selection rules (--select): provider + task=/id=/symbol= */
typedef struct gen_rule {
    char *provider, *kind, *value;
} gen_rule;

typedef struct gen_select {
    gen_rule *rules;
    size_t nrules;
} gen_select;

/* util (model.c) */
void gen_fail(const char *file, int line, const char *fmt, ...);
#ifdef GCEV_GEN_FUZZ
#include <setjmp.h>
/* When set, gen_fail() longjmps here instead of printing and exiting. */
extern jmp_buf *gen_fail_jmp;
#endif
void *gen_xmalloc(size_t n);
void *gen_xrealloc(void *p, size_t n);
char *gen_xstrdup(const char *s);
#define GEN_PUSH(arr, n) (arr = gen_xrealloc(arr, ((n) + 1) * sizeof *(arr)), &(arr)[(n)++])

/* parse.c: appends the providers and strings of one manifest file. */
void gen_parse_manifest(gen_model *m, const char *path);
/* The same from a buffer (the fuzzer's input: no file per input); name is for messages. */
void gen_parse_manifest_memory(gen_model *m, const char *name, const char *data, size_t size);
void gen_load_select(gen_select *s, const char *path);

/* model.c: filters by the selection, resolves references, builds families. */
void gen_resolve(gen_model *m, const gen_select *sel);
const char *gen_type_manifest_name(int type);
int gen_type_fixed_size(int type, int pointer_size); /* -1 when variable */
void gen_snake(const char *in, char *out, size_t n);

/* emit_header.c: gcev_events.h */
void gen_emit_header(const gen_model *m, FILE *f);
/* emit_tables.c: gcev_events.c, the schema tables */
void gen_emit_source(const gen_model *m, FILE *f);
/* emit_decoder.c: gcev_events_decode.c, the decode layer's part: straight-line bodies, typed
 * decoders, their tables. */
void gen_emit_decoder(const gen_model *m, FILE *f);

/* describe.c: canonical one-line-per-event text, and comparison. */
void gen_describe(const gen_model *m, FILE *f);
int gen_compare(const gen_model *ours, const gen_model *ref, FILE *f);

#endif
