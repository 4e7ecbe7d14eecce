/* Resource maps as JSON ({"cpu":"4","nvidia.com/gpu":"8"}) to and from queue resource vectors,
 * validating every name and quantity that comes from outside. */
#ifndef MUSTER_KUBE_RESOURCES_H
#define MUSTER_KUBE_RESOURCES_H

#include "queue/resource.h"

#include <json-c/json.h>
#include <stddef.h>

/* Fills out from a JSON object whose keys are resource names and values quantity strings (or
 * JSON integers, which Kubernetes also accepts). Names are interned in names. Negative values
 * are refused. On failure out is cleared and err gets "<what>.<name>: <why>" (what = "" leaves
 * the prefix out). MUSTER_EINVAL, MUSTER_ERANGE (quantity overflows), MUSTER_ELIMIT (too many
 * resources), MUSTER_ENOMEM. */
int kube_resvec_parse(struct queue_resnames *names, json_object *obj, const char *what,
                      struct queue_resvec *out, char *err, size_t errcap);

/* The same from JSON text. */
int kube_resvec_parse_text(struct queue_resnames *names, const char *text, const char *what,
                           struct queue_resvec *out, char *err, size_t errcap);

/* The same for a capability map: a listed "0" stays in out as a limit of zero (absent means
 * unlimited there, so dropping it would lift the limit). */
int kube_resvec_parse_limits(struct queue_resnames *names, json_object *obj, const char *what,
                             struct queue_resvec *out, char *err, size_t errcap);
int kube_resvec_parse_limits_text(struct queue_resnames *names, const char *text, const char *what,
                                  struct queue_resvec *out, char *err, size_t errcap);

/* A new JSON object for v, quantities in canonical form (NULL on allocation failure). */
json_object *kube_resvec_json(const struct queue_resnames *names, const struct queue_resvec *v);

struct kube_jw;
/* The same object written as text (jsonwrite.h): the bytes json-c prints for kube_resvec_json's
 * answer with w's slash escaping. */
void kube_resvec_write(struct kube_jw *w, const struct queue_resnames *names,
                       const struct queue_resvec *v);

#endif
