/* Whether a ResourceBinding's placement allows a member cluster (see workload_clusters.h and
 * docs/workload.md): the clusterAffinity, clusterAffinities and clusterTolerations of the RB are
 * validated once when the RB is read, so matching a Cluster never meets a bad shape. */
#include "cluster-adapters/karmada/workload_clusters.h"
#include "cluster-adapters/kube/json.h"
#include "cluster-adapters/kube/selector.h"

#include "queue/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define INVALID(w, ...)                                                                            \
    karmada_workload_fail((w), KARMADA_WORKLOAD_INVALID, MUSTER_EINVAL, __VA_ARGS__)

/* ---- allowed clusters: validation at read time, so matching never meets a bad shape ---- */

static int check_strings(struct karmada_workload *w, json_object *list, const char *path,
                         int nonempty)
{
    if (!json_object_is_type(list, json_type_array))
        return INVALID(w, "%s: must be a list of strings", path);
    size_t n = json_object_array_length(list);
    if (n > KARMADA_WORKLOAD_LIST_MAX)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                                     "%s: %zu entries, more than %d", path, n,
                                     KARMADA_WORKLOAD_LIST_MAX);
    if (nonempty && n == 0)
        return INVALID(w, "%s: must not be empty for this operator", path);
    for (size_t i = 0; i < n; i++)
        if (!json_object_is_type(json_object_array_get_idx(list, i), json_type_string))
            return INVALID(w, "%s[%zu]: must be a string", path, i);
    return 0;
}

static int op_index(const char *op, const char *const *ops, int nops)
{
    for (int i = 0; op && i < nops; i++)
        if (strcmp(op, ops[i]) == 0)
            return i;
    return -1;
}

static const char *const label_ops[] = {"In", "NotIn", "Exists", "DoesNotExist"};
enum { OP_IN, OP_NOTIN, OP_EXISTS, OP_DOESNOTEXIST };

/* matchExpressions of a label selector (fields = 0) or of Karmada's field selector (fields = 1:
 * keys provider, region, zone; operators In and NotIn, as Karmada's validation allows). */
static int check_expressions(struct karmada_workload *w, json_object *exprs, const char *path,
                             int fields)
{
    if (!json_object_is_type(exprs, json_type_array))
        return INVALID(w, "%s: must be a list", path);
    size_t n = json_object_array_length(exprs);
    if (n > KARMADA_WORKLOAD_LIST_MAX)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                                     "%s: more than %d expressions", path,
                                     KARMADA_WORKLOAD_LIST_MAX);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(exprs, i);
        const char *key = kube_json_str(e, "key");
        int op = op_index(kube_json_str(e, "operator"), label_ops, fields ? 2 : 4);
        char p[160];
        snprintf(p, sizeof(p), "%s[%zu]", path, i);
        if (!key || !key[0])
            return INVALID(w, "%s.key: must be a non-empty string", p);
        if (fields && strcmp(key, "provider") != 0 && strcmp(key, "region") != 0 &&
            strcmp(key, "zone") != 0)
            return INVALID(w, "%s.key: must be provider, region or zone", p);
        if (op < 0)
            return INVALID(w, "%s.operator: must be %s", p,
                           fields ? "In or NotIn" : "In, NotIn, Exists or DoesNotExist");
        json_object *vals = kube_json_get(e, "values");
        snprintf(p, sizeof(p), "%s[%zu].values", path, i);
        if (op == OP_IN || op == OP_NOTIN) {
            int rc = check_strings(w, vals, p, 1);
            if (rc)
                return rc;
        } else if (vals && (!json_object_is_type(vals, json_type_array) ||
                            json_object_array_length(vals) > 0)) {
            return INVALID(w, "%s: must be empty for operator %s", p, label_ops[op]);
        }
    }
    return 0;
}

