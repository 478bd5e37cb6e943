/* SPDX-License-Identifier: MIT */
/*
 * Names of the analysis' enumerations, PerfView's GC label, and the decoding of
 * CondemnReasons0/1 into TraceEvent's CondemnedReasonGroup values
 * (TraceManagedProcess.cs, GCCondemnedReasons.Decode).
 */
#include <stdio.h>
#include <string.h>

#include "gcev_stats_internal.h"

const char *gcev_stats_gc_type_name(uint32_t type)
{
    static const char *const names[] = {"blocking", "background", "foreground"};
    return type < 3 ? names[type] : NULL;
}

const char *gcev_stats_gen_name(unsigned gen)
{
    static const char *const names[GCEV_STATS_GENS] = {"gen0", "gen1", "gen2", "loh", "poh"};
    return gen < GCEV_STATS_GENS ? names[gen] : NULL;
}

const char *gcev_stats_phase_name(unsigned phase)
{
    static const char *const names[GCEV_STATS_PHASES] = {
        "mark_root", "mark_short_weak", "mark_scan_finalization", "mark_long_weak", "plan", "relocate",
        "compact",   "sweep",           "mark_sized_ref"};
    return phase < GCEV_STATS_PHASES ? names[phase] : NULL;
}

const char *gcev_stats_bgc_event_name(unsigned i)
{
    static const char *const names[GCEV_STATS_BGC_EVENTS] = {
        "begin",         "1st_noncon_end", "1st_con_end", "2nd_noncon_begin", "2nd_noncon_end",
        "2nd_con_begin", "2nd_con_end",    "plan_end",    "sweep_end",        "1st_sweep_end"};
    return i < GCEV_STATS_BGC_EVENTS ? names[i] : NULL;
}

const char *gcev_stats_global_mechanism_name(unsigned bit)
{
    /* the runtime's gc_global_mechanism_p order (GCGlobalMechanisms bits) */
    static const char *const names[] = {"concurrent", "compaction",   "promotion",
                                        "demotion",   "card_bundles", "elevation"};
    return bit < sizeof names / sizeof names[0] ? names[bit] : NULL;
}

/* The index of the lowest set bit of v below count (TraceEvent's IndexOfSetBit), or -1. */
static int mechanism_index(uint32_t v, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        if (v & (1u << i)) {
            return (int)i;
        }
    }
    return -1;
}

const char *gcev_stats_compact_reason_name(uint32_t compact_mechanisms)
{
    /* gc_heap_compact_reason (TraceEvent's enum of the runtime's gcrecords.h) */
    static const char *const names[] = {"low_ephemeral",   "high_frag",     "no_gaps",
                                        "loh_forced",      "last_gc",       "induced_compacting",
                                        "fragmented_gen0", "high_mem_load", "high_mem_frag",
                                        "vhigh_mem_frag",  "no_gc_mode"};
    int i = mechanism_index(compact_mechanisms, sizeof names / sizeof names[0]);
    return i >= 0 ? names[i] : NULL;
}

const char *gcev_stats_expand_mechanism_name(uint32_t expand_mechanisms)
{
    /* gc_heap_expand_mechanism */
    static const char *const names[] = {"reuse_normal", "reuse_bestfit", "new_seg_ep",
                                        "new_seg",      "no_memory",     "next_full_gc"};
    int i = mechanism_index(expand_mechanisms, sizeof names / sizeof names[0]);
    return i >= 0 ? names[i] : NULL;
}

static const char *const group_names[GCEV_STATS_CONDEMNED_GROUPS] = {
    "Initial_Generation",
    "Final_Generation",
    "Alloc_Exceeded",
    "Time_Tuning",
    "Induced",
    "Low_Ephemeral",
    "Expand_Heap",
    "Fragmented_Ephemeral",
    "Fragmented_Gen1_To_Gen2",
    "Fragmented_Gen2",
    "Fragmented_Gen2_High_Mem",
    "GC_Before_OOM",
    "Too_Small_For_BGC",
    "Ephemeral_Before_BGC",
    "Internal_Tuning",
    "Almost_Max_Alloc",
    "Avoid_Unproductive",
    "Pm_Induced_Fullgc_p",
    "Pm_Alloc_LOH",
    "Gen1_In_Pm",
    "Limit_Before_OOM",
    "Limit_LOH_Frag",
    "Limit_LOH_Reclaim",
    "Servo_Initial",
    "Servo_NGC",
    "Servo_BGC",
    "Servo_Postpone",
    "Stress_Mix",
    "Stress",
    "Aggressive",
};

