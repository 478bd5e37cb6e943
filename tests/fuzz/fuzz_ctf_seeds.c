/* SPDX-License-Identifier: MIT */
/*
 * Seeds of fuzz_ctf (framing: fuzz_ctf.h) from extracted LTTng trace folders:
 *   fuzz_ctf_seeds OUT_DIR FOLDER...
 * For every folder under FOLDER holding a "metadata" file: the metadata and
 * the first 64 KiB of up to 4 of its stream files, once read from memory and
 * once through short reads. Written to OUT_DIR/ctf (build tree only).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_STREAM_SEED = 65536, MAX_STREAMS = 4 };

static const char *out_dir;
static unsigned nwritten;

static void put_u32(FILE *f, size_t v)
{
    for (int i = 0; i < 4; i++) {
        fputc((int)((v >> (8 * i)) & 0xff), f);
    }
}

static int append_file(FILE *f, const char *path, size_t max)
{
    FILE *in = fopen(path, "rb");
    if (!in) {
        return 0;
    }
    static unsigned char buf[MAX_STREAM_SEED * 2];
    size_t n = fread(buf, 1, max < sizeof buf ? max : sizeof buf, in);
    fclose(in);
    put_u32(f, n);
    fwrite(buf, 1, n, f);
    return 1;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void trace_seed(const char *dir)
{
    char meta[8192];
    snprintf(meta, sizeof meta, "%s/metadata", dir);
    DIR *d = opendir(dir);
    if (!d) {
        return;
    }
    char *streams[64];
    size_t ns = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && ns < 64) {
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (de->d_name[0] != '.' && strcmp(de->d_name, "metadata") && stat(p, &sb) == 0 &&
            S_ISREG(sb.st_mode)) {
            streams[ns++] = strdup(p);
        }
    }
    closedir(d);
    qsort(streams, ns, sizeof *streams, name_cmp);
    for (int mode = 0; mode < 2; mode++) {
        char out[8192];
        snprintf(out, sizeof out, "%s/ctf/seed-%03u", out_dir, nwritten);
        FILE *f = fopen(out, "wb");
        if (!f) {
            break;
        }
        fputc(mode ? 1 | (5 << 1) : 0, f);
        append_file(f, meta, 1u << 20);
        for (size_t i = 0; i < ns && i < MAX_STREAMS; i++) {
            append_file(f, streams[i], MAX_STREAM_SEED);
        }
        fclose(f);
        nwritten++;
    }
    for (size_t i = 0; i < ns; i++) {
        free(streams[i]);
    }
}

static void walk(const char *dir, int depth)
{
    if (depth > 16) {
        return;
    }
    char meta[8192];
    snprintf(meta, sizeof meta, "%s/metadata", dir);
    struct stat sb;
    if (stat(meta, &sb) == 0 && S_ISREG(sb.st_mode)) {
        trace_seed(dir);
    }
    DIR *d = opendir(dir);
    if (!d) {
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') {
            continue;
        }
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            walk(p, depth + 1);
        }
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_ctf_seeds OUT_DIR FOLDER...\n");
        return 2;
    }
    out_dir = argv[1];
    char sub[8192];
    snprintf(sub, sizeof sub, "%s/ctf", out_dir);
    if ((mkdir(out_dir, 0777) != 0 && errno != EEXIST) || (mkdir(sub, 0777) != 0 && errno != EEXIST)) {
        fprintf(stderr, "fuzz_ctf_seeds: cannot create %s\n", sub);
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        walk(argv[i], 0);
    }
    printf("fuzz_ctf_seeds: %u seed files in %s\n", nwritten, sub);
    return 0;
}