static int check_affinity(struct karmada_workload *w, json_object *aff, const char *path)
{
    char p[128];
    if (!json_object_is_type(aff, json_type_object))
        return INVALID(w, "%s: must be an object", path);
    static const char *const lists[] = {"clusterNames", "exclude"};
    for (int i = 0; i < 2; i++) {
        json_object *l = kube_json_get(aff, lists[i]);
        snprintf(p, sizeof(p), "%s.%s", path, lists[i]);
        int rc = l ? check_strings(w, l, p, 0) : 0;
        if (rc)
            return rc;
    }
    json_object *ls = kube_json_get(aff, "labelSelector");
    if (ls) {
        json_object *ml = kube_json_get(ls, "matchLabels");
        if (!json_object_is_type(ls, json_type_object) ||
            (ml && !json_object_is_type(ml, json_type_object)))
            return INVALID(w, "%s.labelSelector: must be {matchLabels, matchExpressions}", path);
        if (ml && json_object_object_length(ml) > KARMADA_WORKLOAD_LIST_MAX)
            return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                                         "%s.labelSelector.matchLabels: more than %d labels", path,
                                         KARMADA_WORKLOAD_LIST_MAX);
        if (ml) {
            json_object_object_foreach(ml, key, val)
            {
                if (!json_object_is_type(val, json_type_string))
                    return INVALID(w, "%s.labelSelector.matchLabels.%.63s: must be a string", path,
                                   key);
            }
        }
        json_object *me = kube_json_get(ls, "matchExpressions");
        snprintf(p, sizeof(p), "%s.labelSelector.matchExpressions", path);
        int rc = me ? check_expressions(w, me, p, 0) : 0;
        if (rc)
            return rc;
    }
    json_object *fs = kube_json_get(aff, "fieldSelector");
    if (fs) {
        json_object *me = kube_json_get(fs, "matchExpressions");
        snprintf(p, sizeof(p), "%s.fieldSelector.matchExpressions", path);
        if (!json_object_is_type(fs, json_type_object))
            return INVALID(w, "%s.fieldSelector: must be an object", path);
        int rc = me ? check_expressions(w, me, p, 1) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

static int check_tolerations(struct karmada_workload *w, json_object *tols)
{
    const char *path = "spec.placement.clusterTolerations";
    if (!json_object_is_type(tols, json_type_array))
        return INVALID(w, "%s: must be a list", path);
    size_t n = json_object_array_length(tols);
    if (n > KARMADA_WORKLOAD_LIST_MAX)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                                     "%s: more than %d tolerations", path,
                                     KARMADA_WORKLOAD_LIST_MAX);
    static const char *const ops[] = {"", "Equal", "Exists"};
    static const char *const effects[] = {"", "NoSchedule", "PreferNoSchedule", "NoExecute"};
    for (size_t i = 0; i < n; i++) {
        json_object *t = json_object_array_get_idx(tols, i);
        if (!json_object_is_type(t, json_type_object))
            return INVALID(w, "%s[%zu]: must be an object", path, i);
        static const char *const strs[] = {"key", "operator", "value", "effect"};
        for (int s = 0; s < 4; s++)
            if (kube_json_get(t, strs[s]) && !kube_json_str(t, strs[s]))
                return INVALID(w, "%s[%zu].%s: must be a string", path, i, strs[s]);
        const char *key = kube_json_str(t, "key"), *value = kube_json_str(t, "value");
        const char *opname = kube_json_str(t, "operator");
        int op = op_index(opname ? opname : "", ops, 3);
        if (op < 0)
            return INVALID(w, "%s[%zu].operator: must be Equal or Exists", path, i);
        if (op_index(kube_json_str(t, "effect") ? kube_json_str(t, "effect") : "", effects, 4) < 0)
            return INVALID(w,
                           "%s[%zu].effect: must be NoSchedule, PreferNoSchedule or "
                           "NoExecute",
                           path, i);
        if ((!key || !key[0]) && op != 2)
            return INVALID(w, "%s[%zu]: an empty key needs operator Exists", path, i);
        if (op == 2 && value && value[0])
            return INVALID(w, "%s[%zu].value: must be empty for operator Exists", path, i);
    }
    return 0;
}

int karmada__workload_check_clusters(struct karmada_workload *w, json_object *spec)
{
    json_object *pl = kube_json_get(spec, "placement");
    if (!pl)
        return 0;
    if (!json_object_is_type(pl, json_type_object))
        return INVALID(w, "spec.placement: must be an object");
    json_object *aff = kube_json_get(pl, "clusterAffinity");
    int rc = aff ? check_affinity(w, aff, "spec.placement.clusterAffinity") : 0;
    if (rc)
        return rc;
    json_object *affs = kube_json_get(pl, "clusterAffinities");
    if (affs) {
        if (!json_object_is_type(affs, json_type_array))
            return INVALID(w, "spec.placement.clusterAffinities: must be a list");
        size_t n = json_object_array_length(affs);
        if (n > KARMADA_WORKLOAD_AFFINITIES_MAX)
            return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                                         "spec.placement.clusterAffinities: more than %d groups",
                                         KARMADA_WORKLOAD_AFFINITIES_MAX);
        for (size_t i = 0; i < n; i++) {
            char p[64];
            snprintf(p, sizeof(p), "spec.placement.clusterAffinities[%zu]", i);
            rc = check_affinity(w, json_object_array_get_idx(affs, i), p);
            if (rc)
                return rc;
        }
    }
    json_object *tols = kube_json_get(pl, "clusterTolerations");
    rc = tols ? check_tolerations(w, tols) : 0;
    if (rc)
        return rc;
    w->affinity = json_object_get(aff);
    w->affinities = affs && json_object_array_length(affs) ? json_object_get(affs) : NULL;
    w->tolerations = json_object_get(tols);
    return 0;
}

