/* The dispatch commit protocol's objects: names, the PodGroup Works, the OverridePolicy, and
 * reading what Karmada rendered of them (see gang.h and docs/gangobj.md). */
#include "cluster-adapters/karmada/gang.h"
#include "cluster-adapters/kube/json.h"

#include "cluster-adapters/karmada/gang_dialects.h"
#include "cluster-adapters/karmada/gang_int.h"
#include "cluster-adapters/karmada/gang_nettopo.h"
#include "cluster-adapters/karmada/gang_split.h"
#include "cluster-adapters/karmada/paths.h"
#include "cluster-adapters/kube/resources.h"
#include "queue/errors.h"
#include "queue/hash.h"

#include <inttypes.h>
#include <json-c/json_pointer.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_DIGITS 10 /* 40 bits of the name's hash: collisions need ~10^6 long look-alikes */
#define WORK_NAMESPACE_PREFIX KARMADA_PATH_EXECUTION_PREFIX
#define DNS_LABEL_MAX 63
#define DEFAULT_POD_SCHEDULER "volcano"
/* shares[i]'s dialect: Volcano when the caller gave none */
#define DIALECT(in, i) ((in)->dialects ? (in)->dialects[i] : KARMADA_GANG_DIALECT_VOLCANO)
#define WL_VERSION(in, i) ((in)->wl_versions ? (in)->wl_versions[i] : KARMADA_GANG_WL_V1BETA1)

/* ---- reading ---- */

/* A non-empty string at k, or NULL. */
static const char *get_str(json_object *o, const char *k)
{
    const char *v = kube_json_str(o, k);
    return v && *v ? v : NULL;
}

/* ---- building: every helper takes a sticky failure flag, so a builder is a straight list of
 * adds and one check at the end; each value is linked into its parent as soon as it exists, so
 * releasing the root on failure releases everything. ---- */

/* Returns root, or NULL after releasing it when anything failed. */
static json_object *done(json_object *root, int bad)
{
    if (bad || !root) {
        json_object_put(root);
        return NULL;
    }
    return root;
}

/* ---- names ---- */

/* Writes the concatenation of the n parts, cut to max characters as gang.h says. */
static int make_name(char *buf, size_t cap, size_t max, size_t n, const char *const *parts)
{
    size_t len = 0;
    uint64_t h = QUEUE_HASH_FNV64_BASIS;
    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        len += strlen(parts[i]);
        h = queue_hash_fnv1a64_str(h, parts[i]);
    }
    size_t keep = len <= max ? len : max - 1 - HASH_DIGITS;
    size_t out = len <= max ? len : max;
    if (out + 1 > cap)
        return MUSTER_ENOSPC;
    size_t at = 0;
    for (size_t i = 0; i < n && at < keep; i++) {
        size_t l = strlen(parts[i]);
        if (l > keep - at)
            l = keep - at;
        memcpy(buf + at, parts[i], l);
        at += l;
    }
    if (len > max) {
        /* A DNS subdomain's labels end in an alphanumeric: "abc.-hash" would be refused. */
        while (at > 0 && (buf[at - 1] == '-' || buf[at - 1] == '.'))
            at--;
        snprintf(buf + at, cap - at, "-%0*" PRIx64, HASH_DIGITS,
                 h & ((UINT64_C(1) << (4 * HASH_DIGITS)) - 1));
        return 0;
    }
    buf[at] = '\0';
    return 0;
}

int karmada_gang_podgroup_name(const char *rb_name, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    if (!rb_name || !*rb_name)
        return MUSTER_EINVAL;
    const char *parts[] = {"muster-", rb_name};
    return make_name(buf, cap, KARMADA_GANG_NAME_MAX, 2, parts);
}

int karmada_gang_policy_name(const char *rb_name, char *buf, size_t cap)
{
    return karmada_gang_podgroup_name(rb_name, buf, cap);
}

int karmada_gang_work_name(const char *rb_namespace, const char *rb_name, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    if (!rb_name || !*rb_name || !rb_namespace || !*rb_namespace)
        return MUSTER_EINVAL;
    const char *parts[] = {"muster-pg-", rb_namespace, ".", rb_name};
    return make_name(buf, cap, KARMADA_GANG_NAME_MAX, 4, parts);
}

/* ---- input ---- */

int karmada_gang_needs_objects(const struct karmada_workload *w)
{
    return w && (w->kind == KARMADA_WORKLOAD_KIND_DEPLOYMENT ||
                 w->kind == KARMADA_WORKLOAD_KIND_STATEFULSET ||
                 w->kind == KARMADA_WORKLOAD_KIND_JOB || w->kind == KARMADA_WORKLOAD_KIND_POD);
}

