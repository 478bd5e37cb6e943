/* SPDX-License-Identifier: MIT */
/*
 * The version (src/base/gcev_version.c): the library says the version of the headers
 * it was built with, the string and the number say the same, and the project's
 * version (CMake, the CLI's --version, gcev.pc) is the header's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <gcev/gcev.h>

static void test_version_library_matches_headers(void **state)
{
    (void)state;
    assert_int_equal(gcev_version(), GCEV_VERSION_HEX);
    assert_string_equal(gcev_version_string(), GCEV_VERSION_STRING);
    char buf[32];
    snprintf(buf, sizeof buf, "%d.%d.%d", GCEV_VERSION_MAJOR, GCEV_VERSION_MINOR, GCEV_VERSION_PATCH);
    assert_string_equal(buf, GCEV_VERSION_STRING);
    assert_int_equal(GCEV_VERSION_HEX >> 16, GCEV_VERSION_MAJOR);
    assert_int_equal((GCEV_VERSION_HEX >> 8) & 0xff, GCEV_VERSION_MINOR);
    assert_int_equal(GCEV_VERSION_HEX & 0xff, GCEV_VERSION_PATCH);
    /* the build's project version (CMake read it from the header) */
    const char *project = getenv("GCEV_PROJECT_VERSION");
    assert_non_null(project);
    assert_string_equal(project, GCEV_VERSION_STRING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_library_matches_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
