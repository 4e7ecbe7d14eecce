/* Network topology inside a member: muster's annotations, the member's HyperNodes, Volcano's
 * networkTopology fields (gang_nettopo.h). */
#include "cluster-adapters/karmada/gang_nettopo.h"
#include "cluster-adapters/karmada/gang_int.h"

#include "cluster-adapters/karmada/gang.h"
#include "cluster-adapters/karmada/workload_clusters.h"
#include "cluster-adapters/kube/json.h"
#include "queue/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>


/* A HyperNode tier name as muster takes it: a letter, then letters, digits, '-', '_' or '.',
 * ending in a letter or digit, at most KARMADA_NETTOPO_NAME_MAX. (Volcano's tierName is any
 * string up to 253; the letter first keeps "2x" a typo of a number rather than a name.) */
static int tier_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > KARMADA_NETTOPO_NAME_MAX)
        return 0;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (!alnum && !(i + 1 < n && (ch == '-' || ch == '_' || ch == '.')))
            return 0;
    }
    return 1;
}

/* The tier at key, template first: 0 with *t untouched when neither says it. A name sets *t to
 * KARMADA_NETTOPO_TIER_NAMED and, when name is not NULL, copies it there. */
static int tier_at(json_object *tmpl, json_object *rb, const char *key, uint32_t *t, char *name,
                   const char **who, char *why, size_t cap)
{
    json_object *objs[2] = {tmpl, rb};
    static const char *const whos[2] = {"template", "binding"};
    for (int o = 0; o < 2; o++) {
        json_object *v = kube_json_path(objs[o], "metadata", "annotations", key, NULL);
        if (!v)
            continue;
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
        int32_t n = 0;
        *who = whos[o];
        if (tier_name_ok(s)) {
            *t = KARMADA_NETTOPO_TIER_NAMED;
            if (name)
                snprintf(name, KARMADA_NETTOPO_NAME_MAX + 1, "%s", s);
            return 0;
        }
        if (karmada_workload_parse_count(s, strlen(s), &n) || n < 1 || n > KARMADA_NETTOPO_TIER_MAX)
            return karmada__why_not(why, cap,
                          "%s annotation %s: \"%.32s\" is not a HyperNode tier: a whole number "
                          "from 1 (the switch nearest the nodes) to %d, or a tier name (a letter, "
                          "then letters, digits, '-', '_' or '.', at most %d)",
                          whos[o], key, s, KARMADA_NETTOPO_TIER_MAX, KARMADA_NETTOPO_NAME_MAX);
        *t = (uint32_t)n;
        return 0;
    }
    return 0;
}

/* One scope's pair of keys into *out (and its name into name when named). */
static int scope(json_object *tmpl, json_object *rb, const char *req_key, const char *pref_key,
                 struct karmada_nettopo *out, char *name, char *why, size_t cap)
{
    uint32_t req = 0, pref = 0;
    const char *who = "template";
    int rc = tier_at(tmpl, rb, req_key, &req, name, &who, why, cap);
    if (!rc)
        rc = tier_at(tmpl, rb, pref_key, &pref, req ? NULL : name, &who, why, cap);
    if (rc)
        return rc;
    if (req && pref)
        return karmada__why_not(why, cap,
                      "annotations %s and %s: Volcano's networkTopology has one mode (hard or "
                      "soft) per scope; set one of them",
                      req_key, pref_key);
    *out = (struct karmada_nettopo){.tier = req ? req : pref, .required = req != 0};
    return 0;
}

int karmada_member_topo_read(struct karmada_member_topo *out, const struct karmada_workload *w,
                             int split, json_object *rb, json_object *tmpl, char *why, size_t cap)
{
    return karmada_member_topo_read_names(out, NULL, w, split, rb, tmpl, why, cap);
}

