/* SPDX-License-Identifier: MIT */
/* gcev serve where it is not built: no libmicrohttpd or zlib at configure time, or not Linux. */
#include "cli.h"
#include "commands.h"

int gcev_cmd_serve(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return gcev_cli_fail("serve", "not in this build (it needs Linux, libmicrohttpd and zlib, Debian's "
                                  "libmicrohttpd-dev and zlib1g-dev, when gcev is configured)");
}
