/* Status objects with the exact shape kube-apiserver sends (apimachinery metav1.Status). */
#include "cluster-adapters/sim/status.h"

#include "cluster-adapters/sim/resources.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

json_object *sim_status_new(int code, const char *reason, const char *message,
                            const struct sim_resource *r, const char *name)
{
    json_object *st = json_object_new_object();
    if (!st)
        return NULL;
    json_object_object_add(st, "kind", json_object_new_string("Status"));
    json_object_object_add(st, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(st, "metadata", json_object_new_object());
    json_object_object_add(st, "status", json_object_new_string("Failure"));
    json_object_object_add(st, "message", json_object_new_string(message));
    json_object_object_add(st, "reason", json_object_new_string(reason));
    /* kube-apiserver always sends details for object errors and omits it otherwise. */
    if (r || name) {
        json_object *d = json_object_new_object();
        if (name)
            json_object_object_add(d, "name", json_object_new_string(name));
        if (r) {
            if (r->group[0])
                json_object_object_add(d, "group", json_object_new_string(r->group));
            /* NotFound/AlreadyExists/Conflict name the resource; Invalid names the kind. */
            const char *k = strcmp(reason, "Invalid") == 0 ? r->kind : r->plural;
            json_object_object_add(d, "kind", json_object_new_string(k));
        }
        json_object_object_add(st, "details", d);
    }
    json_object_object_add(st, "code", json_object_new_int(code));
    return st;
}

json_object *sim_status_newf(int code, const char *reason, const struct sim_resource *r,
                             const char *name, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return sim_status_new(code, reason, msg, r, name);
}

void sim_status_add_cause(json_object *status, const char *reason, const char *message,
                          const char *field)
{
    json_object *d = NULL;
    if (!json_object_object_get_ex(status, "details", &d)) {
        d = json_object_new_object();
        json_object_object_add(status, "details", d);
    }
    json_object *causes = NULL;
    if (!json_object_object_get_ex(d, "causes", &causes)) {
        causes = json_object_new_array();
        json_object_object_add(d, "causes", causes);
    }
    json_object *c = json_object_new_object();
    json_object_object_add(c, "reason", json_object_new_string(reason));
    json_object_object_add(c, "message", json_object_new_string(message));
    if (field && field[0])
        json_object_object_add(c, "field", json_object_new_string(field));
    json_object_array_add(causes, c);
}

int sim_status_code(json_object *status)
{
    json_object *c = NULL;
    if (status && json_object_object_get_ex(status, "code", &c))
        return json_object_get_int(c);
    return 500;
}
