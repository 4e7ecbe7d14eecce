/* Shared scaffolding for the tests of the simulated Karmada controllers: a store and the
 * controllers from a scenario, a fixed clock, and short ways to read and write objects. */
#ifndef MUSTER_TESTS_SIM_KARMADA_FIXTURE_H
#define MUSTER_TESTS_SIM_KARMADA_FIXTURE_H

#include "cluster-adapters/sim/karmada.h"
#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/scenario.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"
#include "testing.h"

#include <string.h>

static time_t fx_clock = 1790000000;
static int64_t fx_clock_ms = 1000;

static inline time_t fx_now(void)
{
    return fx_clock;
}

static inline int64_t fx_now_ms(void)
{
    return fx_clock_ms;
}

struct fx {
    struct sim_store *s;
    struct sim_karmada *k;
};

static inline const struct sim_resource *fx_res(const char *group, const char *version,
                                                const char *plural)
{
    return sim_resource_find(group, strlen(group), version, strlen(version), plural,
                             strlen(plural));
}

#define FX_RB fx_res("work.karmada.io", "v1alpha2", "resourcebindings")
#define FX_WORK fx_res("work.karmada.io", "v1alpha1", "works")
#define FX_CLUSTER fx_res("cluster.karmada.io", "v1alpha1", "clusters")
#define FX_OP fx_res("policy.karmada.io", "v1alpha1", "overridepolicies")
#define FX_DEPLOY fx_res("apps", "v1", "deployments")
#define FX_JOB fx_res("batch", "v1", "jobs")
#define FX_VCJOB fx_res("batch.volcano.sh", "v1alpha1", "jobs")

/* The store and controllers of scenario yaml with opts (NULL: defaults). */
static inline void fx_start(struct fx *f, const char *yaml, const struct sim_karmada_options *opts)
{
    memset(f, 0, sizeof(*f));
    CU_ASSERT_EQUAL_FATAL(sim_store_new(10000, &f->s), 0);
    json_object *scn = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(sim_scenario_parse("t.yaml", yaml, strlen(yaml), &scn, err, sizeof(err)),
                          0);
    int rc = sim_karmada_new(f->s, scn, fx_now, &f->k, err, sizeof(err));
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_object_put(scn);
    if (opts)
        sim_karmada_set_options(f->k, opts);
}

static inline void fx_stop(struct fx *f)
{
    sim_karmada_free(f->k);
    sim_store_free(f->s);
}

/* Cuts s at the first sep and returns what follows (NULL at the end): strtok without state. */
static inline char *fx_next_seg(char *s, char sep)
{
    char *p = strchr(s, sep);
    if (!p)
        return NULL;
    *p = '\0';
    return p + 1;
}

/* The JSON text at a '|'-separated path ("" when absent; strings unquoted). */
static inline const char *fx_at(json_object *o, const char *path)
{
    static char out[4096];
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", path);
    json_object *cur = o;
    char *rest = NULL;
    for (char *seg = buf; seg && cur; seg = rest) {
        rest = fx_next_seg(seg, '|');
        json_object *next = NULL;
        if (json_object_is_type(cur, json_type_array))
            next = json_object_array_get_idx(cur, (size_t)strtol(seg, NULL, 10));
        else if (!json_object_object_get_ex(cur, seg, &next))
            next = NULL;
        cur = next;
    }
    if (!cur)
        return "";
    snprintf(out, sizeof(out), "%s",
             json_object_is_type(cur, json_type_string)
                 ? json_object_get_string(cur)
                 : json_object_to_json_string_ext(cur, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE));
    return out;
}

static inline json_object *fx_get(struct fx *f, const struct sim_resource *r, const char *ns,
                                  const char *name)
{
    json_object *o = NULL;
    if (sim_store_get(f->s, r, ns, name, &o, NULL) < 0)
        return NULL;
    return o;
}

/* fx_at on a fresh read of ns/name (copied out: the object is released). */
static inline const char *fx_field(struct fx *f, const struct sim_resource *r, const char *ns,
                                   const char *name, const char *path)
{
    json_object *o = fx_get(f, r, ns, name);
    const char *v = fx_at(o, path);
    json_object_put(o);
    return v;
}

