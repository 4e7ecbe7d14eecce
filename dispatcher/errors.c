/* muster_strerror and muster_errname: the dispatcher's table, then kube's, then queue's. */
#include "dispatcher/errors.h"

#define XX(name, value, msg)                                                                       \
    _Static_assert((value) >= DISP_ERRNO_LO && (value) <= DISP_ERRNO_HI,                           \
                   "MUSTER_" #name " is outside the dispatcher's range");
DISP_ERRNO_MAP(XX)
#undef XX
_Static_assert(DISP_ERRNO_HI < KUBE_ERRNO_LO, "the dispatcher's range overlaps kube's");

const char *muster_strerror(int err)
{
    switch (err) {
#define XX(name, value, msg)                                                                       \
    case MUSTER_##name:                                                                            \
        return msg;
        DISP_ERRNO_MAP(XX)
#undef XX
    default:
        return kube_strerror(err);
    }
}

const char *muster_errname(int err)
{
    switch (err) {
#define XX(name, value, msg)                                                                       \
    case MUSTER_##name:                                                                            \
        return #name;
        DISP_ERRNO_MAP(XX)
#undef XX
    default:
        return kube_errname(err);
    }
}
