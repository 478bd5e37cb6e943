/* SPDX-License-Identifier: MIT */
/* Helpers shared by the cmocka tests: file paths, a small JSON reader, hex. */
#ifndef GCEV_TESTUTIL_H
#define GCEV_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Folder of the shared corpus/fixtures (GCEV_SHARED_DIR), or NULL. */
const char *testutil_shared_dir(void);
/* Reads a whole file (malloc'ed, NUL-terminated); NULL on failure. */
char *testutil_read_file(const char *path, size_t *size);
/* Hex text -> bytes (malloc'ed); returns byte count or (size_t)-1. */
size_t testutil_unhex(const char *hex, uint8_t **out);

/* Minimal JSON DOM, enough for fixtures and for checking our own output. */
typedef enum { TJ_NULL, TJ_BOOL, TJ_NUM, TJ_STR, TJ_ARR, TJ_OBJ } tj_kind;
typedef struct tj {
    tj_kind kind;
    int boolean;
    char *num;        /* number text as written (exact for 64-bit integers) */
    char *str;        /* UTF-8 */
    struct tj *items; /* array items or object values */
    char **keys;      /* object keys */
    size_t n;
} tj;

/* Parses text; returns 0 and fills *out on success, -1 on a syntax error. */
int tj_parse(const char *text, tj *out);
void tj_free(tj *v);
const tj *tj_get(const tj *obj, const char *key);
/* Semantic equality (numbers compared as values, object keys unordered). */
int tj_equal(const tj *a, const tj *b);
/* Why two values differ, for failure messages ("" when equal). */
void tj_diff(const tj *a, const tj *b, const char *path, char *buf, size_t n);

#endif
