/* queue_strerror and queue_errname, generated from QUEUE_ERRNO_MAP. */
#include "queue/errors.h"

/* Every code in the engine's range: a code outside it could collide with another layer's. */
#define XX(name, value, msg)                                                                       \
    _Static_assert((value) >= QUEUE_ERRNO_LO && (value) <= QUEUE_ERRNO_HI,                         \
                   "MUSTER_" #name " is outside queue's range");
QUEUE_ERRNO_MAP(XX)
#undef XX

const char *queue_strerror(int err)
{
    switch (err) {
    case MUSTER_OK:
        return "success";
#define XX(name, value, msg)                                                                       \
    case MUSTER_##name:                                                                            \
        return msg;
        QUEUE_ERRNO_MAP(XX)
#undef XX
    default:
        return "unknown error";
    }
}

const char *queue_errname(int err)
{
    switch (err) {
    case MUSTER_OK:
        return "OK";
#define XX(name, value, msg)                                                                       \
    case MUSTER_##name:                                                                            \
        return #name;
        QUEUE_ERRNO_MAP(XX)
#undef XX
    default:
        return "UNKNOWN";
    }
}
