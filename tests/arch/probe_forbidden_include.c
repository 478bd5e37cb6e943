/* SPDX-License-Identifier: MIT */
/* Built with the decode layer's include path: format is above decode, so this must not compile. */
#include "gcev_tdh_json.h"

int gcev_arch_probe_forbidden(void)
{
    return 0;
}
