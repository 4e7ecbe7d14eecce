/* The `scale` subresource of apps/v1 Deployments and StatefulSets, as kube-apiserver serves it
 * (pkg/registry/apps/{deployment,statefulset}/storage: ScaleREST, scaleFromDeployment,
 * scaleUpdatedObjectInfo): an autoscaling/v1 Scale read from the object, and a Scale written
 * back as an update of the object's spec.replicas. */
#ifndef MUSTER_SIM_SCALE_H
#define MUSTER_SIM_SCALE_H

#include <json-c/json.h>

struct sim_resource;

/* The autoscaling/v1 Scale of obj (a stored object of r, borrowed): name, namespace, uid,
 * resourceVersion and creationTimestamp from its metadata, spec.replicas (omitted when 0, as
 * the v1 type's omitempty does), status.replicas and status.selector (the object's
 * spec.selector as a selector string, "app=web,tier in (a,b)"). A new object; NULL on
 * allocation failure. */
json_object *sim_scale_of(const struct sim_resource *r, json_object *obj);

/* What an update of obj (borrowed) through a client's Scale (borrowed) stores: a copy of obj
 * with spec.replicas from the Scale and, when the Scale carries one, its
 * metadata.resourceVersion (so a stale one is a 409 Conflict from the store). name is the
 * object's name from the URL. Returns 0 with the object in *out (caller owns), or
 * MUSTER_EINVAL with a Status in *status (caller owns): 400 for a body that is not an
 * autoscaling/v1 Scale or names another object, 422 Invalid for negative replicas. */
int sim_scale_apply(const struct sim_resource *r, json_object *obj, json_object *scale,
                    const char *name, json_object **out, json_object **status);

#endif