int karmada_member_topo_read_names(struct karmada_member_topo *out,
                                   struct karmada_member_topo_names *names,
                                   const struct karmada_workload *w, int split, json_object *rb,
                                   json_object *tmpl, char *why, size_t cap)
{
    memset(out, 0, sizeof(*out));
    if (names)
        memset(names, 0, sizeof(*names));
    if (why && cap)
        why[0] = '\0';
    int rc = scope(tmpl, rb, KARMADA_NETTOPO_REQUIRED, KARMADA_NETTOPO_PREFERRED, &out->share,
                   names ? names->share : NULL, why, cap);
    if (!rc)
        rc = scope(tmpl, rb, KARMADA_NETTOPO_GROUP_REQUIRED, KARMADA_NETTOPO_GROUP_PREFERRED,
                   &out->group, names ? names->group : NULL, why, cap);
    if (rc || (!out->share.tier && !out->group.tier))
        return rc;
    const char *kn = karmada_workload_kind_name(w->kind);
    if (w->kind == KARMADA_WORKLOAD_KIND_VCJOB)
        rc = karmada__why_not(why, cap,
                    "annotations scheduling.muster.io/member-*topology-*: a Volcano Job's "
                    "PodGroup is made by the member's Volcano from the job, not by muster: state "
                    "its spec.networkTopology (and each task's partitionPolicy.networkTopology) "
                    "in the job itself, which Karmada sends to the member as written");
    else if (!karmada_gang_needs_objects(w) && !split)
        rc = karmada__why_not(why, cap,
                    "annotations scheduling.muster.io/member-*topology-*: a %s kept whole gets "
                    "no PodGroup from muster to carry them (with scheduling.muster.io/placement: "
                    "spread a JobSet or LeaderWorkerSet gets one per cluster)",
                    kn);
    else if (out->group.tier && !split)
        rc = karmada__why_not(why, cap,
                    "annotation %s: the pods of a %s carry no label that tells a member which "
                    "group each belongs to; only a JobSet or LeaderWorkerSet split by groups "
                    "(placement spread) has one, in its PodGroup's subGroupPolicy. Use %s for "
                    "each cluster's share",
                    out->group.required ? KARMADA_NETTOPO_GROUP_REQUIRED
                                        : KARMADA_NETTOPO_GROUP_PREFERRED,
                    kn, out->group.required ? KARMADA_NETTOPO_REQUIRED : KARMADA_NETTOPO_PREFERRED);
    if (rc) {
        memset(out, 0, sizeof(*out));
        if (names)
            memset(names, 0, sizeof(*names));
    }
    return rc;
}

int karmada_member_topo_detect(json_object *cluster)
{
    return karmada_workload_cluster_serves(cluster, KARMADA_NETTOPO_API_GROUP_VERSION,
                                           KARMADA_NETTOPO_API_RESOURCE) > 0;
}

int karmada_member_topo_names_detect(json_object *cluster)
{
    json_object *v =
        kube_json_path(cluster, "metadata", "labels", KARMADA_NETTOPO_NAMES_LABEL, NULL);
    const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    if (s && strcmp(s, "true") == 0)
        return 1;
    if (s && strcmp(s, "false") == 0)
        return 0;
    return karmada_workload_cluster_serves(cluster, KARMADA_NETTOPO_NAMES_API_GROUP_VERSION,
                                           KARMADA_NETTOPO_NAMES_API_RESOURCE) > 0;
}

void karmada_nettopo_write(json_object *obj, const struct karmada_nettopo *t, const char *name,
                           int *bad)
{
    if (!t || !t->tier)
        return;
    int named = t->tier == KARMADA_NETTOPO_TIER_NAMED;
    if (named && (!name || !name[0]))
        return; /* a member whose Volcano reads no tier names: nothing it would keep */
    json_object *nt = kube_json_add_obj(obj, "networkTopology", bad);
    kube_json_add_str(nt, "mode", t->required ? "hard" : "soft", bad);
    if (named)
        kube_json_add_str(nt, "highestTierName", name, bad);
    else
        kube_json_add(nt, "highestTierAllowed", json_object_new_int64(t->tier), bad);
}

const char *karmada__topo_name(const struct karmada_gang_input *in, uint32_t i, int group)
{
    if (!in->topo_names || !in->net_topo || !(in->net_topo[i] & 2))
        return NULL;
    return group ? in->topo_names->group : in->topo_names->share;
}