int karmada_workload_cluster_serves(json_object *cluster, const char *group_version,
                                    const char *resource)
{
    json_object *en = kube_json_get(kube_json_get(cluster, "status"), "apiEnablements");
    if (!json_object_is_type(en, json_type_array))
        return -1;
    for (size_t i = 0; i < json_object_array_length(en); i++) {
        json_object *e = json_object_array_get_idx(en, i);
        const char *gv = kube_json_str(e, "groupVersion");
        json_object *rs = kube_json_get(e, "resources");
        if (!gv || strcmp(gv, group_version) != 0 || !json_object_is_type(rs, json_type_array))
            continue;
        for (size_t j = 0; j < json_object_array_length(rs); j++) {
            const char *n = kube_json_str(json_object_array_get_idx(rs, j), "name");
            if (n && strcmp(n, resource) == 0)
                return 1;
        }
    }
    return 0;
}

int karmada_workload_cluster_serves_podgroups(json_object *cluster)
{
    return karmada_workload_cluster_serves(cluster, "scheduling.volcano.sh/v1beta1", "podgroups");
}

/* ---- matching a Cluster ---- */

/* One requirement against a value that may be absent (NULL), as apimachinery's labels do. */
static int requirement_holds(int op, json_object *values, const char *have)
{
    switch (op) {
    case OP_IN:
        return have && kube_json_has_str(values, have);
    case OP_NOTIN:
        return !have || !kube_json_has_str(values, have);
    case OP_EXISTS:
        return have != NULL;
    default:
        return have == NULL;
    }
}

/* Karmada's matchZones: In needs every zone of the cluster listed (and at least one zone),
 * NotIn needs none listed; no zones and no values match. */
static int zones_hold(int op, json_object *values, json_object *zones)
{
    size_t nz = json_object_is_type(zones, json_type_array) ? json_object_array_length(zones) : 0;
    size_t nv = json_object_array_length(values);
    if (nz == 0 && nv == 0)
        return 1;
    if (op == OP_IN && nz == 0)
        return 0;
    for (size_t i = 0; i < nz; i++) {
        int listed =
            kube_json_has_str(values, json_object_get_string(json_object_array_get_idx(zones, i)));
        if (listed != (op == OP_IN))
            return 0;
    }
    return 1;
}

