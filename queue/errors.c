/* muster_strerror and muster_errname, generated from MUSTER_ERRNO_MAP. */
#include "queue/errors.h"

const char *muster_strerror(int err)
{
    switch (err) {
    case MUSTER_OK:
        return "success";
#define XX(name, msg)                                                                              \
    case MUSTER_##name:                                                                            \
        return msg;
        MUSTER_ERRNO_MAP(XX)
#undef XX
    default:
        return "unknown error";
    }
}

const char *muster_errname(int err)
{
    switch (err) {
    case MUSTER_OK:
        return "OK";
#define XX(name, msg)                                                                              \
    case MUSTER_##name:                                                                            \
        return #name;
        MUSTER_ERRNO_MAP(XX)
#undef XX
    default:
        return "UNKNOWN";
    }
}
