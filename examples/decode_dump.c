/* SPDX-License-Identifier: MIT */
/*
 * The smallest end-to-end use of gcev: decode one GCStart_V2 payload with the
 * public API, read typed fields, name an enum value, and print the event as
 * text and JSON with the generic formatters.
 */
#include <gcev/gcev.h>
#include <stdio.h>

int main(void)
{
    /* GCStart_V2 as the runtime sends it (x64): Count, Depth, Reason, Type,
     * ClrInstanceID, ClientSequenceNumber */
    static const uint8_t payload[] = {
        0x0c, 0x00, 0x00, 0x00,                         /* Count = 12 */
        0x01, 0x00, 0x00, 0x00,                         /* Depth = 1 (gen1) */
        0x04, 0x00, 0x00, 0x00,                         /* Reason = 4 (AllocLarge) */
        0x00, 0x00, 0x00, 0x00,                         /* Type = 0 (NonConcurrentGC) */
        0x03, 0x00,                                     /* ClrInstanceID = 3 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* ClientSequenceNumber */
    };
    gcev_input in = {.struct_size = sizeof in,
                     .provider = gcev_provider_find("Microsoft-Windows-DotNETRuntime"),
                     .event_id = 1,
                     .version = 2,
                     .pointer_size = 8,
                     .data = payload,
                     .size = sizeof payload};
    gcev_event ev;
    gcev_error err;
    if (gcev_decode(&in, &ev, &err) != GCEV_OK) {
        fprintf(stderr, "decode failed: %s (field %s, byte %llu)\n", err.message, err.field ? err.field : "-",
                (unsigned long long)err.offset);
        return 1;
    }
    const gcev_gc_start *gc = &ev.u.gc_start;
    const char *reason = gcev_gc_reason_map_name(gc->reason);
    printf("GC #%u of generation %u, reason %s\n", gc->count, gc->depth, reason ? reason : "unknown");

    char line[512];
    gcev_format_text(&ev, line, sizeof line);
    printf("%s\n", line);
    gcev_format_fields_json(&ev, line, sizeof line);
    printf("%s\n", line);
    return 0;
}
