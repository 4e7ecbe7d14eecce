/* Resource names interned to small ids, and sparse resource vectors over them
 * (cpu, memory, pods, nvidia.com/gpu, example.com/foo, ...), all in exact milli-units. */
#ifndef MUSTER_QUEUE_RESOURCE_H
#define MUSTER_QUEUE_RESOURCE_H

#include <stddef.h>
#include <stdint.h>

/* A Kubernetes qualified name: optional DNS-subdomain prefix and '/', then a name of at most
 * 63 characters. */
#define QUEUE_RES_NAME_MAX 317
/* Most distinct names one table holds: names come from outside (queue specs, workloads), and a
 * flood of made-up names must not grow every queue's arrays without bound. */
#define QUEUE_RESNAMES_MAX 1024

/* The names a tree knows, each with a dense id 0..count-1 that never changes. */
struct queue_resnames;

struct queue_resnames *queue_resnames_new(void);
void queue_resnames_free(struct queue_resnames *t);

/* Validates name[0..len) as a Kubernetes resource name and returns its id in *id, adding it
 * if new. MUSTER_EINVAL for an invalid name, MUSTER_ELIMIT past QUEUE_RESNAMES_MAX names,
 * MUSTER_ENOMEM. */
int queue_resnames_intern(struct queue_resnames *t, const char *name, size_t len, uint32_t *id);

/* The id of an existing name, or MUSTER_ENOENT. */
int queue_resnames_find(const struct queue_resnames *t, const char *name, size_t len,
                        uint32_t *id);

/* The name of id (owned by t), or NULL for an unknown id. */
const char *queue_resnames_name(const struct queue_resnames *t, uint32_t id);

uint32_t queue_resnames_count(const struct queue_resnames *t);

/* How many interns were refused with MUSTER_ELIMIT because the table was full (for the log, a
 * metric and /readyz: a full table refuses every new name from then on). */
uint64_t queue_resnames_refused(const struct queue_resnames *t);

/* A tentative intern: take a mark, intern, and if what needed the names is not kept, roll back
 * to the mark. Every name added since the mark is forgotten (their ids may be given again), so
 * nothing that kept one of those ids may outlive the rollback. A refused request thus leaves no
 * name behind in a table that is bounded. Neither call allocates. */
uint32_t queue_resnames_mark(const struct queue_resnames *t);
void queue_resnames_rollback(struct queue_resnames *t, uint32_t mark);

/* True when name[0..len) is a valid Kubernetes resource name: a qualified name whose prefix is
 * a DNS subdomain (nvidia.com/gpu, example.com/Foo), or without a prefix one of Kubernetes'
 * standard names, lower case: cpu, memory, ephemeral-storage, storage, pods, hugepages-<size>,
 * attachable-volumes-<kind>. */
int queue_resname_valid(const char *name, size_t len);

struct queue_res {
    uint32_t id;
    int64_t milli;
};

/* Sorted by id, no zero values. Operations allocate only when an id is added beyond cap, so a
 * vector reserved once is allocation-free from then on. The caller owns the struct; _close frees
 * the items. A zero-initialised struct is a valid empty vector. */
struct queue_resvec {
    uint32_t len;
    uint32_t cap;
    struct queue_res *items;
};

void queue_resvec_init(struct queue_resvec *v);
/* v becomes a vector over n items of the caller's memory at room (sorted by id, no zero values,
 * as the vector's own are): read and written in place, never freed by _close, which the caller
 * does with the memory (cap 0 marks it); the first insert beyond n moves it to an allocation of
 * its own. Many small vectors in one allocation (a pending gang's, issue 22). */
void queue_resvec_borrow(struct queue_resvec *v, struct queue_res *room, uint32_t n);
void queue_resvec_close(struct queue_resvec *v);
void queue_resvec_clear(struct queue_resvec *v);
int queue_resvec_reserve(struct queue_resvec *v, uint32_t cap);
int queue_resvec_copy(struct queue_resvec *dst, const struct queue_resvec *src);

/* Sets id to milli (0 removes it). MUSTER_ENOMEM when it had to grow and could not. */
int queue_resvec_set(struct queue_resvec *v, uint32_t id, int64_t milli);

/* Sets id to milli, keeping an explicit 0 as an item. For capability vectors only, where a
 * listed 0 is a limit ("none of this resource") and an absent resource is no limit at all. */
int queue_resvec_put(struct queue_resvec *v, uint32_t id, int64_t milli);
int64_t queue_resvec_get(const struct queue_resvec *v, uint32_t id);

/* dst += a / dst -= a, all or nothing: MUSTER_ERANGE on int64 overflow, MUSTER_ENOMEM. */
int queue_resvec_add(struct queue_resvec *dst, const struct queue_resvec *a);
int queue_resvec_sub(struct queue_resvec *dst, const struct queue_resvec *a);

/* True when every resource of a is <= the same resource of b (absent counts as 0): "a fits in
 * b". *first_over, when given, gets the first id where it does not. */
int queue_resvec_fits(const struct queue_resvec *a, const struct queue_resvec *b,
                      uint32_t *first_over);

/* Total order for sorting and equality: 0 when equal. */
int queue_resvec_cmp(const struct queue_resvec *a, const struct queue_resvec *b);
uint64_t queue_resvec_hash(const struct queue_resvec *v);

/* True when some value is negative. */
int queue_resvec_any_negative(const struct queue_resvec *v);

#endif
