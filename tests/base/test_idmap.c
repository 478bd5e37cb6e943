/* SPDX-License-Identifier: MIT */
/* The id map (src/base/gcev_idmap.c): look-ups, inserts, clearing; keyed hashing that no set
 * of ids can flood (issue 22); SipHash-1-3 against the reference implementation's vectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "flood_ids.h"
#include "gcev_idmap.h"

static void test_idmap_put_get_replace_clear(void **s)
{
    (void)s;
    gcev_idmap m = {0};
    assert_int_equal(gcev_idmap_get(&m, 5), UINT32_MAX); /* empty, no storage */
    for (uint32_t i = 0; i < 1000; i++) {
        assert_true(gcev_idmap_put(&m, (uint64_t)i * 7919, i));
    }
    assert_int_equal(m.count, 1000);
    for (uint32_t i = 0; i < 1000; i++) {
        assert_int_equal(gcev_idmap_get(&m, (uint64_t)i * 7919), i);
    }
    assert_int_equal(gcev_idmap_get(&m, 1), UINT32_MAX);
    assert_true(gcev_idmap_put(&m, 7919, 42)); /* replaces */
    assert_int_equal(m.count, 1000);
    assert_int_equal(gcev_idmap_get(&m, 7919), 42);
    assert_true(gcev_idmap_put(&m, UINT64_MAX, 3));
    assert_int_equal(gcev_idmap_get(&m, UINT64_MAX), 3);
    gcev_idmap_clear(&m);
    assert_int_equal(m.count, 0);
    assert_int_equal(gcev_idmap_get(&m, 7919), UINT32_MAX);
    assert_true(gcev_idmap_put(&m, 7919, 1));
    assert_int_equal(gcev_idmap_get(&m, 7919), 1);
    gcev_idmap_free(&m);
    assert_null(m.keys);
    assert_int_equal(m.cap, 0);
}

/* 131,072 ids that all shared slot 0 under the former hash (fmix64) at every table size the map
 * reaches: each insert walked every earlier id (n^2 / 2 = 8.6e9 probes, 33 s in gcev count).
 * Under a key the input does not know they are ids like any other: the slots examined by the
 * inserts and the rehashes stay a small multiple of n. */
static void test_idmap_ids_that_collided_under_fmix64_cost_linear_probes(void **s)
{
    (void)s;
    enum { N = 1 << 17 };
    for (uint64_t i = 1; i <= 64; i++) { /* the ids are what they claim to be */
        assert_true((flood_fmix64(flood_id(i)) & 0xffffffffu) == 0);
        assert_true(flood_fmix64(flood_id(i)) >> 32 == i);
    }
    gcev_idmap m = {0};
    for (uint32_t i = 1; i <= N; i++) {
        assert_true(gcev_idmap_put(&m, flood_id(i), i));
    }
    assert_int_equal(m.count, N);
    /* linear probing at load <= 1/2 averages under 2.5 slots per insert; the rehashes
     * (32 + 64 + ... < 2 N entries) as much again */
    if (m.probes > (uint64_t)8 * N) {
        fail_msg("%llu probes for %d inserts: not linear", (unsigned long long)m.probes, N);
    }
    for (uint32_t i = 1; i <= N; i++) {
        assert_int_equal(gcev_idmap_get(&m, flood_id(i)), i);
    }
    gcev_idmap_free(&m);
}

/* Each map draws its own key: two maps (and two runs) place the same ids differently. */
static void test_idmap_each_map_draws_its_own_key(void **s)
{
    (void)s;
    gcev_idmap a = {0}, b = {0};
    assert_true(gcev_idmap_put(&a, 1, 1));
    assert_true(gcev_idmap_put(&b, 1, 1));
    assert_true(a.key[0] != b.key[0] || a.key[1] != b.key[1]);
    assert_true(a.key[0] != 0 || a.key[1] != 0);
    uint64_t k[2];
    gcev_idmap_random_key(k);
    assert_true(k[0] != a.key[0] || k[1] != a.key[1]);
    gcev_idmap_clear(&a); /* clearing keeps the key (the slots of stored ids) */
    uint64_t kept0 = a.key[0];
    assert_true(gcev_idmap_put(&a, 2, 2));
    assert_true(a.key[0] == kept0);
    gcev_idmap_free(&a);
    gcev_idmap_free(&b);
}

/* Known answers: CPython 3.11+ hashes bytes with SipHash-1-3, under a zero key when
 * PYTHONHASHSEED=0 (PYTHONHASHSEED=0 python3 -c "print(hex(hash(bytes.fromhex(
 * '0102030405060708')) & (2**64-1)))"); the 8 bytes are m in little-endian order. */
static void test_idmap_siphash13_matches_known_answers(void **s)
{
    (void)s;
    assert_true(gcev_siphash13_u64(0, 0, 0x0807060504030201ull) == 0x884ccc87cb0e5fb0ull);
    assert_true(gcev_siphash13_u64(0, 0, 0) == 0xbd60acb658c79e45ull);
    assert_true(gcev_siphash13_u64(0, 0, UINT64_MAX) == 0x2f205be2fec8e38dull);
    /* and the key matters */
    assert_true(gcev_siphash13_u64(1, 0, 0) != 0xbd60acb658c79e45ull);
    assert_true(gcev_siphash13_u64(0, 1, 0) != 0xbd60acb658c79e45ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idmap_put_get_replace_clear),
        cmocka_unit_test(test_idmap_ids_that_collided_under_fmix64_cost_linear_probes),
        cmocka_unit_test(test_idmap_each_map_draws_its_own_key),
        cmocka_unit_test(test_idmap_siphash13_matches_known_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
