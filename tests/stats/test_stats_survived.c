/* SPDX-License-Identifier: MIT */
/*
 * gcev_stats_survived.c: survived bytes per AppDomain after the last full blocking GC,
 * on synthetic event sequences (stats_sink.h) fed as raw payloads or written into a trace.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>
#include <gcev/gcev_stats.h>
#include <gcev/gcev_writer.h>

#include "testutil.h"
#include "stats_sink.h"

static void test_stats_appdomain_survived_after_last_full_blocking_gc(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    gcev_event ev;
    blocking_gc(&k, 10.0, 1, 2, 2.0);
    for (uint64_t ad = 1; ad <= 2; ad++) {
        ev_clear(&ev);
        ev.u.app_domain_mem_survived.app_domain_id = ad;
        ev.u.app_domain_mem_survived.survived = 1000 * ad;
        ev.u.app_domain_mem_survived.process_survived = 3000;
        emit(&k, 84, 0, &ev, 14.0, TID_GC);
    }
    blocking_gc(&k, 20.0, 2, 0, 1.0); /* gen0: its survived figures are not whole-heap */
    ev_clear(&ev);
    ev.u.app_domain_mem_survived.app_domain_id = 1;
    ev.u.app_domain_mem_survived.survived = 1;
    ev.u.app_domain_mem_survived.process_survived = 1;
    emit(&k, 84, 0, &ev, 23.0, TID_GC);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_true(sum->present & GCEV_STATS_SUM_HAS_SURVIVED);
    assert_int_equal(sum->survived_gc, 1);
    assert_int_equal(sum->process_survived, 3000);
    assert_int_equal(gcev_stats_appdomain_count(s), 2);
    assert_int_equal(gcev_stats_appdomain_at(s, 1)->app_domain_id, 2);
    assert_int_equal(gcev_stats_appdomain_at(s, 1)->survived, 2000);
    assert_null(gcev_stats_appdomain_at(s, 2));
    gcev_stats_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_appdomain_survived_after_last_full_blocking_gc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
