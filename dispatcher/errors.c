/* muster_strerror and muster_errname: the dispatcher's table, then kube's, then queue's. */
#include "dispatcher/errors.h"

#define XX(name, value, msg)                                                                       \
    _Static_assert((value) >= DISP_ERRNO_LO && (value) <= DISP_ERRNO_HI,                           \
                   "MUSTER_" #name " is outside the dispatcher's range");
DISP_ERRNO_MAP(XX)
#undef XX
_Static_assert(DISP_ERRNO_HI < KUBE_ERRNO_LO, "the dispatcher's range overlaps kube's");

MUSTER_ERRNO_DEFINE(DISP_ERRNO_MAP, muster_strerror, muster_errname, kube_strerror, kube_errname)
