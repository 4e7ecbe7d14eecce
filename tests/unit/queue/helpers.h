/* Test helpers for the queue engine: vectors from "cpu=4,nvidia.com/gpu=8" and specs. */
#ifndef MUSTER_TESTS_QUEUE_HELPERS_H
#define MUSTER_TESTS_QUEUE_HELPERS_H

#include "queue/errors.h"
#include "queue/quantity.h"
#include "queue/resource.h"
#include "queue/mem.h"
#include "queue/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fills v from "name=qty,name=qty" using t's names; aborts the test binary on a bad literal,
 * since that is a bug in the test itself. */
static inline void vec_of(struct queue_tree *t, struct queue_resvec *v, const char *s)
{
    queue_resvec_clear(v);
    while (s && *s) {
        const char *eq = strchr(s, '=');
        const char *end = strchr(s, ',');
        if (!end)
            end = s + strlen(s);
        uint32_t id;
        struct queue_qty q;
        if (!eq || eq > end ||
            queue_resnames_intern(queue_tree_resnames(t), s, (size_t)(eq - s), &id) ||
            queue_qty_parse(eq + 1, (size_t)(end - eq - 1), &q) ||
            queue_resvec_set(v, id, q.milli)) {
            fprintf(stderr, "bad vector literal: %s\n", s);
            abort();
        }
        s = *end ? end + 1 : end;
    }
}

struct spec_buf {
    struct queue_spec spec;
};

static inline void spec_init(struct queue_spec *s, const char *name, const char *parent)
{
    memset(s, 0, sizeof(*s));
    s->name = name;
    s->parent = parent;
    s->weight = 1;
}

static inline void spec_close(struct queue_spec *s)
{
    queue_resvec_close(&s->guarantee);
    queue_resvec_close(&s->deserved);
    queue_resvec_close(&s->capability);
}

/* Creates queue name under parent with the three vectors as literals ("" for none). Returns the
 * engine's code; err gets the message. */
static inline int mkq(struct queue_tree *t, const char *name, const char *parent, const char *g,
                      const char *d, const char *c)
{
    struct queue_spec s;
    struct queue_error err;
    spec_init(&s, name, parent);
    vec_of(t, &s.guarantee, g);
    vec_of(t, &s.deserved, d);
    vec_of(t, &s.capability, c);
    int rc = queue_tree_create(t, &s, &err);
    if (rc && getenv("MUSTER_TEST_VERBOSE"))
        fprintf(stderr, "mkq %s: %s: %s\n", name, err.field, err.msg);
    spec_close(&s);
    return rc;
}

/* Adds a pending entry with a request literal. */
static inline struct queue_entry *add(struct queue_tree *t, uint64_t id, const char *queue,
                                      int32_t prio, int64_t created, const char *req)
{
    struct queue_resvec v = {0};
    struct queue_entry *e = NULL;
    struct queue_entry_spec es = {id, queue, prio, created, &v};
    vec_of(t, &v, req);
    int rc = queue_entry_add(t, &es, &e, NULL);
    queue_resvec_close(&v);
    return rc ? NULL : e;
}

static inline int64_t use_of(struct queue_tree *t, const char *queue, const char *res)
{
    struct queue_status st;
    uint32_t id;
    if (queue_resnames_find(queue_tree_resnames(t), res, strlen(res), &id))
        return 0;
    if (queue_node_status(t, queue_tree_find(t, queue), &st))
        return -1;
    int64_t v = queue_resvec_get(&st.allocated, id);
    queue_status_close(&st);
    return v;
}

#endif
