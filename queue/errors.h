/* The queue engine's error codes: one table, negative values, and queue_strerror() generated
 * from it. Each layer owns the codes it returns (kube/errors.h: the hub protocol's; dispatcher/
 * errors.h: the store's, and muster_strerror, which knows every code). */
#ifndef MUSTER_QUEUE_ERRORS_H
#define MUSTER_QUEUE_ERRORS_H

/* Each layer's codes lie in a range of its own, so a layer adds codes without asking another:
 * queue [-1000, -901], cluster-adapters/kube [-1100, -1001], dispatcher [-1200, -1101]. Nothing
 * stores or sends the numbers (only names and messages leave the process); a retired value is
 * not reused all the same. */
#define QUEUE_ERRNO_LO (-1000)
#define QUEUE_ERRNO_HI (-901)

/* XX(name, value, message). Functions return 0 on success or one of these on failure.
 * -989 was ECLOSED, which nothing returned. */
#define QUEUE_ERRNO_MAP(XX)                                                                        \
    XX(EINVAL, -999, "invalid argument")                                                           \
    XX(ERANGE, -998, "value out of range")                                                         \
    XX(ENOMEM, -997, "out of memory")                                                              \
    XX(ENOENT, -996, "not found")                                                                  \
    XX(EEXIST, -995, "already exists")                                                             \
    XX(ENOSPC, -994, "buffer too small")                                                           \
    XX(ENOTEMPTY, -993, "not empty")                                                               \
    XX(EBUSY, -992, "in use")                                                                      \
    XX(ECYCLE, -991, "would create a cycle")                                                       \
    XX(ELIMIT, -990, "over a limit")                                                               \
    XX(ENOTLEAF, -988, "not a leaf queue")

enum queue_errno {
    MUSTER_OK = 0,
#define XX(name, value, msg) MUSTER_##name = (value),
    QUEUE_ERRNO_MAP(XX)
#undef XX
};

/* For each layer's errors.c: MUSTER_ERRNO_DEFINE(MAP, strerror_fn, errname_fn, below_strerror,
 * below_errname) defines strerror_fn and errname_fn: the message and the name of MAP's codes,
 * and for any other value what the layer below answers. */
#define MUSTER__ERR_CASE_MSG(name, value, msg)                                                     \
    case MUSTER_##name:                                                                            \
        return msg;
#define MUSTER__ERR_CASE_NAME(name, value, msg)                                                    \
    case MUSTER_##name:                                                                            \
        return #name;
#define MUSTER_ERRNO_DEFINE(MAP, strerror_fn, errname_fn, below_strerror, below_errname)           \
    const char *strerror_fn(int err)                                                               \
    {                                                                                              \
        switch (err) {                                                                             \
            MAP(MUSTER__ERR_CASE_MSG)                                                              \
        default:                                                                                   \
            return below_strerror(err);                                                            \
        }                                                                                          \
    }                                                                                              \
    const char *errname_fn(int err)                                                                \
    {                                                                                              \
        switch (err) {                                                                             \
            MAP(MUSTER__ERR_CASE_NAME)                                                             \
        default:                                                                                   \
            return below_errname(err);                                                             \
        }                                                                                          \
    }

/* A static, human-readable message for 0 or a queue code; "unknown error" for any other value
 * (kube_strerror and muster_strerror know the codes of the layers above). */
const char *queue_strerror(int err);

/* The code's symbolic name, e.g. "EINVAL"; "OK" for 0, "UNKNOWN" for any other value. */
const char *queue_errname(int err);

#endif
