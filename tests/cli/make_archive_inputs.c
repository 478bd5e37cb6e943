/* SPDX-License-Identifier: MIT */
/*
 * Writes the CLI tests' archive and cut-ETL inputs into OUT_DIR (the build tree):
 *   make_archive_inputs OUT_DIR SOURCE_DIR [SHARED_DIR]
 * sample.nettrace.zip (examples/sample.nettrace deflated next to a symbol file) and
 * two-traces.zip; with the shared corpus also gcrundownevents.etl.zip,
 * compressed.etl.zip and cut65536.etl (the first 65536 bytes of gcrundownevents.etl,
 * what `head -c 65536` gives: one of its two buffers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "zip_builder.h"

static int write_file(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "make_archive_inputs: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

static int zip_one(const char *dir, const char *name, const char *entry, const char *src)
{
    size_t n = 0;
    char *data = testutil_read_file(src, &n);
    if (!data) {
        fprintf(stderr, "make_archive_inputs: cannot read %s\n", src);
        return 1;
    }
    zipb_entry e[] = {{entry, data, n, ZIPB_DEFLATE, 0}, {"symbols/app.pdb", "RSDS", 4, ZIPB_STORE, 0}};
    size_t zn = 0;
    uint8_t *z = zipb_build(e, 2, &zn);
    int rc = z ? write_file(dir, name, z, zn) : 1;
    free(z);
    free(data);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: make_archive_inputs OUT_DIR SOURCE_DIR [SHARED_DIR]\n");
        return 2;
    }
    const char *out = argv[1];
    char src[4096];
    snprintf(src, sizeof src, "%s/examples/sample.nettrace", argv[2]);
    int rc = zip_one(out, "sample.nettrace.zip", "sample.nettrace", src);
    zipb_entry two[] = {{"a.etl", "x", 1, ZIPB_STORE, 0}, {"b.nettrace", "y", 1, ZIPB_STORE, 0}};
    size_t zn = 0;
    uint8_t *z = zipb_build(two, 2, &zn);
    rc |= z ? write_file(out, "two-traces.zip", z, zn) : 1;
    free(z);
    if (argc > 3) {
        snprintf(src, sizeof src, "%s/corpus/gcrundownevents.etl", argv[3]);
        rc |= zip_one(out, "gcrundownevents.etl.zip", "gcrundownevents.etl", src);
        size_t n = 0;
        char *data = testutil_read_file(src, &n);
        rc |= !data || n < 65536 || write_file(out, "cut65536.etl", data, 65536);
        free(data);
        snprintf(src, sizeof src, "%s/corpus/compressed-SelfDescribingSingleEvent.etl", argv[3]);
        rc |= zip_one(out, "compressed.etl.zip", "compressed-SelfDescribingSingleEvent.etl", src);
    }
    return rc;
}
