/* The dispatcher's own error codes (the store's), and muster_strerror, which knows every code of
 * every layer: dispatcher, cluster-adapters (kube/errors.h) and queue (queue/errors.h). */
#ifndef MUSTER_DISPATCHER_ERRORS_H
#define MUSTER_DISPATCHER_ERRORS_H

#include "cluster-adapters/kube/errors.h"

/* The dispatcher's range (queue/errors.h lists every layer's). */
#define DISP_ERRNO_LO (-1200)
#define DISP_ERRNO_HI (-1101)

/* XX(name, value, message). */
#define DISP_ERRNO_MAP(XX)                                                                         \
    XX(ESTORE, -1199, "database error")                                                            \
    XX(ESCHEMA, -1198, "database schema not supported")

enum disp_errno {
#define XX(name, value, msg) MUSTER_##name = (value),
    DISP_ERRNO_MAP(XX)
#undef XX
};

/* A static, human-readable message for any muster code (or 0); "unknown error" otherwise. */
const char *muster_strerror(int err);

/* Any muster code's symbolic name, e.g. "ESTORE"; "OK" for 0, "UNKNOWN" otherwise. */
const char *muster_errname(int err);

#endif
