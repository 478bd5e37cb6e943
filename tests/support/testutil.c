/* SPDX-License-Identifier: MIT */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *testutil_shared_dir(void)
{
    const char *d = getenv("GCEV_SHARED_DIR");
    return d && *d ? d : NULL;
}

char *testutil_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (size) {
            *size = n;
        }
    }
    return buf;
}

static int hv(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t testutil_unhex(const char *hex, uint8_t **out)
{
    size_t n = strlen(hex);
    if (n % 2) {
        return (size_t)-1;
    }
    uint8_t *b = malloc(n / 2 + 1);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hv(hex[2 * i]), lo = hv(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return (size_t)-1;
        }
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = b;
    return n / 2;
}

/* ---- JSON ---- */

typedef struct cur {
    const char *p;
} cur;

static void ws(cur *c)
{
    while (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t') {
        c->p++;
    }
}

static int parse_value(cur *c, tj *out);

static void put_utf8(char **s, size_t *n, unsigned cp)
{
    char tmp[4];
    size_t k;
    if (cp < 0x80) {
        tmp[0] = (char)cp;
        k = 1;
    } else if (cp < 0x800) {
        tmp[0] = (char)(0xC0 | cp >> 6);
        tmp[1] = (char)(0x80 | (cp & 63));
        k = 2;
    } else if (cp < 0x10000) {
        tmp[0] = (char)(0xE0 | cp >> 12);
        tmp[1] = (char)(0x80 | (cp >> 6 & 63));
        tmp[2] = (char)(0x80 | (cp & 63));
        k = 3;
    } else {
        tmp[0] = (char)(0xF0 | cp >> 18);
        tmp[1] = (char)(0x80 | (cp >> 12 & 63));
        tmp[2] = (char)(0x80 | (cp >> 6 & 63));
        tmp[3] = (char)(0x80 | (cp & 63));
        k = 4;
    }
    memcpy(*s + *n, tmp, k);
    *n += k;
}

static int parse_string(cur *c, char **out)
{
    if (*c->p != '"') {
        return -1;
    }
    c->p++;
    size_t cap = strlen(c->p) + 1, n = 0;
    char *s = malloc(cap * 2 + 4);
    while (*c->p && *c->p != '"') {
        if (*c->p == '\\') {
            c->p++;
            char e = *c->p++;
            switch (e) {
            case 'n':
                s[n++] = '\n';
                break;
            case 't':
                s[n++] = '\t';
                break;
            case 'r':
                s[n++] = '\r';
                break;
            case 'b':
                s[n++] = '\b';
                break;
            case 'f':
                s[n++] = '\f';
                break;
            case 'u': {
                unsigned cp = 0;
                for (int i = 0; i < 4; i++) {
                    int h = hv(*c->p++);
                    if (h < 0) {
                        free(s);
                        return -1;
                    }
                    cp = cp << 4 | (unsigned)h;
                }
                if (cp >= 0xD800 && cp <= 0xDBFF && c->p[0] == '\\' && c->p[1] == 'u') {
                    unsigned lo = 0;
                    c->p += 2;
                    for (int i = 0; i < 4; i++) {
                        int h = hv(*c->p++);
                        if (h < 0) {
                            free(s);
                            return -1;
                        }
                        lo = lo << 4 | (unsigned)h;
                    }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                put_utf8(&s, &n, cp);
                break;
            }
            case '\0':
                free(s);
                return -1;
            default:
                s[n++] = e;
                break;
            }
        } else {
            s[n++] = *c->p++;
        }
    }
    if (*c->p != '"') {
        free(s);
        return -1;
    }
    c->p++;
    s[n] = '\0';
    *out = s;
    return 0;
}

static int parse_value(cur *c, tj *out)
{
    memset(out, 0, sizeof *out);
    ws(c);
    if (*c->p == '{' || *c->p == '[') {
        int obj = *c->p == '{';
        out->kind = obj ? TJ_OBJ : TJ_ARR;
        c->p++;
        ws(c);
        if (*c->p == (obj ? '}' : ']')) {
            c->p++;
            return 0;
        }
        for (;;) {
            out->items = realloc(out->items, (out->n + 1) * sizeof *out->items);
            if (obj) {
                out->keys = realloc(out->keys, (out->n + 1) * sizeof *out->keys);
                ws(c);
                if (parse_string(c, &out->keys[out->n]) != 0)
                    return -1;
                ws(c);
                if (*c->p++ != ':')
                    return -1;
            }
            if (parse_value(c, &out->items[out->n]) != 0)
                return -1;
            out->n++;
            ws(c);
            if (*c->p == ',') {
                c->p++;
                continue;
            }
            if (*c->p == (obj ? '}' : ']')) {
                c->p++;
                return 0;
            }
            return -1;
        }
    }
    if (*c->p == '"') {
        out->kind = TJ_STR;
        return parse_string(c, &out->str);
    }
    if (!strncmp(c->p, "true", 4) || !strncmp(c->p, "false", 5)) {
        out->kind = TJ_BOOL;
        out->boolean = c->p[0] == 't';
        c->p += out->boolean ? 4 : 5;
        return 0;
    }
    if (!strncmp(c->p, "null", 4)) {
        out->kind = TJ_NULL;
        c->p += 4;
        return 0;
    }
    const char *s = c->p;
    while (*c->p == '-' || *c->p == '+' || *c->p == '.' || *c->p == 'e' || *c->p == 'E' ||
           (*c->p >= '0' && *c->p <= '9')) {
        c->p++;
    }
    if (c->p == s) {
        return -1;
    }
    out->kind = TJ_NUM;
    out->num = malloc((size_t)(c->p - s) + 1);
    memcpy(out->num, s, (size_t)(c->p - s));
    out->num[c->p - s] = '\0';
    return 0;
}

int tj_parse(const char *text, tj *out)
{
    cur c = {text};
    if (parse_value(&c, out) != 0) {
        return -1;
    }
    ws(&c);
    return *c.p ? -1 : 0;
}

void tj_free(tj *v)
{
    for (size_t i = 0; i < v->n; i++) {
        tj_free(&v->items[i]);
        if (v->keys) {
            free(v->keys[i]);
        }
    }
    free(v->items);
    free(v->keys);
    free(v->num);
    free(v->str);
    memset(v, 0, sizeof *v);
}

const tj *tj_get(const tj *obj, const char *key)
{
    if (!obj || obj->kind != TJ_OBJ) {
        return NULL;
    }
    for (size_t i = 0; i < obj->n; i++) {
        if (!strcmp(obj->keys[i], key)) {
            return &obj->items[i];
        }
    }
    return NULL;
}

static int num_equal(const char *a, const char *b)
{
    int ai = !strpbrk(a, ".eE"), bi = !strpbrk(b, ".eE");
    if (ai && bi) {
        if (a[0] == '-' || b[0] == '-') {
            return strtoll(a, NULL, 10) == strtoll(b, NULL, 10);
        }
        return strtoull(a, NULL, 10) == strtoull(b, NULL, 10);
    }
    double x = strtod(a, NULL), y = strtod(b, NULL);
    double d = x - y;
    if (d < 0)
        d = -d;
    double m = (x < 0 ? -x : x) > (y < 0 ? -y : y) ? (x < 0 ? -x : x) : (y < 0 ? -y : y);
    return d <= m * 1e-6;
}

void tj_diff(const tj *a, const tj *b, const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    if (a->kind != b->kind) {
        snprintf(buf, n, "%s: kind %d vs %d", path, a->kind, b->kind);
        return;
    }
    char sub[512];
    switch (a->kind) {
    case TJ_NULL:
        return;
    case TJ_BOOL:
        if (a->boolean != b->boolean)
            snprintf(buf, n, "%s: %d vs %d", path, a->boolean, b->boolean);
        return;
    case TJ_NUM:
        if (!num_equal(a->num, b->num))
            snprintf(buf, n, "%s: %s vs %s", path, a->num, b->num);
        return;
    case TJ_STR:
        if (strcmp(a->str, b->str))
            snprintf(buf, n, "%s: \"%s\" vs \"%s\"", path, a->str, b->str);
        return;
    case TJ_ARR:
        if (a->n != b->n) {
            snprintf(buf, n, "%s: %zu vs %zu items", path, a->n, b->n);
            return;
        }
        for (size_t i = 0; i < a->n; i++) {
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            tj_diff(&a->items[i], &b->items[i], sub, buf, n);
            if (buf[0])
                return;
        }
        return;
    case TJ_OBJ:
        if (a->n != b->n) {
            snprintf(buf, n, "%s: %zu vs %zu keys", path, a->n, b->n);
            return;
        }
        for (size_t i = 0; i < a->n; i++) {
            const tj *o = tj_get(b, a->keys[i]);
            snprintf(sub, sizeof sub, "%s.%s", path, a->keys[i]);
            if (!o) {
                snprintf(buf, n, "%s: missing", sub);
                return;
            }
            tj_diff(&a->items[i], o, sub, buf, n);
            if (buf[0])
                return;
        }
        return;
    }
}

int tj_equal(const tj *a, const tj *b)
{
    char buf[16];
    tj_diff(a, b, "", buf, sizeof buf);
    return buf[0] == '\0';
}