static inline int fx_create(struct fx *f, const struct sim_resource *r, const char *ns,
                            const char *json)
{
    json_object *o = json_tokener_parse(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    int rc = sim_store_create(f->s, r, ns, o, fx_now(), 0, NULL, NULL);
    json_object_put(o);
    return rc;
}

/* A client's merge patch of ns/name (read, merge, write back). */
static inline int fx_patch(struct fx *f, const struct sim_resource *r, const char *ns,
                           const char *name, const char *merge)
{
    json_object *cur = fx_get(f, r, ns, name), *out = NULL;
    json_object *p = json_tokener_parse(merge);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    if (!cur) {
        json_object_put(p);
        return MUSTER_ENOENT;
    }
    int rc = sim_merge_patch(cur, p, &out);
    if (rc == 0)
        rc = sim_store_update(f->s, r, ns, name, out, 0, NULL, NULL);
    json_object_put(out);
    json_object_put(p);
    json_object_put(cur);
    return rc;
}

/* The same on the /status subresource. */
static inline int fx_patch_status(struct fx *f, const struct sim_resource *r, const char *ns,
                                  const char *name, const char *merge)
{
    json_object *cur = fx_get(f, r, ns, name), *out = NULL;
    json_object *p = json_tokener_parse(merge);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    int rc = cur ? sim_merge_patch(cur, p, &out) : MUSTER_ENOENT;
    if (rc == 0)
        rc = sim_store_update(f->s, r, ns, name, out, SIM_WRITE_STATUS, NULL, NULL);
    json_object_put(out);
    json_object_put(p);
    json_object_put(cur);
    return rc;
}

static inline int fx_count(struct fx *f, const struct sim_resource *r, const char *ns)
{
    json_object *list = NULL;
    sim_store_list(f->s, r, ns, NULL, &list, NULL);
    int n = (int)json_object_array_length(json_object_object_get(list, "items"));
    json_object_put(list);
    return n;
}

/* The name of the first Work in ns whose name starts with prefix ("" when none). */
static inline const char *fx_work_named(struct fx *f, const char *ns, const char *prefix)
{
    static char out[256];
    json_object *list = NULL;
    out[0] = '\0';
    sim_store_list(f->s, FX_WORK, ns, NULL, &list, NULL);
    json_object *items = json_object_object_get(list, "items");
    for (size_t i = 0; i < json_object_array_length(items) && !out[0]; i++) {
        const char *n = sim_meta_str(json_object_array_get_idx(items, i), "name");
        if (n && strncmp(n, prefix, strlen(prefix)) == 0)
            snprintf(out, sizeof(out), "%s", n);
    }
    json_object_put(list);
    return out;
}

/* The member object of cluster with that kind and name, as a new reference, or NULL. */
static inline json_object *fx_member(struct fx *f, const char *cluster, const char *kind,
                                     const char *name)
{
    json_object *objs = NULL, *hit = NULL;
    if (sim_karmada_member_objects(f->k, cluster, &objs) < 0)
        return NULL;
    for (size_t i = 0; i < json_object_array_length(objs) && !hit; i++) {
        json_object *o = json_object_array_get_idx(objs, i);
        if (strcmp(fx_at(o, "kind"), kind) == 0 && strcmp(fx_at(o, "metadata|name"), name) == 0)
            hit = json_object_get(o);
    }
    json_object_put(objs);
    return hit;
}

/* A PodGroup Work as muster writes it (contract-15 item 2): Karmada's CreateOrUpdateWork
 * shape, muster's label instead of the permanent id. extra_labels is JSON members for the
 * Work's labels (e.g. the permanent id, to reproduce the old mistake) or "". */
static inline void fx_podgroup_work(char *buf, size_t cap, const char *work, const char *cluster,
                                    const char *group, int min_member, const char *extra_labels,
                                    int finalizer, int managed)
{
    snprintf(buf, cap,
             "{\"metadata\":{\"name\":\"%s\"%s,\"labels\":{\"app.kubernetes.io/managed-by\":"
             "\"muster\"%s%s}},\"spec\":{\"workload\":{\"manifests\":[{\"apiVersion\":"
             "\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\",\"metadata\":{\"name\":"
             "\"%s\",\"namespace\":\"team\",\"labels\":{%s},\"annotations\":{"
             "\"work.karmada.io/name\":\"%s\",\"work.karmada.io/namespace\":\"karmada-es-%s\"}},"
             "\"spec\":{\"minMember\":%d,\"minResources\":{\"cpu\":\"1\"}}}]}}}",
             work, finalizer ? ",\"finalizers\":[\"karmada.io/execution-controller\"]" : "",
             extra_labels[0] ? "," : "", extra_labels, group,
             managed ? "\"karmada.io/managed\":\"true\"" : "", work, cluster, min_member);
}

#endif
