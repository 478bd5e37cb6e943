/* SPDX-License-Identifier: MIT */
/*
 * The architecture check: builds the dependency graph between units (a .c with
 * its .h, or a header alone) from two sources, the #include lines of every file
 * and the object files (nm: a unit that uses a symbol another unit defines
 * depends on it), then fails on
 *   - a dependency on a layer the unit's layer may not use (the USES lists of
 *     src/<layer>/CMakeLists.txt, as doc/ARCHITECTURE.md states them);
 *   - a layer that sees only the public API (heap, allocs, tools/, examples/) using a
 *     symbol the shared library does not export, or a private header (a layer
 *     marked 2, e.g. session or stats, may use its USES layers and the public API);
 *   - any cycle between units, reported with the units on it.
 *
 * Input: a plan file written by CMake (tests/arch/CMakeLists.txt) with lines
 *   nm <path of nm>
 *   layer <name> <folder> <public-only 0|1|2> [<allowed folder>...]
 *   obj <layer name> <object file>
 * Header and source files are found by listing each layer's folder.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LAYERS = 32, MAX_UNITS = 512, MAX_SYMS = 8192, MAX_EDGES = 8192, LINE = 4096 };

typedef struct layer {
    char name[64];
    char dir[1024];
    int public_only;
    int nallowed;
    char allowed[MAX_LAYERS][1024]; /* folders */
} layer;

typedef struct unit {
    char name[128]; /* file name without extension */
    int layer;
} unit;

typedef struct sym {
    char name[128];
    int unit;
    int exported; /* default visibility: part of the public ABI */
} sym;

typedef struct edge {
    int from, to;
    char why[160];
} edge;

static layer layers[MAX_LAYERS];
static int nlayers;
static unit units[MAX_UNITS];
static int nunits;
static sym syms[MAX_SYMS];
static int nsyms;
static edge edges[MAX_EDGES];
static int nedges;
static char nm_path[1024] = "nm";
static int failures;

static void fail(const char *fmt, const char *a, const char *b, const char *c)
{
    printf("FAIL: ");
    printf(fmt, a, b, c);
    printf("\n");
    failures++;
}

