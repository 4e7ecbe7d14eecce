/* kube_strerror and kube_errname, generated from KUBE_ERRNO_MAP, falling back to queue's. */
#include "cluster-adapters/kube/errors.h"

#define XX(name, value, msg)                                                                       \
    _Static_assert((value) >= KUBE_ERRNO_LO && (value) <= KUBE_ERRNO_HI,                           \
                   "MUSTER_" #name " is outside cluster-adapters' range");
KUBE_ERRNO_MAP(XX)
#undef XX
_Static_assert(KUBE_ERRNO_HI < QUEUE_ERRNO_LO, "kube's range overlaps queue's");

MUSTER_ERRNO_DEFINE(KUBE_ERRNO_MAP, kube_strerror, kube_errname, queue_strerror, queue_errname)
