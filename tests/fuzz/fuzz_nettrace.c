/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the trace reader on .nettrace / .netperf files (NetPerf V1-V3, NetTrace V4-V6),
 * from memory or a read callback, in file or timestamp order (see
 * fuzz_trace_common.h). Detection is by content, so this harness differs from
 * its sibling only in its seeds.
 */
#include "fuzz_trace_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_trace_run(data, size);
    return 0;
}
