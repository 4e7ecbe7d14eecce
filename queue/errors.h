/* muster's error codes: one table, negative values, and muster_strerror() generated from it. */
#ifndef MUSTER_QUEUE_ERRORS_H
#define MUSTER_QUEUE_ERRORS_H

/* XX(name, message). Functions return 0 on success or one of these (negative) on failure. */
#define MUSTER_ERRNO_MAP(XX)                                                                       \
    XX(EINVAL, "invalid argument")                                                                 \
    XX(ERANGE, "value out of range")                                                               \
    XX(ENOMEM, "out of memory")                                                                    \
    XX(ENOENT, "not found")                                                                        \
    XX(EEXIST, "already exists")                                                                   \
    XX(ENOSPC, "buffer too small")                                                                 \
    XX(ENOTEMPTY, "not empty")                                                                     \
    XX(EBUSY, "in use")                                                                            \
    XX(ECYCLE, "would create a cycle")                                                             \
    XX(ELIMIT, "over a limit")                                                                     \
    XX(ECLOSED, "queue not open")                                                                  \
    XX(ENOTLEAF, "not a leaf queue")                                                               \
    XX(ESTORE, "database error")                                                                   \
    XX(ESCHEMA, "database schema not supported")                                                   \
    XX(EIO, "input/output error")                                                                  \
    XX(ECONFLICT, "conflict")                                                                      \
    XX(EPROTO, "protocol error")                                                                   \
    XX(ECONNECT, "could not connect")                                                              \
    XX(ETIMEDOUT, "timed out")                                                                     \
    XX(ETLS, "TLS error")                                                                          \
    XX(ECANCELED, "canceled")                                                                      \
    XX(EUNAUTHORIZED, "unauthorized")                                                              \
    XX(EFORBIDDEN, "forbidden")                                                                    \
    XX(EGONE, "resource version too old")                                                          \
    XX(ETOOMANY, "too many requests")                                                              \
    XX(EHTTP, "HTTP error")                                                                        \
    XX(ECONFIG, "bad configuration")                                                               \
    XX(ETOOBIG, "request too large")

enum muster_errno {
    MUSTER_OK = 0,
#define XX(name, msg) MUSTER_##name,
    MUSTER__ERRNO_FIRST = -1000,
    MUSTER_ERRNO_MAP(XX)
#undef XX
};

/* A static, human-readable message for a muster error code ("unknown error" otherwise). */
const char *muster_strerror(int err);

/* The code's symbolic name, e.g. "EINVAL" ("UNKNOWN" otherwise). */
const char *muster_errname(int err);

#endif
