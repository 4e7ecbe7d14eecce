/* musterctl's views of bindings and queues: the bindings table (`get bindings`, -o wide), the
 * `describe binding` and `describe queue` pages, and the check that a name on the command line
 * is a name of its kind before it becomes a path segment. Only the musterctl binary uses this
 * module (it is not part of muster_dispatcher). */
#ifndef MUSTER_DISPATCHER_CTL_DESCRIBE_H
#define MUSTER_DISPATCHER_CTL_DESCRIBE_H

#include <stddef.h>
#include <stdio.h>

struct json_object;

/* What a name on the command line names. */
enum ctl_kind { CTL_KIND_QUEUE, CTL_KIND_BINDING, CTL_KIND_CLUSTER };

/* 0 when name is a name of kind: a queue name (queue_name_valid), a binding's NAMESPACE/NAME
 * (a DNS label, then a DNS subdomain) or a cluster name (a DNS subdomain). Else MUSTER_EINVAL
 * with err saying what is wrong ("../x" would otherwise walk the server's paths). */
int ctl_name_check(enum ctl_kind kind, const char *name, char *err, size_t errcap);

/* Prints bindings (a JSON array of GET /api/v1/bindings items) as a table to f: NAMESPACE,
 * NAME, QUEUE, STATE, PRIORITY, POSITION; wide adds CLUSTERS, REQUEST and REASON. An empty array
 * prints "No resources found." to err instead. 0, or MUSTER_ENOMEM. */
int ctl_bindings_table(struct json_object *items, int wide, FILE *f, FILE *err);

/* Prints one binding (GET /api/v1/bindings/{ns}/{name}: the live row, its reason and its
 * history) as a kubectl describe page to f. */
void ctl_describe_binding(struct json_object *b, FILE *f);

/* Prints one queue (GET /api/v1/queues/{name}: spec and status) as a describe page to f. */
void ctl_describe_queue(struct json_object *q, FILE *f);

#endif
