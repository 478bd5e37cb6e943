/* SPDX-License-Identifier: MIT */
/*
 * The few texts gcev serve reads that it did not write: /proc/<pid>/cgroup (container id),
 * /proc/<pid>/stat (name, start time), /proc/self/statm (resident memory) and the HTTP
 * Accept and Accept-Encoding headers. Each reads a (pointer, length) text that need not be NUL-terminated,
 * never past its end; tests/fuzz/fuzz_serve.c fuzzes them.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

enum { CONTAINER_ID_LEN = 64 };

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int starts_with(const char *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    return n >= k && !memcmp(p, s, k);
}

/* A path component that is a container's: [prefix]<64 hex>[.scope]. */
static int component_id(const char *p, size_t n, char *out)
{
    static const char *const prefixes[] = {"docker-", "cri-containerd-", "crio-",
                                           "libpod-", "containerd-",     ""};
    if (n >= 6 && !memcmp(p + n - 6, ".scope", 6)) {
        n -= 6;
    }
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t k = strlen(prefixes[i]);
        if (!starts_with(p, n, prefixes[i]) || n - k != CONTAINER_ID_LEN) {
            continue;
        }
        size_t j = 0;
        while (j < CONTAINER_ID_LEN && is_hex(p[k + j])) {
            j++;
        }
        if (j == CONTAINER_ID_LEN) {
            memcpy(out, p + k, CONTAINER_ID_LEN);
            out[CONTAINER_ID_LEN] = '\0';
            return 1;
        }
    }
    return 0;
}

int serve_parse_container_id(const char *text, size_t n, char *out, size_t out_n)
{
    if (out && out_n) {
        out[0] = '\0';
    }
    if (!text || !out || out_n < CONTAINER_ID_LEN + 1) {
        return 0;
    }
    size_t i = 0;
    while (i < n) {
        size_t end = i;
        while (end < n && text[end] != '\n') {
            end++;
        }
        /* hierarchy-ID:controllers:path; the path is what follows the second ':' */
        size_t colons = 0, path = i;
        for (size_t k = i; k < end && colons < 2; k++) {
            if (text[k] == ':') {
                colons++;
                path = k + 1;
            }
        }
        if (colons == 2) {
            /* the innermost component that names a container wins */
            size_t stop = end;
            while (stop > path) {
                size_t start = stop;
                while (start > path && text[start - 1] != '/') {
                    start--;
                }
                if (stop > start && component_id(text + start, stop - start, out)) {
                    return 1;
                }
                stop = start > path ? start - 1 : path;
            }
        }
        i = end + 1;
    }
    return 0;
}

/* The decimal number at *i (leading spaces skipped); 1 with *v set, else 0. */
static int read_u64(const char *t, size_t n, size_t *i, uint64_t *v)
{
    while (*i < n && t[*i] == ' ') {
        (*i)++;
    }
    if (*i >= n || t[*i] < '0' || t[*i] > '9') {
        return 0;
    }
    uint64_t x = 0;
    while (*i < n && t[*i] >= '0' && t[*i] <= '9') {
        unsigned d = (unsigned)(t[*i] - '0');
        if (x > (UINT64_MAX - d) / 10) {
            return 0;
        }
        x = x * 10 + d;
        (*i)++;
    }
    *v = x;
    return 1;
}