__attribute__((format(printf, 3, 4))) static int deny(char *why, size_t cap, const char *fmt, ...)
{
    if (why && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return 0;
}

static int affinity_allows(json_object *aff, const char *path, const char *name,
                           json_object *cluster, char *why, size_t cap)
{
    if (kube_json_has_str(kube_json_get(aff, "exclude"), name))
        return deny(why, cap, "%.63s: excluded by %s.exclude", name, path);
    json_object *labels = kube_json_get(kube_json_get(cluster, "metadata"), "labels");
    json_object *ls = kube_json_get(aff, "labelSelector");
    char term[200];
    if (ls && !kube_selector_matches(ls, labels, term, sizeof term))
        return deny(why, cap, "%.63s: %s (%s.labelSelector)", name, term, path);
    json_object *me;
    me = kube_json_get(kube_json_get(aff, "fieldSelector"), "matchExpressions");
    json_object *cspec = kube_json_get(cluster, "spec");
    for (size_t i = 0; me && i < json_object_array_length(me); i++) {
        json_object *e = json_object_array_get_idx(me, i);
        const char *key = kube_json_str(e, "key");
        int op = op_index(kube_json_str(e, "operator"), label_ops, 2);
        int ok;
        if (strcmp(key, "zone") == 0) {
            ok = zones_hold(op, kube_json_get(e, "values"), kube_json_get(cspec, "zones"));
        } else {
            const char *have = kube_json_str(cspec, key);
            ok = requirement_holds(op, kube_json_get(e, "values"), have && have[0] ? have : NULL);
        }
        if (!ok)
            return deny(why, cap, "%.63s: field %s does not satisfy %s (%s.fieldSelector)", name,
                        key, label_ops[op], path);
    }
    json_object *names = kube_json_get(aff, "clusterNames");
    if (names && json_object_array_length(names) > 0 && !kube_json_has_str(names, name))
        return deny(why, cap, "%.63s: not in %s.clusterNames", name, path);
    return 1;
}

/* core/v1 Toleration.ToleratesTaint. */
static int tolerates(json_object *t, const char *key, const char *value, const char *effect)
{
    const char *tkey = kube_json_str(t, "key"), *teffect = kube_json_str(t, "effect");
    const char *op = kube_json_str(t, "operator"), *tvalue = kube_json_str(t, "value");
    if (teffect && teffect[0] && strcmp(teffect, effect) != 0)
        return 0;
    if (tkey && tkey[0] && strcmp(tkey, key) != 0)
        return 0;
    if (op && strcmp(op, "Exists") == 0)
        return 1;
    return strcmp(tvalue ? tvalue : "", value) == 0;
}

int karmada_workload_explain_cluster(const struct karmada_workload *w, json_object *cluster,
                                     char *why, size_t cap)
{
    if (why && cap)
        why[0] = '\0';
    const char *name = kube_json_str(kube_json_get(cluster, "metadata"), "name");
    if (!name || !name[0])
        return deny(why, cap, "a cluster without metadata.name");
    json_object *labels = kube_json_get(kube_json_get(cluster, "metadata"), "labels");
    if (labels && !json_object_is_type(labels, json_type_object))
        return deny(why, cap, "%.63s: metadata.labels is not an object", name);
    if (w->affinity &&
        !affinity_allows(w->affinity, "spec.placement.clusterAffinity", name, cluster, why, cap))
        return 0;
    if (w->affinities) {
        /* Karmada tries the groups in order and falls back to the next; the set of clusters it
         * may end up using is their union, and muster's own placement applies no order. */
        int any = 0;
        size_t n = json_object_array_length(w->affinities);
        for (size_t i = 0; i < n && !any; i++)
            any = affinity_allows(json_object_array_get_idx(w->affinities, i),
                                  "spec.placement.clusterAffinities", name, cluster, NULL, 0);
        if (!any)
            return deny(why, cap, "%.63s: matches none of spec.placement.clusterAffinities", name);
    }
    json_object *taints = kube_json_get(kube_json_get(cluster, "spec"), "taints");
    if (taints && !json_object_is_type(taints, json_type_array))
        return deny(why, cap, "%.63s: spec.taints is not a list", name);
    size_t nt = taints ? json_object_array_length(taints) : 0;
    if (nt > KARMADA_WORKLOAD_LIST_MAX)
        return deny(why, cap, "%.63s: more than %d taints", name, KARMADA_WORKLOAD_LIST_MAX);
    for (size_t i = 0; i < nt; i++) {
        json_object *t = json_object_array_get_idx(taints, i);
        const char *key = kube_json_str(t, "key"), *effect = kube_json_str(t, "effect");
        const char *value = kube_json_str(t, "value");
        if (!key || !effect)
            return deny(why, cap, "%.63s: spec.taints[%zu] is malformed", name, i);
        /* Karmada's TaintToleration filter: PreferNoSchedule never keeps work out. */
        if (strcmp(effect, "NoSchedule") != 0 && strcmp(effect, "NoExecute") != 0)
            continue;
        int ok = 0;
        size_t ntol = w->tolerations ? json_object_array_length(w->tolerations) : 0;
        for (size_t j = 0; j < ntol && !ok; j++)
            ok = tolerates(json_object_array_get_idx(w->tolerations, j), key, value ? value : "",
                           effect);
        if (!ok)
            return deny(why, cap,
                        "%.63s: taint %.63s%s%.63s:%s is not tolerated by "
                        "spec.placement.clusterTolerations",
                        name, key, value && value[0] ? "=" : "", value ? value : "", effect);
    }
    return 1;
}

int karmada_workload_allows_cluster(const struct karmada_workload *w, json_object *cluster)
{
    return karmada_workload_explain_cluster(w, cluster, NULL, 0);
}

/* ---- a member lost: its Ready condition, NoExecute taints, Karmada's evictions ---- */

/* An RFC 3339 time as Kubernetes writes metav1.Time ("2026-11-26T21:00:00Z", an offset or
 * fractional seconds allowed) in unix ms; 0 when s is not one. */
static int64_t time_ms(const char *s)
{
    int y, mo, d, h, mi, sec, n = 0;
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6)
        return 0;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return 0;
    const char *p = s + n;
    int64_t ms = 0;
    if (*p == '.') {
        int64_t scale = 100;
        for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
            ms += (*p - '0') * scale;
    }
    int64_t off = 0;
    if (*p == '+' || *p == '-') {
        int oh, om;
        if (sscanf(p + 1, "%2d:%2d", &oh, &om) != 2)
            return 0;
        off = (*p == '+' ? 1 : -1) * ((int64_t)oh * 3600 + om * 60);
    } else if (*p != 'Z' && *p != 'z') {
        return 0;
    }
    /* days from the civil date (Howard Hinnant's days_from_civil): no timegm, no TZ */
    int yy = mo <= 2 ? y - 1 : y;
    int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
    int64_t yoe = yy - era * 400;
    int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    return ((days * 86400 + h * 3600 + mi * 60 + sec) - off) * 1000 + ms;
}

