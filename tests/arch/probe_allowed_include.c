/* SPDX-License-Identifier: MIT */
/* Built with the decode layer's include path: schema is below decode, so this compiles. */
#include "gcev_quirks.h"

int gcev_arch_probe_allowed(void)
{
    return 0;
}
