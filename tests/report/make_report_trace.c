/* SPDX-License-Identifier: MIT */
/* make_report_trace GCS OUT: writes the many-GC trace of report_trace.h (for the browser test). */
#include <stdio.h>
#include <stdlib.h>

#include "report_trace.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: make_report_trace GCS OUT\n");
        return 2;
    }
    size_t size = 0;
    uint8_t *data = report_trace_write((uint32_t)strtoul(argv[1], NULL, 10), &size);
    FILE *f = data ? fopen(argv[2], "wb") : NULL;
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "make_report_trace: cannot write %s\n", argv[2]);
        free(data);
        return 1;
    }
    free(data);
    return 0;
}
