/* musterd's version string. */
#include "dispatcher/version.h"

#ifndef MUSTER_VERSION
#define MUSTER_VERSION "0.0.0-dev"
#endif

const char *disp_version(void)
{
    return MUSTER_VERSION;
}