int karmada__why_not(char *why, size_t cap, const char *fmt, ...)
{
    if (why && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return MUSTER_EINVAL;
}

/* The object under the template whose metadata carries the pod annotations, and the pointer to
 * it: the pod template for Deployment, StatefulSet and Job, the template itself for a Pod. */
static json_object *pod_of(const struct karmada_gang_input *in, const char **base)
{
    if (in->w->kind == KARMADA_WORKLOAD_KIND_POD) {
        *base = "";
        return in->tmpl;
    }
    *base = "/spec/template";
    return kube_json_get(kube_json_get(in->tmpl, "spec"), "template");
}

static int check_shares(const struct karmada_gang_input *in, char *why, size_t cap)
{
    if (!in->shares || in->nshares == 0)
        return karmada__why_not(why, cap, "no target cluster");
    int64_t sum = 0;
    for (uint32_t i = 0; i < in->nshares; i++) {
        const struct karmada_gang_share *s = &in->shares[i];
        if (!s->cluster || !*s->cluster)
            return karmada__why_not(why, cap, "share %" PRIu32 ": no cluster name", i);
        if (strlen(WORK_NAMESPACE_PREFIX) + strlen(s->cluster) > DNS_LABEL_MAX)
            return karmada__why_not(why, cap,
                                    "cluster %.80s: karmada-es-<cluster> would pass 63 characters",
                                    s->cluster);
        if (s->replicas <= 0)
            return karmada__why_not(why, cap, "cluster %s: share of %" PRId32 " replicas",
                                    s->cluster, s->replicas);
        sum += s->replicas;
    }
    if (sum != in->w->replicas)
        return karmada__why_not(why, cap,
                                "the shares add up to %" PRId64 " replicas, the gang has %" PRId32,
                                sum, in->w->replicas);
    return 0;
}

int karmada_gang_input_check(const struct karmada_gang_input *in, char *why, size_t cap)
{
    if (why && cap)
        why[0] = '\0';
    if (!in || !in->rb || !in->w || !in->names)
        return karmada__why_not(why, cap, "rb, workload and resource names are required");
    if (in->w->reason != KARMADA_WORKLOAD_OK || in->w->kind == KARMADA_WORKLOAD_KIND_NONE)
        return karmada__why_not(why, cap, "the workload was not read successfully");
    json_object *meta = kube_json_get(in->rb, "metadata"),
                *res = kube_json_get(kube_json_get(in->rb, "spec"), "resource");
    if (!get_str(meta, "name") || !get_str(meta, "namespace"))
        return karmada__why_not(why, cap,
                                "the ResourceBinding has no metadata.name or metadata.namespace");
    if (!get_str(res, "apiVersion") || !get_str(res, "kind") || !get_str(res, "name") ||
        !get_str(res, "namespace"))
        return karmada__why_not(why, cap,
                                "spec.resource lacks apiVersion, kind, namespace or name");
    if (!get_str(meta, "uid"))
        return karmada__why_not(why, cap,
                                "the ResourceBinding has no metadata.uid to label muster's "
                                "objects with");
    if (!in->w->permanent_id[0])
        return karmada__why_not(
            why, cap,
            "no resourcebinding.karmada.io/permanent-id label yet: muster could not "
            "find the Works Karmada renders for it");
    if (in->split) /* issue 20: a kind split by groups has its own rules */
        return karmada_gang_split_check(in, why, cap);
    int rc = check_shares(in, why, cap);
    if (rc || !karmada_gang_needs_objects(in->w))
        return rc;
    if (in->w->ncomponents != 1)
        return karmada__why_not(why, cap, "%" PRIu32 " pod templates where one was expected",
                                in->w->ncomponents);
    const char *base;
    json_object *pod = pod_of(in, &base);
    if (!json_object_is_type(in->tmpl, json_type_object) ||
        !json_object_is_type(kube_json_get(pod, "spec"), json_type_object))
        return karmada__why_not(why, cap, "the template has no pod spec at %s/spec", base);
    return 0;
}

/* ---- objects ---- */

/* A new apiVersion/kind object named name in ns, with the labels and annotation every object
 * muster creates for an RB carries; *meta points at its metadata. On failure *bad is set and
 * whatever was built is still returned for the caller's one release. */
static json_object *new_marked(const char *api_version, const char *kind, const char *name,
                               const char *ns, const struct karmada_gang_input *in,
                               json_object **meta, int *bad)
{
    json_object *o = json_object_new_object();
    kube_json_add_str(o, "apiVersion", api_version, bad);
    kube_json_add_str(o, "kind", kind, bad);
    *meta = kube_json_add_obj(o, "metadata", bad);
    kube_json_add_str(*meta, "name", name, bad);
    kube_json_add_str(*meta, "namespace", ns, bad);
    json_object *rbm = kube_json_get(in->rb, "metadata");
    json_object *labels = kube_json_add_obj(*meta, "labels", bad);
    kube_json_add_str(labels, KARMADA_GANG_MANAGED_BY_LABEL, KARMADA_GANG_MANAGED_BY_VALUE, bad);
    /* muster's own key, never Karmada's permanent-id: RB status aggregation aborts on any Work
     * with that label that does not hold the RB's own resource (docs/gangobj.md). */
    kube_json_add_str(labels, KARMADA_GANG_BINDING_UID_LABEL, get_str(rbm, "uid"), bad);
    char key[2 * KARMADA_GANG_NAME_MAX + 2];
    snprintf(key, sizeof(key), "%s/%s", get_str(rbm, "namespace"), get_str(rbm, "name"));
    kube_json_add_str(kube_json_add_obj(*meta, "annotations", bad), KARMADA_GANG_BINDING_ANNOTATION,
                      key, bad);
    return o;
}

/* ceil(share x min_member / replicas), within [1, share]: if every cluster's group holds its
 * part, at least min_member pods run in all, which floor would not promise. A group-size gang's
 * in whole groups. */
static int32_t share_min_member(const struct karmada_workload *w, int32_t share)
{
    if (w->min_member >= w->replicas || w->replicas <= 0)
        return share;
    int64_t g = w->group_size;
    if (g > 1 && share % g == 0 && w->replicas % g == 0) {
        /* a gang of groups (issue 20): the same in whole groups (the share's groups x the
         * groups min-member needs / the gang's, rounded up), so no member starts a group cut */
        int64_t need = (w->min_member + g - 1) / g, groups = w->replicas / g;
        int64_t m = ((share / g) * need + groups - 1) / groups * g;
        return m < g ? (int32_t)g : (int32_t)m;
    }
    int64_t m = ((int64_t)share * w->min_member + w->replicas - 1) / w->replicas;
    return m < 1 ? 1 : (int32_t)m;
}

/* share x the per-replica request as a quantity map, or NULL (overflow or ENOMEM). */
static json_object *share_resources(const struct karmada_gang_input *in, int32_t share)
{
    const struct queue_resvec *req = &in->w->components[0].request;
    struct queue_resvec v;
    queue_resvec_init(&v);
    json_object *out = NULL;
    int ok = queue_resvec_reserve(&v, req->len) == 0;
    for (uint32_t k = 0; ok && k < req->len; k++) {
        int64_t milli;
        ok = !__builtin_mul_overflow(req->items[k].milli, (int64_t)share, &milli) &&
             queue_resvec_set(&v, req->items[k].id, milli) == 0;
    }
    if (ok)
        out = kube_resvec_json(in->names, &v);
    queue_resvec_close(&v);
    return out;
}

int karmada_gang_share_has_work(const struct karmada_gang_input *in, uint32_t i)
{
    return in && in->shares && i < in->nshares && karmada_gang_dialect_has_work(DIALECT(in, i));
}

json_object *karmada_gang_podgroup_work(const struct karmada_gang_input *in, uint32_t i)
{
    if (in && in->split)
        return karmada_gang_split_podgroup_work(in, i);
    if (karmada_gang_input_check(in, NULL, 0) || !karmada_gang_needs_objects(in->w) ||
        i >= in->nshares || !karmada_gang_share_has_work(in, i))
        return NULL;
    const struct karmada_gang_share *s = &in->shares[i];
    int cosched = DIALECT(in, i) == KARMADA_GANG_DIALECT_COSCHEDULING;
    int wl = DIALECT(in, i) == KARMADA_GANG_DIALECT_WORKLOAD_API;
    json_object *rbm = kube_json_get(in->rb, "metadata");
    char pg[KARMADA_GANG_NAME_MAX + 1], work[KARMADA_GANG_NAME_MAX + 1], ns[DNS_LABEL_MAX + 1];
    if (karmada_gang_podgroup_name(in->group_rb_name ? in->group_rb_name : get_str(rbm, "name"), pg,
                                   sizeof(pg)) ||
        karmada_gang_work_name(get_str(rbm, "namespace"), get_str(rbm, "name"), work, sizeof(work)))
        return NULL;
    snprintf(ns, sizeof(ns), WORK_NAMESPACE_PREFIX "%s", s->cluster);

    int bad = 0;
    json_object *meta;
    json_object *root = new_marked("work.karmada.io/v1alpha1", "Work", work, ns, in, &meta, &bad);
    /* Without the execution controller's finalizer Karmada never deletes the member PodGroup
     * (pkg/controllers/execution/execution_controller.go). */
    kube_json_push(kube_json_add(meta, "finalizers", json_object_new_array(), &bad),
                   json_object_new_string(KARMADA_GANG_WORK_FINALIZER), &bad);
    /* No suspendDispatching: the PodGroup must be in the member before any pod of the gang. */
    json_object *spec = kube_json_add_obj(root, "spec", &bad);
    json_object *list = kube_json_add(kube_json_add_obj(spec, "workload", &bad), "manifests",
                                      json_object_new_array(), &bad);

    json_object *group = kube_json_push(
        list,
        new_marked(cosched ? "scheduling.x-k8s.io/v1alpha1"
                   : wl    ? karmada_gang_wl_api_version(WL_VERSION(in, i))
                           : "scheduling.volcano.sh/v1beta1",
                   "PodGroup", pg,
                   get_str(kube_json_get(kube_json_get(in->rb, "spec"), "resource"), "namespace"),
                   in, &meta, &bad),
        &bad);
    /* As Karmada's CreateOrUpdateWork marks a manifest (pkg/controllers/ctrlutil/work.go): the
     * execution controller updates or deletes only member objects labelled managed
     * (pkg/util/objectwatcher/objectwatcher.go). */
    kube_json_add_str(kube_json_get(meta, "labels"), KARMADA_MANAGED_LABEL, "true", &bad);
    json_object *ann = kube_json_get(meta, "annotations");
    kube_json_add_str(ann, KARMADA_GANG_WORK_NAME_ANNOTATION, work, &bad);
    kube_json_add_str(ann, KARMADA_GANG_WORK_NAMESPACE_ANNOTATION, ns, &bad);
    json_object *gs = kube_json_add_obj(group, "spec", &bad);
    if (wl) {
        /* PodGroupSpec: schedulingPolicy, exactly one of basic and gang (minCount at least 1),
         * the same in v1alpha2 and v1beta1; no template reference (optional: v1alpha2's
         * podGroupTemplateRef, v1beta1's workloadRef; muster writes the group itself, from no
         * Workload); no resources, queue or timeout (neither version has them), and none of
         * v1beta1's priorityClassName, priority, disruptionMode or resourceClaims (optional:
         * the member's defaults, as before) */
        json_object *gang =
            kube_json_add_obj(kube_json_add_obj(gs, "schedulingPolicy", &bad), "gang", &bad);
        int32_t m = share_min_member(in->w, s->replicas);
        kube_json_add(gang, "minCount", json_object_new_int(m < 1 ? 1 : m), &bad);
        return done(root, bad);
    }
    kube_json_add(gs, "minMember", json_object_new_int(share_min_member(in->w, s->replicas)), &bad);
    if (in->gang_request && in->nshares == 1)
        kube_json_add(gs, "minResources", kube_resvec_json(in->names, in->gang_request), &bad);
    else if (in->w->components[0].request.len)
        kube_json_add(gs, "minResources", share_resources(in, s->replicas), &bad);
    if (cosched) {
        /* scheduler-plugins' PodGroupSpec has no queue nor priority class; its timeout is how
         * long the Coscheduling plugin holds the group's pods at Permit: the gang timeout,
         * after which muster rolls the attempt back anyway. */
        if (in->gang_timeout_s > 0)
            kube_json_add(gs, "scheduleTimeoutSeconds", json_object_new_int(in->gang_timeout_s),
                          &bad);
        return done(root, bad);
    }
    kube_json_add_str(gs, "queue", in->w->queue, &bad);
    if (in->w->priority_class[0])
        kube_json_add_str(gs, "priorityClassName", in->w->priority_class, &bad);
    /* only where the member's Volcano has HyperNodes: an older one would prune the field, and
     * a member without them has no racks its scheduler knows (docs/gangobj.md) */
    if (in->member_topo && in->net_topo && in->net_topo[i])
        karmada_nettopo_write(gs, &in->member_topo->share,
                              karmada__topo_name(in, i, 0), &bad);
    return done(root, bad);
}

/* RFC 6901: '~' is "~0", '/' is "~1". */
static void pointer_escape(char *buf, size_t cap, const char *s)
{
    size_t at = 0;
    for (; *s && at + 3 < cap; s++) {
        if (*s == '~' || *s == '/') {
            buf[at++] = '~';
            buf[at++] = *s == '~' ? '0' : '1';
        } else {
            buf[at++] = *s;
        }
    }
    buf[at] = '\0';
}

/* Appends {path, operator: add, value}, taking value (NULL value: failure). */
static void overrider(json_object *list, const char *path, json_object *value, int *bad)
{
    json_object *o = kube_json_push(list, json_object_new_object(), bad);
    kube_json_add_str(o, "path", path, bad);
    kube_json_add_str(o, "operator", "add", bad);
    kube_json_add(o, "value", value, bad);
}

/* The overrider that puts keys[0..n) = vals[0..n) into the pod template's metadata.<field>
 * (annotations or labels): karmada__gang_meta_overriders_at on in's one pod template. */
static void meta_overriders(json_object *list, const struct karmada_gang_input *in,
                            const char *field, const char *const *keys, const char *const *vals,
                            size_t n, int *bad)
{
    const char *base;
    json_object *pod = pod_of(in, &base);
    karmada__gang_meta_overriders_at(list, pod, base, field, keys, vals, n, bad);
}

static void group_overrider(json_object *list, const struct karmada_gang_input *in, const char *pg,
                            int *bad)
{
    const char *k = KARMADA_GANG_GROUP_NAME_ANNOTATION;
    meta_overriders(list, in, "annotations", &k, &pg, 1, bad);
}

/* YuniKorn's gang on the pods of one member (yunikorn-k8shim's gang scheduling annotations):
 * one task group holding the share, each member asking the per-replica request. */
static void yunikorn_overriders(json_object *list, const struct karmada_gang_input *in,
                                int32_t min_member, int *bad)
{
    json_object *rbm = kube_json_get(in->rb, "metadata");
    char app[KARMADA_GANG_NAME_MAX + 1], params[96];
    if (karmada_gang_work_name(get_str(rbm, "namespace"), get_str(rbm, "name"), app, sizeof(app))) {
        *bad = 1;
        return;
    }
    int failed = 0;
    json_object *groups = json_object_new_array();
    json_object *g = kube_json_push(groups, json_object_new_object(), &failed);
    kube_json_add_str(g, "name", KARMADA_GANG_YK_GROUP, &failed);
    kube_json_add(g, "minMember", json_object_new_int(min_member), &failed);
    kube_json_add(g, "minResource", kube_resvec_json(in->names, &in->w->components[0].request),
                  &failed);
    char *groups_text = NULL;
    if (!failed)
        groups_text = strdup(json_object_to_json_string_ext(
            groups, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(groups);
    if (!groups_text) {
        *bad = 1;
        return;
    }
    /* Hard: the placeholders never give way to a partial gang; muster rolls back at the gang
     * timeout, which is also how long YuniKorn keeps the placeholders. */
    if (in->gang_timeout_s > 0)
        snprintf(params, sizeof(params),
                 "placeholderTimeoutInSeconds=%" PRId32 " gangSchedulingStyle=Hard",
                 in->gang_timeout_s);
    else
        snprintf(params, sizeof(params), "gangSchedulingStyle=Hard");
    const char *keys[] = {KARMADA_GANG_YK_APP_ID, KARMADA_GANG_YK_TASK_GROUP_NAME,
                          KARMADA_GANG_YK_TASK_GROUPS, KARMADA_GANG_YK_POLICY};
    const char *vals[] = {app, KARMADA_GANG_YK_GROUP, groups_text, params};
    meta_overriders(list, in, "annotations", keys, vals, 4, bad);
    free(groups_text);
}

/* One rule in dialect d for cluster (NULL: every cluster) with min_member its share's. */
static void dialect_rule(json_object *rules, const struct karmada_gang_input *in,
                         const char *cluster, enum karmada_gang_dialect d, int32_t min_member,
                         const char *pg, const char *sched_path, const char *sched, int *bad)
{
    json_object *rule = kube_json_push(rules, json_object_new_object(), bad);
    if (cluster)
        kube_json_push(kube_json_add(kube_json_add_obj(rule, "targetCluster", bad), "clusterNames",
                                     json_object_new_array(), bad),
                       json_object_new_string(cluster), bad);
    json_object *plain = kube_json_add(kube_json_add_obj(rule, "overriders", bad), "plaintext",
                                       json_object_new_array(), bad);
    if (*bad)
        return;
    switch (d) {
    case KARMADA_GANG_DIALECT_COSCHEDULING: {
        /* No schedulerName: scheduler-plugins' own install enables Coscheduling in the
         * member's default-scheduler profile (doc/install.md); a second-scheduler install
         * names its scheduler in the workload's template, which stays as the user wrote it. */
        const char *k = KARMADA_GANG_COSCHED_LABEL;
        meta_overriders(plain, in, "labels", &k, &pg, 1, bad);
        break;
    }
    case KARMADA_GANG_DIALECT_WORKLOAD_API: {
        /* core/v1 PodSpec.schedulingGroup {podGroupName}: the pods join the member's PodGroup;
         * no schedulerName, as kube-scheduler's own GangScheduling plugin gangs them. An add
         * replaces a schedulingGroup the template names (the hub's group, read as the gang). */
        const char *base;
        char path[64];
        pod_of(in, &base);
        snprintf(path, sizeof(path), "%s/spec/schedulingGroup", base);
        int failed = 0;
        json_object *sg = json_object_new_object();
        kube_json_add_str(sg, "podGroupName", pg, &failed);
        if (failed) {
            json_object_put(sg);
            sg = NULL;
        }
        overrider(plain, path, sg, bad);
        break;
    }
    case KARMADA_GANG_DIALECT_YUNIKORN:
        yunikorn_overriders(plain, in, min_member, bad);
        overrider(plain, sched_path, json_object_new_string(KARMADA_GANG_YK_SCHEDULER), bad);
        break;
    default:
        group_overrider(plain, in, pg, bad);
        overrider(plain, sched_path, json_object_new_string(sched), bad);
        break;
    }
}

json_object *karmada_gang_override_policy(const struct karmada_gang_input *in)
{
    if (in && in->split)
        return karmada_gang_split_override_policy(in);
    if (!in || !karmada_gang_needs_objects(in->w) || karmada_gang_input_check(in, NULL, 0))
        return NULL;
    json_object *rbm = kube_json_get(in->rb, "metadata");
    char pg[KARMADA_GANG_NAME_MAX + 1], name[KARMADA_GANG_NAME_MAX + 1];
    if (karmada_gang_podgroup_name(in->group_rb_name ? in->group_rb_name : get_str(rbm, "name"), pg,
                                   sizeof(pg)) ||
        karmada_gang_policy_name(get_str(rbm, "name"), name, sizeof(name)))
        return NULL;
    const char *base;
    pod_of(in, &base);
    char sched_path[64];
    snprintf(sched_path, sizeof(sched_path), "%s/spec/schedulerName", base);
    const char *sched =
        in->pod_scheduler && *in->pod_scheduler ? in->pod_scheduler : DEFAULT_POD_SCHEDULER;

    int bad = 0;
    json_object *rules;
    json_object *root = karmada__gang_policy_new(in, name, &rules, &bad);
    enum karmada_gang_dialect d0 = DIALECT(in, 0);
    int one = karmada_gang_dialect_has_work(d0);
    for (uint32_t i = 1; one && i < in->nshares; i++)
        one = DIALECT(in, i) == d0;
    if (one) {
        /* One rule with no targetCluster: the group is named the same in every member, so the
         * policy does not depend on the placement and is written once per RB. */
        dialect_rule(rules, in, NULL, d0, 0, pg, sched_path, sched, &bad);
        return done(root, bad);
    }
    /* Members of several dialects (or YuniKorn, whose annotations carry the share): one rule
     * per cluster, so the policy changes with the placement. */
    for (uint32_t i = 0; i < in->nshares && !bad; i++)
        if (DIALECT(in, i) != KARMADA_GANG_DIALECT_NONE)
            dialect_rule(rules, in, in->shares[i].cluster, DIALECT(in, i),
                         share_min_member(in->w, in->shares[i].replicas), pg, sched_path, sched,
                         &bad);
    return done(root, bad);
}

int karmada_gang_policy_redundant(const struct karmada_gang_input *in)
{
    if (!in || in->split || !in->tmpl)
        return 0;
    json_object *op = karmada_gang_override_policy(in);
    int same = karmada_gang_policy_in_template(op, in->tmpl);
    json_object_put(op);
    return same;
}

int karmada_gang_policy_in_template(json_object *op, json_object *tmpl)
{
    json_object *rules = kube_json_path(op, "spec", "overrideRules", NULL);
    size_t nr = json_object_is_type(rules, json_type_array) ? json_object_array_length(rules) : 0;
    int same = nr > 0;
    for (size_t r = 0; same && r < nr; r++) {
        json_object *ov = kube_json_get(json_object_array_get_idx(rules, r), "overriders");
        json_object *plain = kube_json_get(ov, "plaintext");
        size_t np =
            json_object_is_type(plain, json_type_array) ? json_object_array_length(plain) : 0;
        /* a rule with nothing to add, or with an overrider of another kind, is not judged */
        same = np > 0 && json_object_object_length(ov) == 1;
        for (size_t i = 0; same && i < np; i++) {
            json_object *o = json_object_array_get_idx(plain, i), *have = NULL;
            const char *path = get_str(o, "path"), *opn = get_str(o, "operator");
            same = path && opn && strcmp(opn, "add") == 0 &&
                   json_pointer_get(tmpl, path, &have) == 0 &&
                   json_object_equal(have, kube_json_get(o, "value"));
        }
    }
    return same;
}

/* JSON pointer a is b or lies above it. */
static int pointer_covers(const char *a, const char *b)
{
    size_t n = strlen(a);
    return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/' || n == 0);
}

static int selector_selects(json_object *rs, json_object *tmpl)
{
    json_object *md = kube_json_get(tmpl, "metadata");
    const char *av = get_str(rs, "apiVersion"), *kind = get_str(rs, "kind");
    const char *ns = get_str(rs, "namespace"), *name = get_str(rs, "name");
    const char *tav = get_str(tmpl, "apiVersion"), *tkind = get_str(tmpl, "kind");
    const char *tns = get_str(md, "namespace"), *tname = get_str(md, "name");
    if (!av || !kind || !tav || !tkind || strcmp(av, tav) != 0 || strcmp(kind, tkind) != 0)
        return 0;
    if (ns && *ns && (!tns || strcmp(ns, tns) != 0))
        return 0;
    if (name && *name)
        return tname && strcmp(name, tname) == 0;
    return 1; /* every one, or by labels: taken as selecting */
}

/* 1 when one of the plaintext overriders in overriders writes at, above or below a path of
 * mine's rules. */
static int overriders_meet(json_object *overriders, json_object *mine_rules)
{
    json_object *plain = kube_json_get(overriders, "plaintext");
    size_t np = json_object_is_type(plain, json_type_array) ? json_object_array_length(plain) : 0;
    size_t nr = json_object_is_type(mine_rules, json_type_array)
                    ? json_object_array_length(mine_rules)
                    : 0;
    for (size_t i = 0; i < np; i++) {
        const char *p = get_str(json_object_array_get_idx(plain, i), "path");
        if (!p)
            continue;
        for (size_t r = 0; r < nr; r++) {
            json_object *mp = kube_json_path(json_object_array_get_idx(mine_rules, r),
                                             "overriders", "plaintext", NULL);
            size_t nm = json_object_is_type(mp, json_type_array) ? json_object_array_length(mp)
                                                                  : 0;
            for (size_t j = 0; j < nm; j++) {
                const char *m = get_str(json_object_array_get_idx(mp, j), "path");
                if (m && (pointer_covers(p, m) || pointer_covers(m, p)))
                    return 1;
            }
        }
    }
    return 0;
}

int karmada_gang_policy_contested(json_object *mine, json_object *other, json_object *tmpl)
{
    json_object *spec = kube_json_get(other, "spec");
    if (!mine || !spec || !tmpl)
        return 0;
    json_object *sels = kube_json_get(spec, "resourceSelectors");
    size_t ns = json_object_is_type(sels, json_type_array) ? json_object_array_length(sels) : 0;
    int selects = ns == 0;
    for (size_t i = 0; !selects && i < ns; i++)
        selects = selector_selects(json_object_array_get_idx(sels, i), tmpl);
    if (!selects)
        return 0;
    json_object *mine_rules = kube_json_path(mine, "spec", "overrideRules", NULL);
    json_object *rules = kube_json_get(spec, "overrideRules");
    size_t nr = json_object_is_type(rules, json_type_array) ? json_object_array_length(rules) : 0;
    for (size_t r = 0; r < nr; r++)
        if (overriders_meet(kube_json_get(json_object_array_get_idx(rules, r), "overriders"),
                            mine_rules))
            return 1;
    /* the deprecated spec.overriders, used when overrideRules is empty */
    return nr == 0 && overriders_meet(kube_json_get(spec, "overriders"), mine_rules);
}

/* ---- reading what Karmada made of muster's objects ---- */

static int condition_true(json_object *obj, const char *type)
{
    json_object *conds = kube_json_get(kube_json_get(obj, "status"), "conditions");
    size_t n = json_object_is_type(conds, json_type_array) ? json_object_array_length(conds) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        const char *t = get_str(c, "type"), *st = get_str(c, "status");
        if (t && st && strcmp(t, type) == 0)
            return strcmp(st, "True") == 0;
    }
    return 0;
}

int karmada_gang_work_applied(json_object *work)
{
    return work && !kube_json_get(kube_json_get(work, "metadata"), "deletionTimestamp") &&
           condition_true(work, "Applied");
}

const char *karmada_gang_work_podgroup_phase(json_object *work)
{
    json_object *ms = kube_json_get(kube_json_get(work, "status"), "manifestStatuses");
    if (!json_object_is_type(ms, json_type_array) || json_object_array_length(ms) == 0)
        return NULL;
    json_object *st = kube_json_get(json_object_array_get_idx(ms, 0), "status");
    const char *phase = get_str(st, "phase");
    if (phase)
        return phase;
    /* A Workload API PodGroup has conditions, no phase: its scheduler sets PodGroupScheduled
     * (v1alpha2) or PodGroupInitiallyScheduled (v1beta1, the same condition renamed) True once
     * the gang's pods are bound (KEP-5832, "PodGroup Status Lifecycle"), which is what Running
     * means for the others. Either name is read: each version's scheduler sets only its own. */
    json_object *conds = kube_json_get(st, "conditions");
    for (size_t i = 0;
         json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds); i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        const char *t = get_str(c, "type"), *v = get_str(c, "status");
        if (t && v &&
            (strcmp(t, KARMADA_GANG_WL_SCHEDULED) == 0 ||
             strcmp(t, KARMADA_GANG_WL_SCHEDULED_V1ALPHA2) == 0))
            return strcmp(v, "True") == 0 ? "Running" : "Pending";
    }
    return NULL;
}

/* 1 when the Work's applied-overrides annotation (a JSON array of {policyName, overriders},
 * pkg/util/overridemanager/shadow.go) names policy. */
static int overrides_name(json_object *work, const char *policy)
{
    const char *text = get_str(kube_json_get(kube_json_get(work, "metadata"), "annotations"),
                               KARMADA_GANG_APPLIED_OVERRIDES_ANNOTATION);
    if (!text)
        return 0;
    json_object *list = json_tokener_parse(text);
    int found = 0;
    size_t n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
    for (size_t i = 0; i < n && !found; i++) {
        const char *pn = get_str(json_object_array_get_idx(list, i), "policyName");
        found = pn && strcmp(pn, policy) == 0;
    }
    json_object_put(list);
    return found;
}

enum karmada_gang_rendered karmada_gang_rendered_work(json_object *work, const char *policy)
{
    if (!work || kube_json_get(kube_json_get(work, "metadata"), "deletionTimestamp"))
        return KARMADA_GANG_RENDERED_MISSING;
    json_object *sd = kube_json_get(kube_json_get(work, "spec"), "suspendDispatching");
    int suspended = json_object_is_type(sd, json_type_boolean) && json_object_get_boolean(sd);
    int in = overrides_name(work, policy);
    if (suspended)
        return in ? KARMADA_GANG_RENDERED_READY : KARMADA_GANG_RENDERED_WAIT;
    return in ? KARMADA_GANG_RENDERED_OPEN : KARMADA_GANG_RENDERED_VANISHED;
}

enum karmada_gang_rendered karmada_gang_rendered_judge(json_object *items,
                                                       const struct karmada_gang_share *shares,
                                                       uint32_t n, const char *policy, char *why,
                                                       size_t cap)
{
    return karmada_gang_rendered_judge_dialects(items, shares, NULL, n, policy, why, cap);
}

enum karmada_gang_rendered
karmada_gang_rendered_judge_dialects(json_object *items, const struct karmada_gang_share *shares,
                                     const enum karmada_gang_dialect *dialects, uint32_t n,
                                     const char *policy, char *why, size_t cap)
{
    enum karmada_gang_rendered worst = KARMADA_GANG_RENDERED_READY;
    size_t nitems =
        json_object_is_type(items, json_type_array) ? json_object_array_length(items) : 0;
    if (why && cap)
        why[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        char ns[DNS_LABEL_MAX + 1];
        snprintf(ns, sizeof(ns), WORK_NAMESPACE_PREFIX "%s", shares[i].cluster);
        json_object *work = NULL;
        for (size_t k = 0; k < nitems && !work; k++) {
            json_object *it = json_object_array_get_idx(items, k);
            const char *wns = get_str(kube_json_get(it, "metadata"), "namespace");
            /* muster's own Works never carry the permanent id; a hand-made one might */
            if (wns && strcmp(wns, ns) == 0 &&
                !get_str(kube_json_get(kube_json_get(it, "metadata"), "labels"),
                         KARMADA_GANG_BINDING_UID_LABEL))
                work = it;
        }
        enum karmada_gang_rendered r = karmada_gang_rendered_work(work, policy);
        /* no rule targets a member of dialect none: its Work never names the policy */
        int none = dialects && dialects[i] == KARMADA_GANG_DIALECT_NONE;
        if (none && r == KARMADA_GANG_RENDERED_WAIT)
            r = KARMADA_GANG_RENDERED_READY;
        else if (none && r == KARMADA_GANG_RENDERED_VANISHED)
            r = KARMADA_GANG_RENDERED_OPEN;
        /* VANISHED beats everything (roll back); then MISSING/WAIT (check again); OPEN and
         * READY both let the lift go. */
        int rank = r == KARMADA_GANG_RENDERED_VANISHED                                     ? 3
                   : r == KARMADA_GANG_RENDERED_MISSING || r == KARMADA_GANG_RENDERED_WAIT ? 2
                                                                                           : 1;
        int wrank = worst == KARMADA_GANG_RENDERED_VANISHED ? 3
                    : worst == KARMADA_GANG_RENDERED_MISSING || worst == KARMADA_GANG_RENDERED_WAIT
                        ? 2
                        : 1;
        if (rank > wrank) {
            worst = r;
            if (why && cap)
                snprintf(why, cap, "%s: %s", shares[i].cluster,
                         r == KARMADA_GANG_RENDERED_VANISHED
                             ? "its Work was released (suspendDispatching lifted) before the "
                               "OverridePolicy was in it"
                         : r == KARMADA_GANG_RENDERED_MISSING ? "no Work rendered yet"
                                                              : "the Work does not carry the "
                                                                "OverridePolicy yet");
        }
    }
    return worst;
}

/* ---- shared with gang_split.c (gang_int.h) ---- */

json_object *karmada__gang_new_marked(const char *api_version, const char *kind, const char *name,
                                      const char *ns, const struct karmada_gang_input *in,
                                      json_object **meta, int *bad)
{
    return new_marked(api_version, kind, name, ns, in, meta, bad);
}

json_object *karmada__gang_done(json_object *root, int bad)
{
    return done(root, bad);
}

void karmada__gang_overrider(json_object *list, const char *path, json_object *value, int *bad)
{
    overrider(list, path, value, bad);
}

void karmada__gang_meta_overriders_at(json_object *list, json_object *pod, const char *base,
                                      const char *field, const char *const *keys,
                                      const char *const *vals, size_t n, int *bad)
{
    /* Shaped by what the template already has: `add` of a whole object would replace the
     * user's, and `add` of one key under a missing object fails the render. */
    json_object *meta = kube_json_get(pod, "metadata");
    char key[96], path[256];
    if (json_object_is_type(kube_json_get(meta, field), json_type_object)) {
        for (size_t i = 0; i < n; i++) {
            pointer_escape(key, sizeof(key), keys[i]);
            snprintf(path, sizeof(path), "%s/metadata/%s/%s", base, field, key);
            overrider(list, path, json_object_new_string(vals[i]), bad);
        }
        return;
    }
    int failed = 0;
    json_object *obj = json_object_new_object(), *value;
    for (size_t i = 0; i < n; i++)
        kube_json_add_str(obj, keys[i], vals[i], &failed);
    if (json_object_is_type(meta, json_type_object)) {
        snprintf(path, sizeof(path), "%s/metadata/%s", base, field);
        value = obj;
    } else {
        snprintf(path, sizeof(path), "%s/metadata", base);
        value = json_object_new_object();
        kube_json_add(value, field, obj, &failed);
    }
    if (failed) {
        json_object_put(value);
        value = NULL;
    }
    overrider(list, path, value, bad);
}

json_object *karmada__gang_policy_new(const struct karmada_gang_input *in, const char *name,
                                      json_object **rules, int *bad)
{
    json_object *res = kube_json_get(kube_json_get(in->rb, "spec"), "resource"), *meta;
    json_object *root = new_marked("policy.karmada.io/v1alpha1", "OverridePolicy", name,
                                   get_str(res, "namespace"), in, &meta, bad);
    if (get_str(res, "uid")) {
        json_object *owners = kube_json_add(meta, "ownerReferences", json_object_new_array(), bad);
        json_object *owner = kube_json_push(owners, json_object_new_object(), bad);
        kube_json_add_str(owner, "apiVersion", get_str(res, "apiVersion"), bad);
        kube_json_add_str(owner, "kind", get_str(res, "kind"), bad);
        kube_json_add_str(owner, "name", get_str(res, "name"), bad);
        kube_json_add_str(owner, "uid", get_str(res, "uid"), bad);
    }
    json_object *spec = kube_json_add_obj(root, "spec", bad);
    json_object *sel =
        kube_json_push(kube_json_add(spec, "resourceSelectors", json_object_new_array(), bad),
                       json_object_new_object(), bad);
    kube_json_add_str(sel, "apiVersion", get_str(res, "apiVersion"), bad);
    kube_json_add_str(sel, "kind", get_str(res, "kind"), bad);
    kube_json_add_str(sel, "namespace", get_str(res, "namespace"), bad);
    kube_json_add_str(sel, "name", get_str(res, "name"), bad);
    *rules = kube_json_add(spec, "overrideRules", json_object_new_array(), bad);
    return root;
}