const char *gcev_stats_condemned_group_name(unsigned group)
{
    return group < GCEV_STATS_CONDEMNED_GROUPS ? group_names[group] : NULL;
}

/*
 * The runtime's gc_condemn_reason_condition bits (CondemnReasons1 from version 2, the
 * high 16 bits of CondemnReasons0 in version 0) and the group each sets, with its value:
 * TraceEvent's Condemned_Reason_Condition -> CondemnedReasonGroup switch. -1: no group
 * (High_mem_p, Very_high_mem_p).
 */
static const struct {
    int8_t group;
    uint8_t value;
} conditions[31] = {
    {4, 1},  /* Induced_fullgc_p: Induced = Blocking */
    {6, 1},  /* Expand_fullgc_p */
    {-1, 0}, /* High_mem_p */
    {-1, 0}, /* Very_high_mem_p */
    {5, 1},  /* Low_ephemeral_p */
    {14, 1}, /* Low_card_p: Internal_Tuning */
    {7, 1},  /* Eph_high_frag_p: Fragmented_Ephemeral */
    {9, 1},  /* Max_high_frag_p: Fragmented_Gen2 */
    {8, 1},  /* Max_high_frag_e_p: Fragmented_Gen1_To_Gen2 */
    {10, 1}, /* Max_high_frag_m_p: Fragmented_Gen2_High_Mem */
    {10, 1}, /* Max_high_frag_vm_p */
    {2, 2},  /* Max_gen1: Alloc_Exceeded = 2 */
    {11, 1}, /* Before_oom */
    {12, 1}, /* Gen2_too_small: Too_Small_For_BGC */
    {4, 2},  /* Induced_noforce_p: Induced = NotForced */
    {13, 1}, /* Before_bgc: Ephemeral_Before_BGC */
    {15, 1}, /* Almost_max_alloc */
    {16, 1}, /* Avoid_unproductive */
    {17, 1}, /* Pm_induced_fullgc_p */
    {18, 1}, /* Pm_alloc_loh */
    {19, 1}, /* Gen1_in_pm */
    {20, 1}, /* Limit_before_oom */
    {21, 1}, /* Limit_loh_frag */
    {22, 1}, /* Limit_loh_reclaim */
    {23, 1}, /* Servo_initial */
    {24, 1}, /* Servo_ngc */
    {25, 1}, /* Servo_bgc */
    {26, 1}, /* Servo_postpone */
    {27, 1}, /* Stress_mix */
    {28, 1}, /* Stress */
    {29, 1}, /* Aggressive */
};

void gcev_stats_decode_condemned(uint32_t reasons0, uint32_t reasons1, int has1, int version,
                                 uint8_t groups[GCEV_STATS_CONDEMNED_GROUPS])
{
    memset(groups, 0, GCEV_STATS_CONDEMNED_GROUPS);
    /* two bits each: initial, final (per heap), allocation budget and time-tuning generations */
    for (int i = 0; i < 4; i++) {
        groups[i] = (uint8_t)((reasons0 >> (i * 2)) & 3);
    }
    for (int c = 0; c < 31; c++) {
        int set = 0;
        if (version == 0) {
            set = c < 16 && (reasons0 & (UINT32_C(1) << (c + 16))) != 0;
        } else if (version >= 2 && has1) {
            set = (reasons1 & (UINT32_C(1) << c)) != 0;
        }
        if (set && conditions[c].group >= 0) {
            groups[conditions[c].group] = conditions[c].value;
        }
    }
}

size_t gcev_stats_gc_label(const gcev_stats_gc *g, char *buf, size_t n)
{
    if (!g) {
        if (n) {
            buf[0] = '\0';
        }
        return 0;
    }
    const char *type = "";
    if (g->present & GCEV_STATS_GC_HAS_TYPE) {
        type = g->type == GCEV_STATS_BLOCKING     ? "N"
               : g->type == GCEV_STATS_BACKGROUND ? "B"
               : g->type == GCEV_STATS_FOREGROUND ? "F"
                                                  : "";
    }
    const char *induced = "";
    if (g->present & GCEV_STATS_GC_HAS_REASON) {
        induced = g->reason == 1 ? "I" : g->reason == 7 ? "i" : "";
    }
    int len = snprintf(buf, n, "%u%s%s", g->generation, type, induced);
    return len < 0 ? 0 : (size_t)len;
}