int karmada_workload_cluster_ready(json_object *cluster, int64_t *since_ms)
{
    json_object *conds = kube_json_get(kube_json_get(cluster, "status"), "conditions");
    size_t n = json_object_is_type(conds, json_type_array) ? json_object_array_length(conds) : 0;
    *since_ms = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *cd = json_object_array_get_idx(conds, i);
        const char *type = kube_json_str(cd, "type"), *status = kube_json_str(cd, "status");
        if (!type || strcmp(type, "Ready") != 0)
            continue;
        *since_ms = time_ms(kube_json_str(cd, "lastTransitionTime"));
        return status && strcmp(status, "True") == 0;
    }
    return 0;
}

int karmada_workload_noexecute(const struct karmada_workload *w, json_object *cluster,
                               int64_t *until_ms, char *taint, size_t cap)
{
    json_object *taints = kube_json_get(kube_json_get(cluster, "spec"), "taints");
    size_t nt = json_object_is_type(taints, json_type_array) ? json_object_array_length(taints) : 0;
    size_t ntol = w && w->tolerations ? json_object_array_length(w->tolerations) : 0;
    int found = 0;
    if (taint && cap)
        taint[0] = '\0';
    for (size_t i = 0; i < nt && i < KARMADA_WORKLOAD_LIST_MAX; i++) {
        json_object *t = json_object_array_get_idx(taints, i);
        const char *key = kube_json_str(t, "key"), *effect = kube_json_str(t, "effect");
        const char *value = kube_json_str(t, "value");
        if (!key || !effect || strcmp(effect, "NoExecute") != 0)
            continue;
        /* core/v1 GetMatchingTolerations and GetMinTolerationTime, as Karmada's taint manager
         * uses them: a matching toleration without tolerationSeconds tolerates for ever,
         * else the least tolerationSeconds counts from the taint's timeAdded; no match is
         * no toleration at all. */
        int matched = 0, forever = 0;
        int64_t least = INT64_MAX;
        for (size_t j = 0; j < ntol && !forever; j++) {
            json_object *tol = json_object_array_get_idx(w->tolerations, j);
            if (!tolerates(tol, key, value ? value : "", "NoExecute"))
                continue;
            matched = 1;
            json_object *secs = kube_json_get(tol, "tolerationSeconds");
            if (!json_object_is_type(secs, json_type_int)) {
                forever = 1;
                continue;
            }
            int64_t s = json_object_get_int64(secs);
            if (s < least)
                least = s;
        }
        if (forever)
            continue;
        int64_t at = 0;
        if (matched) {
            int64_t added = time_ms(kube_json_str(t, "timeAdded"));
            if (!added)
                continue; /* Karmada skips a taint without timeAdded: tolerated for ever */
            at = added + (least > 0 ? least * 1000 : 0);
        }
        if (!found || at < *until_ms) {
            *until_ms = at;
            if (taint && cap)
                snprintf(taint, cap, "%.63s%s%.63s:NoExecute", key, value && value[0] ? "=" : "",
                         value ? value : "");
        }
        found = 1;
    }
    return found;
}

int karmada_workload_evicted_from(json_object *rb, const char *cluster, char *why, size_t cap)
{
    json_object *tasks = kube_json_get(kube_json_get(rb, "spec"), "gracefulEvictionTasks");
    size_t n = json_object_is_type(tasks, json_type_array) ? json_object_array_length(tasks) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *t = json_object_array_get_idx(tasks, i);
        const char *from = kube_json_str(t, "fromCluster");
        if (!from || strcmp(from, cluster) != 0)
            continue;
        if (why && cap) {
            const char *reason = kube_json_str(t, "reason"),
                       *producer = kube_json_str(t, "producer");
            snprintf(why, cap, "%.63s by %.63s", reason ? reason : "no reason",
                     producer ? producer : "an unnamed producer");
        }
        return 1;
    }
    return 0;
}