static int unit_find(int layer_index, const char *name)
{
    for (int i = 0; i < nunits; i++) {
        if (units[i].layer == layer_index && strcmp(units[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

static int unit_add(int layer_index, const char *file)
{
    char name[128];
    snprintf(name, sizeof name, "%s", file);
    char *dot = strrchr(name, '.');
    if (dot) {
        *dot = '\0';
    }
    int u = unit_find(layer_index, name);
    if (u >= 0) {
        return u;
    }
    if (nunits == MAX_UNITS) {
        fprintf(stderr, "check_layers: too many units\n");
        exit(2);
    }
    snprintf(units[nunits].name, sizeof units[nunits].name, "%s", name);
    units[nunits].layer = layer_index;
    return nunits++;
}

static int layer_of_dir(const char *dir)
{
    for (int i = 0; i < nlayers; i++) {
        if (strcmp(layers[i].dir, dir) == 0) {
            return i;
        }
    }
    return -1;
}

static int may_use(int from, int to)
{
    if (from == to) {
        return 1;
    }
    for (int i = 0; i < layers[from].nallowed; i++) {
        if (strcmp(layers[from].allowed[i], layers[to].dir) == 0) {
            return 1;
        }
    }
    return 0;
}

static void edge_add(int from, int to, const char *why)
{
    if (from == to) {
        return;
    }
    for (int i = 0; i < nedges; i++) {
        if (edges[i].from == from && edges[i].to == to) {
            return;
        }
    }
    if (nedges == MAX_EDGES) {
        fprintf(stderr, "check_layers: too many edges\n");
        exit(2);
    }
    edges[nedges].from = from;
    edges[nedges].to = to;
    snprintf(edges[nedges].why, sizeof edges[nedges].why, "%s", why);
    nedges++;
}

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

/* The file `name` in the folder of layer li, or in one it may use: its layer, or -1. */
static int header_layer(int li, const char *name)
{
    char path[2048];
    for (int pass = 0; pass <= layers[li].nallowed; pass++) {
        const char *dir = pass == 0 ? layers[li].dir : layers[li].allowed[pass - 1];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            return layer_of_dir(dir);
        }
    }
    /* not reachable from this layer: find who owns it, to name the break */
    for (int i = 0; i < nlayers; i++) {
        snprintf(path, sizeof path, "%s/%s", layers[i].dir, name);
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            return -2 - i;
        }
    }
    return -1;
}

/* #include "x.h" lines of one file. */
static void scan_includes(int li, const char *file)
{
    char path[2048], line[LINE];
    snprintf(path, sizeof path, "%s/%s", layers[li].dir, file);
    FILE *f = fopen(path, "r");
    if (!f) {
        fail("cannot read %s%s%s", path, "", "");
        return;
    }
    int from = unit_add(li, file);
    while (fgets(line, sizeof line, f)) {
        const char *p = line;
        while (*p == ' ' || *p == '\t') {
            p++;
        }
        if (strncmp(p, "#include", 8) != 0) {
            continue;
        }
        p += 8;
        while (*p == ' ' || *p == '\t') {
            p++;
        }
        if (*p != '"') {
            continue; /* <system> and <gcev/...> public headers */
        }
        char name[256];
        size_t k = 0;
        for (p++; *p && *p != '"' && k + 1 < sizeof name; p++) {
            name[k++] = *p;
        }
        name[k] = '\0';
        int hl = header_layer(li, name);
        if (hl == -1) {
            fail("%s includes \"%s\", which no layer has%s", path, name, "");
            continue;
        }
        if (hl <= -2) {
            char msg[512];
            snprintf(msg, sizeof msg, "layer %.60s may not use layer %.60s", layers[li].name,
                     layers[-2 - hl].name);
            fail("%s includes \"%s\": %s", path, name, msg);
            continue;
        }
        if (layers[li].public_only == 1 && hl != li) {
            fail("%s includes private header \"%s\" of another layer (%s sees only include/gcev)", path, name,
                 layers[li].name);
        }
        char why[160];
        snprintf(why, sizeof why, "#include \"%.120s\"", name);
        edge_add(from, unit_add(hl, name), why);
    }
    fclose(f);
}

static void scan_layer_files(int li)
{
    DIR *d = opendir(layers[li].dir);
    if (!d) {
        fail("cannot list %s%s%s", layers[li].dir, "", "");
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (has_suffix(e->d_name, ".c") || has_suffix(e->d_name, ".h")) {
            scan_includes(li, e->d_name);
        }
    }
    closedir(d);
}

/* Object file name "<dir>/gcev_decode.c.o" -> unit "gcev_decode". */
static void obj_unit_name(const char *obj, char *out, size_t n)
{
    const char *b = strrchr(obj, '/');
    b = b ? b + 1 : obj;
    snprintf(out, n, "%s", b);
    char *dot = strstr(out, ".c.o");
    if (!dot) {
        dot = strstr(out, ".o");
    }
    if (dot) {
        *dot = '\0';
    }
}

typedef struct objref {
    int layer;
    char path[1024];
} objref;

static objref objs[MAX_UNITS];
static int nobjs;

static FILE *run_nm(const char *obj)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' -P '%s' 2>/dev/null", nm_path, obj);
    return popen(cmd, "r");
}

/* First pass: which unit defines each global symbol. Hidden-visibility symbols
 * of the library are not exported; nm -P cannot tell, so the symbol table of
 * the shared library is read separately (sym.exported). */
static void collect_defs(int oi)
{
    char uname[128], line[LINE];
    obj_unit_name(objs[oi].path, uname, sizeof uname);
    int u = unit_add(objs[oi].layer, uname);
    FILE *p = run_nm(objs[oi].path);
    if (!p) {
        fail("cannot run nm on %s%s%s", objs[oi].path, "", "");
        return;
    }
    while (fgets(line, sizeof line, p)) {
        char name[256], type[8];
        if (sscanf(line, "%255s %7s", name, type) != 2) {
            continue;
        }
        if (strchr("TDBRCGSV", type[0]) && nsyms < MAX_SYMS) {
            snprintf(syms[nsyms].name, sizeof syms[nsyms].name, "%.120s", name);
            syms[nsyms].unit = u;
            syms[nsyms].exported = 0;
            nsyms++;
        }
    }
    pclose(p);
}

static int sym_find(const char *name)
{
    for (int i = 0; i < nsyms; i++) {
        if (strcmp(syms[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

static void mark_exported(const char *shared_lib)
{
    char cmd[4096], line[LINE];
    snprintf(cmd, sizeof cmd, "'%s' -D -P --defined-only '%s' 2>/dev/null", nm_path, shared_lib);
    FILE *p = popen(cmd, "r");
    if (!p) {
        fail("cannot run nm on %s%s%s", shared_lib, "", "");
        return;
    }
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        char name[256];
        if (sscanf(line, "%255s", name) == 1) {
            int s = sym_find(name);
            if (s >= 0) {
                syms[s].exported = 1;
                n++;
            }
        }
    }
    pclose(p);
    if (n == 0) {
        fail("no exported symbol found in %s%s%s", shared_lib, "", "");
    }
}

static void collect_uses(int oi)
{
    char uname[128], line[LINE];
    obj_unit_name(objs[oi].path, uname, sizeof uname);
    int li = objs[oi].layer;
    int u = unit_add(li, uname);
    FILE *p = run_nm(objs[oi].path);
    if (!p) {
        return;
    }
    while (fgets(line, sizeof line, p)) {
        char name[256], type[8];
        if (sscanf(line, "%255s %7s", name, type) != 2 || type[0] != 'U') {
            continue;
        }
        int s = sym_find(name);
        if (s < 0) {
            continue; /* libc and friends */
        }
        int to = syms[s].unit, tl = units[to].layer;
        if (layers[li].public_only != 1 && !may_use(li, tl) &&
            !(layers[li].public_only == 2 && syms[s].exported)) {
            char msg[256];
            snprintf(msg, sizeof msg, "layer %.60s may not use layer %.60s", layers[li].name,
                     layers[tl].name);
            fail("%s uses %s: %s", uname, name, msg);
        }
        if (layers[li].public_only == 1 && tl != li && !syms[s].exported) {
            fail("%s uses %s, which is not public API (%s sees only include/gcev)", uname, name,
                 layers[li].name);
        }
        char why[160];
        snprintf(why, sizeof why, "calls %.120s", name);
        edge_add(u, to, why);
    }
    pclose(p);
}

/* Tarjan's strongly connected components: a component of more than one unit is a cycle. */
static int idx[MAX_UNITS], low[MAX_UNITS], onstack[MAX_UNITS], stack_[MAX_UNITS], sp, counter;
static int cycles;

static void strongconnect(int v)
{
    idx[v] = low[v] = ++counter;
    stack_[sp++] = v;
    onstack[v] = 1;
    for (int i = 0; i < nedges; i++) {
        if (edges[i].from != v) {
            continue;
        }
        int w = edges[i].to;
        if (!idx[w]) {
            strongconnect(w);
            if (low[w] < low[v]) {
                low[v] = low[w];
            }
        } else if (onstack[w] && idx[w] < low[v]) {
            low[v] = idx[w];
        }
    }
    if (low[v] == idx[v]) {
        int members[MAX_UNITS], n = 0, w;
        do {
            w = stack_[--sp];
            onstack[w] = 0;
            members[n++] = w;
        } while (w != v);
        if (n > 1) {
            cycles++;
            printf("FAIL: cycle between %d units:", n);
            for (int i = 0; i < n; i++) {
                printf(" %s/%s", layers[units[members[i]].layer].name, units[members[i]].name);
            }
            printf("\n");
            for (int i = 0; i < nedges; i++) {
                int in_from = 0, in_to = 0;
                for (int k = 0; k < n; k++) {
                    in_from |= members[k] == edges[i].from;
                    in_to |= members[k] == edges[i].to;
                }
                if (in_from && in_to) {
                    printf("      %s -> %s (%s)\n", units[edges[i].from].name, units[edges[i].to].name,
                           edges[i].why);
                }
            }
            failures++;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: check_layers PLAN\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    char line[LINE], shared_lib[1024] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *save = NULL, *kind = strtok_r(line, " ", &save);
        if (!kind) {
            continue;
        }
        if (strcmp(kind, "nm") == 0) {
            snprintf(nm_path, sizeof nm_path, "%s", strtok_r(NULL, "", &save));
        } else if (strcmp(kind, "shared") == 0) {
            snprintf(shared_lib, sizeof shared_lib, "%s", strtok_r(NULL, "", &save));
        } else if (strcmp(kind, "layer") == 0 && nlayers < MAX_LAYERS) {
            layer *l = &layers[nlayers];
            snprintf(l->name, sizeof l->name, "%s", strtok_r(NULL, " ", &save));
            snprintf(l->dir, sizeof l->dir, "%s", strtok_r(NULL, " ", &save));
            l->public_only = atoi(strtok_r(NULL, " ", &save));
            char *a;
            while ((a = strtok_r(NULL, " ", &save)) != NULL && l->nallowed < MAX_LAYERS) {
                snprintf(l->allowed[l->nallowed++], sizeof l->allowed[0], "%s", a);
            }
            nlayers++;
        } else if (strcmp(kind, "obj") == 0 && nobjs < MAX_UNITS) {
            const char *ln = strtok_r(NULL, " ", &save);
            const char *path = strtok_r(NULL, "", &save);
            int li = -1;
            for (int i = 0; i < nlayers; i++) {
                if (strcmp(layers[i].name, ln) == 0) {
                    li = i;
                }
            }
            if (li < 0 || !path) {
                fprintf(stderr, "check_layers: bad plan line for layer '%s'\n", ln);
                return 2;
            }
            objs[nobjs].layer = li;
            snprintf(objs[nobjs].path, sizeof objs[nobjs].path, "%s", path);
            nobjs++;
        }
    }
    fclose(f);
    if (nlayers == 0 || nobjs == 0) {
        fprintf(stderr, "check_layers: empty plan\n");
        return 2;
    }
    for (int i = 0; i < nlayers; i++) {
        scan_layer_files(i);
    }
    for (int i = 0; i < nobjs; i++) {
        collect_defs(i);
    }
    if (shared_lib[0]) {
        mark_exported(shared_lib);
    }
    for (int i = 0; i < nobjs; i++) {
        collect_uses(i);
    }
    for (int v = 0; v < nunits; v++) {
        if (!idx[v]) {
            strongconnect(v);
        }
    }
    int nexported = 0;
    for (int i = 0; i < nsyms; i++) {
        nexported += syms[i].exported;
    }
    printf("%d layers, %d units, %d objects, %d dependencies, %d global symbols (%d public), "
           "%d cycles\n",
           nlayers, nunits, nobjs, nedges, nsyms, nexported, cycles);
    for (int i = 0; i < nlayers; i++) {
        int n = 0;
        for (int u = 0; u < nunits; u++) {
            n += units[u].layer == i;
        }
        printf("  %-16s %2d units, uses:", layers[i].name, n);
        for (int a = 0; a < layers[i].nallowed; a++) {
            int al = layer_of_dir(layers[i].allowed[a]);
            printf(" %s", al >= 0 ? layers[al].name : layers[i].allowed[a]);
        }
        printf("%s\n", layers[i].public_only == 1   ? " (public API only)"
                       : layers[i].public_only == 2 ? " and the public API"
                                                    : "");
    }
    if (failures) {
        printf("%d problem(s)\n", failures);
        return 1;
    }
    printf("OK: every dependency follows the layer rule and no units form a cycle\n");
    return 0;
}
