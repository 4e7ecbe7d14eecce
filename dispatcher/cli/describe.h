/* musterctl's views of bindings and queues: the bindings table (`get bindings`, -o wide), the
 * `describe binding` and `describe queue` pages, and the check that a name on the command line
 * is a name of its kind before it becomes a path segment. Only the musterctl binary uses this
 * module (it is not part of muster_dispatcher). */
#ifndef MUSTER_DISPATCHER_CLI_DESCRIBE_H
#define MUSTER_DISPATCHER_CLI_DESCRIBE_H

#include <stddef.h>
#include <stdio.h>

struct json_object;

/* What a name on the command line names. */
enum cli_kind { CLI_KIND_QUEUE, CLI_KIND_BINDING, CLI_KIND_CLUSTER };

/* 0 when name is a name of kind: a queue name (queue_name_valid), a binding's NAMESPACE/NAME
 * (a DNS label, then a DNS subdomain) or a cluster name (a DNS subdomain). Else MUSTER_EINVAL
 * with err saying what is wrong ("../x" would otherwise walk the server's paths). */
int cli_name_check(enum cli_kind kind, const char *name, char *err, size_t errcap);

/* Prints bindings (a JSON array of GET /api/v1/bindings items) as a table to f: NAMESPACE,
 * NAME, QUEUE, STATE, PRIORITY, POSITION; wide adds CLUSTERS, REQUEST and REASON. An empty array
 * prints "No resources found." to err instead. 0, or MUSTER_ENOMEM. */
int cli_bindings_table(struct json_object *items, int wide, FILE *f, FILE *err);

/* Prints one binding (GET /api/v1/bindings/{ns}/{name}: the live row, its reason and its
 * history) as a kubectl describe page to f. */
void cli_describe_binding(struct json_object *b, FILE *f);

/* Prints one queue (GET /api/v1/queues/{name}: spec and status) as a describe page to f. */
void cli_describe_queue(struct json_object *q, FILE *f);

/* The RECLAIM cell of a queue: "borrows" when its status.borrowed names anything, "lends" when
 * its status.lent does, "borrows,lends" for both, "-" for neither (or no status). */
const char *cli_queue_reclaim_mark(struct json_object *q);

/* A queue's tenancy as -o wide and describe print it (NULL when the queue sets none): its
 * namespaceSelector as kubectl prints a selector ("org=research,tier in (a,b),!x"; "<all>" for
 * {}), its namespaceLimits ("gangs=2,nvidia.com/gpu=8") and its localQueues ("lab/gpu,..."). */
const char *cli_queue_selector_text(struct json_object *q, char *buf, size_t cap);
const char *cli_queue_ns_limits_text(struct json_object *q, char *buf, size_t cap);
const char *cli_queue_owner_limits_text(struct json_object *q, char *buf, size_t cap);
const char *cli_queue_local_queues_text(struct json_object *q, char *buf, size_t cap);

/* The fields of a queue's preemption object, in the order the API documents them. */
enum cli_preempt_field {
    CLI_PREEMPT_WITHIN_QUEUE,
    CLI_PREEMPT_MIN_RUNTIME,
    CLI_PREEMPT_MAX_PER_MINUTE,
    CLI_PREEMPT_COOLDOWN,
};

/* One preemption field of q as a cell: the server's text, or the default when the document
 * lacks it ("Never", "0s", "0", "0s"). The pointer is borrowed from q (or static). */
const char *cli_queue_preemption(struct json_object *q, enum cli_preempt_field which);

/* status.preemptions as "MADE/SUFFERED" into buf ("0/0" without it). */
const char *cli_queue_preempted(struct json_object *q, char *buf, size_t cap);

#endif
