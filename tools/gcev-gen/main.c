/* SPDX-License-Identifier: MIT */
/*
 * gcev-gen [--select FILE] [--header H --source C [--decoder D]] [--describe] MANIFEST...
 * gcev-gen --check-against REF.man [--check-against SUPPLEMENT.man]... [--select FILE] MANIFEST...
 */
#include "gen.h"

#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    fprintf(stderr,
            "usage: gcev-gen [--select FILE] [--header OUT.h --source OUT.c [--decoder OUT.c]] [--describe]\n"
            "                MANIFEST...\n"
            "       gcev-gen --check-against REFERENCE.man --select FILE MANIFEST...\n"
            "  --select FILE        keep only the events the rules in FILE name (applies to\n"
            "                       the reference with --check-against)\n"
            "  --header/--source    write the generated C header / tables\n"
            "  --decoder            write the generated straight-line decoders (decode layer)\n"
            "  --describe           print one canonical line per event version and map\n"
            "  --check-against REF  compare MANIFEST(s) with REF; exit 1 listing differences (given\n"
            "                       again, the files together are the reference: a supplement adds\n"
            "                       events newer than REF to REF's providers)\n");
    exit(2);
}

static FILE *open_out(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        gen_fail(path, 0, "cannot open for writing (does its folder exist?)");
    }
    return f;
}

int main(int argc, char **argv)
{
    const char *select = NULL, *header = NULL, *source = NULL, *decoder = NULL;
    int describe = 0;
    gen_model m = {0};
    const char **inputs = calloc((size_t)argc, sizeof *inputs);
    const char **refs = calloc((size_t)argc, sizeof *refs);
    size_t ninputs = 0, nrefs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--select") && i + 1 < argc) {
            select = argv[++i];
        } else if (!strcmp(argv[i], "--header") && i + 1 < argc) {
            header = argv[++i];
        } else if (!strcmp(argv[i], "--source") && i + 1 < argc) {
            source = argv[++i];
        } else if (!strcmp(argv[i], "--decoder") && i + 1 < argc) {
            decoder = argv[++i];
        } else if (!strcmp(argv[i], "--check-against") && i + 1 < argc) {
            refs[nrefs++] = argv[++i];
        } else if (!strcmp(argv[i], "--describe")) {
            describe = 1;
        } else if (argv[i][0] == '-') {
            usage();
        } else {
            inputs[ninputs++] = argv[i];
        }
    }
    if (ninputs == 0 || (!header != !source) || (decoder && !header) || (!header && !describe && !nrefs)) {
        usage();
    }
    gen_select sel = {0};
    if (select) {
        gen_load_select(&sel, select);
    }
    for (size_t i = 0; i < ninputs; i++) {
        gen_parse_manifest(&m, inputs[i]);
    }
    if (nrefs) {
        gen_resolve(&m, NULL);
        gen_model r = {0};
        for (size_t i = 0; i < nrefs; i++) {
            gen_parse_manifest(&r, refs[i]);
        }
        gen_resolve(&r, select ? &sel : NULL);
        return gen_compare(&m, &r, stdout) ? 1 : 0;
    }
    gen_resolve(&m, select ? &sel : NULL);
    if (describe) {
        gen_describe(&m, stdout);
    }
    if (header) {
        FILE *h = open_out(header);
        gen_emit_header(&m, h);
        FILE *c = open_out(source);
        gen_emit_source(&m, c);
        if (fclose(h) != 0 || fclose(c) != 0) {
            gen_fail(header, 0, "write failed");
        }
        if (decoder) {
            FILE *d = open_out(decoder);
            gen_emit_decoder(&m, d);
            if (fclose(d) != 0) {
                gen_fail(decoder, 0, "write failed");
            }
        }
    }
    free(inputs);
    free(refs);
    return 0;
}