int serve_parse_stat(const char *text, size_t n, char *comm, size_t comm_n, uint64_t *start_time)
{
    if (!text || !comm || !comm_n || !start_time) {
        return 0;
    }
    comm[0] = '\0';
    const char *open = memchr(text, '(', n);
    size_t close = n;
    while (close > 0 && text[close - 1] != ')') {
        close--;
    }
    if (!open || close == 0 || text + close - 1 < open + 1) {
        return 0;
    }
    size_t from = (size_t)(open - text) + 1, to = close - 1, k = 0;
    for (size_t i = from; i < to && k + 1 < comm_n; i++) {
        unsigned char c = (unsigned char)text[i];
        comm[k++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    comm[k] = '\0';
    /* fields 3.. follow the ')': the state, then numbers; starttime is field 22 */
    size_t i = close;
    for (int field = 3; field < 22; field++) {
        while (i < n && text[i] == ' ') {
            i++;
        }
        if (i >= n) {
            return 0;
        }
        while (i < n && text[i] != ' ') {
            i++;
        }
    }
    return read_u64(text, n, &i, start_time);
}

int serve_parse_statm(const char *text, size_t n, uint64_t *resident_pages)
{
    uint64_t size;
    size_t i = 0;
    if (!text || !resident_pages) {
        return 0;
    }
    return read_u64(text, n, &i, &size) && read_u64(text, n, &i, resident_pages);
}

/* Case-insensitive comparison of [p, p+n) with s. */
static int token_is(const char *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    if (n != k) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (tolower((unsigned char)p[i]) != s[i]) {
            return 0;
        }
    }
    return 1;
}

/* q of one media range's parameters [p, end): 1000 * q (0..1000), 1000 when absent. */
static int range_q(const char *p, const char *end)
{
    while (p < end) {
        size_t len = end > p ? (size_t)(end - p) : 0;
        const char *semi = len ? memchr(p, ';', len) : NULL;
        const char *pe = semi ? semi : end;
        while (p < pe && (*p == ' ' || *p == '\t' || *p == ';')) {
            p++;
        }
        if (pe - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            const char *v = p + 2;
            int q = 0, scale = 1000, seen = 0;
            if (v < pe && (*v == '0' || *v == '1')) {
                q = (*v - '0') * 1000;
                seen = 1;
                v++;
                if (v < pe && *v == '.') {
                    v++;
                    for (int d = 0; d < 3 && v < pe && *v >= '0' && *v <= '9'; d++, v++) {
                        scale /= 10;
                        q += (*v - '0') * scale;
                    }
                }
            }
            return seen ? (q > 1000 ? 1000 : q) : 0;
        }
        p = semi ? semi + 1 : end;
    }
    return 1000;
}

/*
 * Walks an HTTP list header (Accept, Accept-Encoding: comma-separated items, each a token and
 * ;-parameters): q[i] = the highest q (0..1000) of the items named names[i] (case-insensitive),
 * -1 where none is.
 */
static void list_q(const char *h, const char *const *names, int *q, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        q[i] = -1;
    }
    if (!h) {
        return;
    }
    const char *p = h;
    const char *end = h + strlen(h);
    while (p < end) {
        size_t rest = end > p ? (size_t)(end - p) : 0;
        const char *comma = rest ? memchr(p, ',', rest) : NULL;
        const char *re = comma ? comma : end;
        while (p < re && (*p == ' ' || *p == '\t')) {
            p++;
        }
        size_t len = re > p ? (size_t)(re - p) : 0;
        const char *semi = len ? memchr(p, ';', len) : NULL;
        const char *te = semi ? semi : re;
        while (te > p && (te[-1] == ' ' || te[-1] == '\t')) {
            te--;
        }
        int iq = semi ? range_q(semi + 1, re) : 1000;
        for (size_t i = 0; i < k; i++) {
            if (token_is(p, (size_t)(te - p), names[i]) && iq > q[i]) {
                q[i] = iq;
            }
        }
        p = comma ? comma + 1 : end;
    }
}

int serve_accept_openmetrics(const char *accept)
{
    static const char *const names[] = {"application/openmetrics-text", "text/plain"};
    int q[2];
    list_q(accept, names, q, 2);
    return q[0] > 0 && q[0] >= q[1];
}

int serve_accept_gzip(const char *accept_encoding)
{
    /* RFC 9110 12.5.3: "*" stands for every coding the list does not name */
    static const char *const names[] = {"gzip", "x-gzip", "*"};
    int q[3];
    list_q(accept_encoding, names, q, 3);
    int named = q[0] > q[1] ? q[0] : q[1];
    return (named >= 0 ? named : q[2]) > 0;
}
