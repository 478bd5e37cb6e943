/* SPDX-License-Identifier: MIT */
/*
 * oracle_json.{h,c} on the committed oracle outputs: both loaders give the same records, the
 * typed lists add up to the "end" record's counts, and numbers come back exact (64-bit
 * integers, round-trip doubles, the "NaN" strings).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oracle_json.h"

static const char *golden(const char *name, char *buf, size_t n)
{
    const char *d = getenv("GCEV_TEST_DATA");
    snprintf(buf, n, "%s/traces/%s.oracle.jsonl", d ? d : "tests/data", name);
    return buf;
}

static void test_oracle_json_lists_add_up_to_the_end_record(void **state)
{
    (void)state;
    char path[1024], err[256];
    oracle_json o;
    assert_int_equal(oracle_json_load(&o, golden("svr-bgc", path, sizeof path), err, sizeof err), 0);
    assert_non_null(o.trace);
    assert_non_null(o.end);
    int64_t gc_events, gcs, lost;
    assert_int_equal(oracle_num_i64(tj_get(o.end, "gc_events"), &gc_events), 0);
    assert_int_equal(oracle_num_i64(tj_get(o.end, "gcs"), &gcs), 0);
    assert_int_equal(oracle_num_i64(tj_get(o.end, "events_lost"), &lost), 0);
    assert_int_equal((int64_t)o.nevents, gc_events);
    assert_int_equal((int64_t)o.ngcs, gcs);
    assert_int_equal(lost, 0);
    assert_int_equal(o.ngcstats, 1);
    assert_string_equal(oracle_record_type(o.events[0]), "event");
    /* TraceGC numbers run 1, 2, ... and the server trace says 2 heaps */
    for (size_t i = 0; i < o.ngcs; i++) {
        int64_t number, heaps;
        assert_int_equal(oracle_num_i64(tj_get(o.gcs[i], "Number"), &number), 0);
        assert_int_equal(number, (int64_t)i + 1);
        assert_int_equal(oracle_num_i64(tj_get(o.gcs[i], "HeapCount"), &heaps), 0);
        assert_int_equal(heaps, 2);
        double pause;
        assert_int_equal(oracle_num_double(tj_get(o.gcs[i], "PauseDurationMSec"), &pause), 0);
        assert_true(pause > 0);
    }
    /* per (provider, id, version) counts of the GC set add up to the GC events */
    int64_t sum = 0;
    for (size_t i = 0; i < o.ncounts; i++) {
        const tj *in = tj_get(o.counts[i], "gc_set");
        int64_t c;
        assert_int_equal(oracle_num_i64(tj_get(o.counts[i], "count"), &c), 0);
        sum += in && in->boolean ? c : 0;
    }
    assert_int_equal(sum, gc_events);
    oracle_json_free(&o);
}

static void test_oracle_json_lines_give_the_same_records(void **state)
{
    (void)state;
    char path[1024], err[256];
    oracle_json o;
    oracle_lines l;
    assert_int_equal(oracle_json_load(&o, golden("smallbuf", path, sizeof path), err, sizeof err), 0);
    assert_int_equal(oracle_lines_load(&l, path, err, sizeof err), 0);
    assert_int_equal(l.n, o.nrecords);
    for (size_t i = 0; i < l.n; i++) {
        tj r;
        assert_int_equal(oracle_lines_parse(&l, i, &r), 0);
        assert_true(tj_equal(&r, &o.records[i]));
        tj_free(&r);
    }
    tj bad;
    assert_int_equal(oracle_lines_parse(&l, l.n, &bad), -1);
    int64_t lost;
    assert_int_equal(oracle_num_i64(tj_get(o.end, "events_lost"), &lost), 0);
    assert_int_equal(lost, 474); /* the small-buffer capture: TraceEvent's EventsLost */
    oracle_lines_free(&l);
    oracle_json_free(&o);
}

static void test_oracle_json_numbers_are_exact(void **state)
{
    (void)state;
    tj v;
    int64_t i;
    uint64_t u;
    double d;
    assert_int_equal(tj_parse("18446744073709551615", &v), 0);
    assert_int_equal(oracle_num_u64(&v, &u), 0);
    assert_true(u == UINT64_MAX);
    assert_int_equal(oracle_num_i64(&v, &i), -1); /* does not fit */
    tj_free(&v);
    assert_int_equal(tj_parse("-9223372036854775808", &v), 0);
    assert_int_equal(oracle_num_i64(&v, &i), 0);
    assert_true(i == INT64_MIN);
    assert_int_equal(oracle_num_u64(&v, &u), -1);
    tj_free(&v);
    assert_int_equal(tj_parse("2.2993529999999964", &v), 0);
    assert_int_equal(oracle_num_double(&v, &d), 0);
    assert_true(d == 2.2993529999999964);
    assert_int_equal(oracle_num_i64(&v, &i), -1);
    tj_free(&v);
    assert_int_equal(tj_parse("\"NaN\"", &v), 0);
    assert_int_equal(oracle_num_double(&v, &d), 0);
    assert_true(isnan(d));
    tj_free(&v);
    assert_int_equal(tj_parse("\"-Infinity\"", &v), 0);
    assert_int_equal(oracle_num_double(&v, &d), 0);
    assert_true(isinf(d) && d < 0);
    tj_free(&v);
    assert_int_equal(tj_parse("\"other\"", &v), 0);
    assert_int_equal(oracle_num_double(&v, &d), -1);
    assert_null(oracle_str(NULL));
    assert_string_equal(oracle_str(&v), "other");
    tj_free(&v);
    assert_int_equal(oracle_num_i64(NULL, &i), -1);
}

static void test_oracle_json_missing_file_says_so(void **state)
{
    (void)state;
    char err[256];
    oracle_json o;
    assert_int_equal(oracle_json_load(&o, "/nonexistent/x.oracle.jsonl", err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot read"));
    oracle_lines l;
    assert_int_equal(oracle_lines_load(&l, "/nonexistent/x.oracle.jsonl", err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot read"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle_json_lists_add_up_to_the_end_record),
        cmocka_unit_test(test_oracle_json_lines_give_the_same_records),
        cmocka_unit_test(test_oracle_json_numbers_are_exact),
        cmocka_unit_test(test_oracle_json_missing_file_says_so),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
