/* queue_strerror and queue_errname, generated from QUEUE_ERRNO_MAP. */
#include "queue/errors.h"

/* Every code in the engine's range: a code outside it could collide with another layer's. */
#define XX(name, value, msg)                                                                       \
    _Static_assert((value) >= QUEUE_ERRNO_LO && (value) <= QUEUE_ERRNO_HI,                         \
                   "MUSTER_" #name " is outside queue's range");
QUEUE_ERRNO_MAP(XX)
#undef XX

/* The bottom of the chain: 0, and nothing else. */
static const char *none_strerror(int err)
{
    return err == MUSTER_OK ? "success" : "unknown error";
}

static const char *none_errname(int err)
{
    return err == MUSTER_OK ? "OK" : "UNKNOWN";
}

MUSTER_ERRNO_DEFINE(QUEUE_ERRNO_MAP, queue_strerror, queue_errname, none_strerror, none_errname)
