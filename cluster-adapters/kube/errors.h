/* The hub protocol's error codes (network, TLS, HTTP, configuration): the table of
 * cluster-adapters, above queue/errors.h's, and kube_strerror() generated from it. */
#ifndef MUSTER_KUBE_ERRORS_H
#define MUSTER_KUBE_ERRORS_H

#include "queue/errors.h"

/* cluster-adapters' range (queue/errors.h lists every layer's). */
#define KUBE_ERRNO_LO (-1100)
#define KUBE_ERRNO_HI (-1001)

/* XX(name, value, message). */
#define KUBE_ERRNO_MAP(XX)                                                                         \
    XX(EIO, -1099, "input/output error")                                                           \
    XX(ECONFLICT, -1098, "conflict")                                                               \
    XX(EPROTO, -1097, "protocol error")                                                            \
    XX(ECONNECT, -1096, "could not connect")                                                       \
    XX(ETIMEDOUT, -1095, "timed out")                                                              \
    XX(ETLS, -1094, "TLS error")                                                                   \
    XX(ECANCELED, -1093, "canceled")                                                               \
    XX(EUNAUTHORIZED, -1092, "unauthorized")                                                       \
    XX(EFORBIDDEN, -1091, "forbidden")                                                             \
    XX(EGONE, -1090, "resource version too old")                                                   \
    XX(ETOOMANY, -1089, "too many requests")                                                       \
    XX(EHTTP, -1088, "HTTP error")                                                                 \
    XX(ECONFIG, -1087, "bad configuration")                                                        \
    XX(ETOOBIG, -1086, "request too large")

enum kube_errno {
#define XX(name, value, msg) MUSTER_##name = (value),
    KUBE_ERRNO_MAP(XX)
#undef XX
};

/* A static message for a kube or queue code (or 0); "unknown error" for any other value. Code in
 * cluster-adapters calls this one: it never reaches up to the dispatcher's muster_strerror. */
const char *kube_strerror(int err);

/* The symbolic name of a kube or queue code, e.g. "ETLS"; "UNKNOWN" for any other value. */
const char *kube_errname(int err);

#endif
