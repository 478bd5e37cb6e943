/* SPDX-License-Identifier: MIT */
#include <gcev/gcev.h>

const char *gcev_status_str(gcev_status status)
{
    static const char *const msgs[] = {
#define GCEV_STATUS_MSG_(name, msg) msg,
        GCEV_STATUS_LIST(GCEV_STATUS_MSG_)
#undef GCEV_STATUS_MSG_
    };
    if ((unsigned)status >= sizeof msgs / sizeof msgs[0]) {
        return "unknown status";
    }
    return msgs[status];
}
