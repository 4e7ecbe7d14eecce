/* Kubernetes `Status` objects: the error bodies of the API, built the way kube-apiserver does. */
#ifndef MUSTER_SIM_STATUS_H
#define MUSTER_SIM_STATUS_H

#include <json-c/json.h>

struct sim_resource;

/* A new Status object (caller owns it; NULL on allocation failure). reason is the
 * StatusReason ("NotFound", "Conflict", ...); name and r fill `details` when given. */
json_object *sim_status_new(int code, const char *reason, const char *message,
                            const struct sim_resource *r, const char *name);

/* Like sim_status_new with a printf-style message. */
json_object *sim_status_newf(int code, const char *reason, const struct sim_resource *r,
                             const char *name, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Appends a `details.causes` entry {reason, message, field} to a Status from sim_status_new. */
void sim_status_add_cause(json_object *status, const char *reason, const char *message,
                          const char *field);

/* The HTTP code of a Status (500 when absent). */
int sim_status_code(json_object *status);

#endif
