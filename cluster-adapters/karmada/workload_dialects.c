/* The gang as YuniKorn, Kueue, coscheduling and Volcano PodGroups state it on the pods (see
 * workload_dialects.h and docs/workload.md, "Gang dialects"). Each value is checked here once,
 * with a sentence that names the key, because a malformed one would otherwise be read by the
 * member's scheduler alone and the gang would wait there without a word on the hub. */
#include "cluster-adapters/karmada/workload_dialects.h"

#include "cluster-adapters/kube/json.h"
#include "queue/errors.h"

#include <stdio.h>
#include <string.h>

#define INVALID(w, ...)                                                                            \
    karmada_workload_fail((w), KARMADA_WORKLOAD_INVALID, MUSTER_EINVAL, __VA_ARGS__)

/* The object whose metadata the pods get: the pod template, or the Pod itself. */
static json_object *pod_meta(const struct karmada_workload *w, json_object *tmpl)
{
    switch (w->kind) {
    case KARMADA_WORKLOAD_KIND_POD:
        return kube_json_get(tmpl, "metadata");
    case KARMADA_WORKLOAD_KIND_DEPLOYMENT:
    case KARMADA_WORKLOAD_KIND_STATEFULSET:
    case KARMADA_WORKLOAD_KIND_JOB:
        return kube_json_get(kube_json_get(kube_json_get(tmpl, "spec"), "template"), "metadata");
    default:
        return NULL;
    }
}

/* metadata.<where>[key] as a string: 0 with *out NULL when absent (or when the labels or
 * annotations are no object: the queue read reports that), MUSTER_EINVAL when not a string. */
static int pod_str(struct karmada_workload *w, json_object *md, const char *where, const char *key,
                   const char **out)
{
    *out = NULL;
    json_object *v = kube_json_get(kube_json_get(md, where), key);
    if (!v)
        return 0;
    if (!json_object_is_type(v, json_type_string))
        return INVALID(w, "pod %s %s: must be a string", where, key);
    *out = json_object_get_string(v);
    return 0;
}

/* A Kubernetes name as the dialects use it for groups: 1 to 63 of [a-z0-9.-], alphanumeric at
 * both ends (a label value, and a DNS label for the PodGroup objects). */
static int group_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > KARMADA_WORKLOAD_LABEL_VALUE_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int an = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
        if (!an && !((c == '-' || c == '.' || c == '_') && i > 0 && i < n - 1))
            return 0;
    }
    return 1;
}

static void copy_name(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s);
}

/* ---- YuniKorn (apache/yunikorn-k8shim pkg/cache/utils.go GetTaskGroupsFromAnnotation,
 * GetSchedulingPolicyParam; pkg/common/constants/constants.go) ---- */

/* One task group: name non-empty, minMember above 0 (YuniKorn refuses 0 and negatives),
 * minResource present as an object (YuniKorn refuses a group without it). */
static int yk_group(struct karmada_workload *w, json_object *g, size_t i, int64_t *sum)
{
    if (!json_object_is_type(g, json_type_object))
        return INVALID(w,
                       "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUPS "[%zu]: must be an "
                       "object",
                       i);
    const char *name = kube_json_str(g, "name");
    if (!name || !group_name_ok(name))
        return INVALID(w,
                       "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUPS "[%zu].name: must be a "
                       "name of 1 to 63 letters, digits, '-', '_' or '.'",
                       i);
    json_object *mm = kube_json_get(g, "minMember");
    int64_t m = json_object_is_type(mm, json_type_int) ? json_object_get_int64(mm) : 0;
    if (m <= 0 || m > INT32_MAX)
        return INVALID(w,
                       "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUPS "[%zu] (%.63s): "
                       "minMember must be a whole number above 0",
                       i, name);
    if (!json_object_is_type(kube_json_get(g, "minResource"), json_type_object))
        return INVALID(w,
                       "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUPS "[%zu] (%.63s): "
                       "minResource must be an object of quantities",
                       i, name);
    *sum += m;
    return 0;
}

static int yk_task_groups(struct karmada_workload *w, const char *text, json_object **out)
{
    *out = NULL;
    size_t n = strlen(text);
    if (n > KARMADA_WORKLOAD_DIALECT_TEXT_MAX)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                                     "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUPS ": %zu "
                                     "bytes, more than muster's limit of %d",
                                     n, KARMADA_WORKLOAD_DIALECT_TEXT_MAX);
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM, "out of memory");
    json_object *arr = json_tokener_parse_ex(tok, text, (int)n);
    int complete =
        json_tokener_get_error(tok) == json_tokener_success && json_tokener_get_parse_end(tok) == n;
    json_tokener_free(tok);
    if (!complete || !json_object_is_type(arr, json_type_array)) {
        json_object_put(arr);
        return INVALID(w, "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUPS ": not a JSON list "
                          "of task groups");
    }
    size_t len = json_object_array_length(arr);
    if (len > KARMADA_WORKLOAD_TASK_GROUPS_MAX) {
        json_object_put(arr);
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                                     "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUPS ": %zu "
                                     "task groups, more than muster's limit of %d",
                                     len, KARMADA_WORKLOAD_TASK_GROUPS_MAX);
    }
    int64_t sum = 0;
    for (size_t i = 0; i < len; i++) {
        json_object *g = json_object_array_get_idx(arr, i);
        int rc = yk_group(w, g, i, &sum);
        for (size_t j = 0; !rc && j < i; j++)
            if (strcmp(kube_json_str(json_object_array_get_idx(arr, j), "name"),
                       kube_json_str(g, "name")) == 0)
                rc = INVALID(w,
                             "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUPS ": task group "
                             "%.63s appears twice",
                             kube_json_str(g, "name"));
        if (!rc && sum > INT32_MAX)
            rc = INVALID(w, "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUPS ": the minMember "
                            "values add up past 2^31");
        if (rc) {
            json_object_put(arr);
            return rc;
        }
    }
    w->task_groups = (uint32_t)len;
    w->task_group_min = (int32_t)sum;
    *out = arr;
    return 0;
}

/* "placeholderTimeoutInSeconds=60 gangSchedulingStyle=Hard": space-separated key=value pairs.
 * YuniKorn logs and skips a malformed pair; muster refuses it, so the user learns of it before
 * the gang waits. Unknown keys are ignored, as YuniKorn ignores them. YuniKorn's default style
 * is Soft (constants.SchedulingPolicyStyleParamDefault). */
static int yk_policy(struct karmada_workload *w, const char *text)
{
    w->gang_soft = 1;
    size_t n = strlen(text);
    if (n > KARMADA_WORKLOAD_DIALECT_TEXT_MAX)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                                     "pod annotation " KARMADA_WORKLOAD_YK_POLICY ": too long");
    for (size_t i = 0; i < n;) {
        while (i < n && text[i] == ' ')
            i++;
        size_t start = i;
        while (i < n && text[i] != ' ')
            i++;
        if (i == start)
            break;
        const char *p = text + start, *eq = memchr(p, '=', i - start);
        if (!eq || memchr(eq + 1, '=', (size_t)(text + i - eq - 1)))
            return INVALID(w,
                           "pod annotation " KARMADA_WORKLOAD_YK_POLICY ": \"%.*s\" is not "
                           "key=value",
                           (int)(i - start > 40 ? 40 : i - start), p);
        size_t klen = (size_t)(eq - p), vlen = i - start - klen - 1;
        const char *v = eq + 1;
        if (klen == 27 && memcmp(p, "placeholderTimeoutInSeconds", 27) == 0) {
            if (karmada_workload_parse_count(v, vlen, &w->gang_timeout_s))
                return INVALID(w, "pod annotation " KARMADA_WORKLOAD_YK_POLICY ": "
                                  "placeholderTimeoutInSeconds must be a whole number of seconds");
        } else if (klen == 19 && memcmp(p, "gangSchedulingStyle", 19) == 0) {
            if (vlen == 4 && memcmp(v, "Hard", 4) == 0)
                w->gang_soft = 0;
            else if (vlen == 4 && memcmp(v, "Soft", 4) == 0)
                w->gang_soft = 1;
            else
                return INVALID(w, "pod annotation " KARMADA_WORKLOAD_YK_POLICY ": "
                                  "gangSchedulingStyle must be Hard or Soft");
        }
    }
    return 0;
}

static int read_yunikorn(struct karmada_workload *w, json_object *md)
{
    const char *groups, *name, *policy;
    int rc = pod_str(w, md, "annotations", KARMADA_WORKLOAD_YK_TASK_GROUPS, &groups);
    if (!rc)
        rc = pod_str(w, md, "annotations", KARMADA_WORKLOAD_YK_TASK_GROUP_NAME, &name);
    if (!rc)
        rc = pod_str(w, md, "annotations", KARMADA_WORKLOAD_YK_POLICY, &policy);
    if (rc)
        return rc;
    json_object *arr = NULL;
    if (groups && (rc = yk_task_groups(w, groups, &arr)) != 0)
        return rc;
    if (name && !group_name_ok(name))
        rc = INVALID(w,
                     "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUP_NAME ": \"%.63s\" is not "
                     "a task group name",
                     name);
    int listed = !arr;
    for (size_t i = 0; !rc && name && arr && i < json_object_array_length(arr); i++)
        listed |= strcmp(kube_json_str(json_object_array_get_idx(arr, i), "name"), name) == 0;
    if (!rc && name && !listed)
        rc = INVALID(w,
                     "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUP_NAME ": %.63s is not one of "
                     "the task groups in " KARMADA_WORKLOAD_YK_TASK_GROUPS,
                     name);
    json_object_put(arr);
    if (rc)
        return rc;
    if (name)
        copy_name(w->task_group, sizeof(w->task_group), name);
    if (policy && (rc = yk_policy(w, policy)) != 0)
        return rc;
    if ((groups || name || policy) && w->dialect == KARMADA_WORKLOAD_DIALECT_NONE)
        w->dialect = KARMADA_WORKLOAD_DIALECT_YUNIKORN;
    if (groups && !policy)
        w->gang_soft = 1; /* YuniKorn's default style */
    return 0;
}

/* ---- Kueue pod groups (kubernetes-sigs/kueue pkg/controller/jobs/pod/constants/constants.go:
 * GroupNameLabel, GroupTotalCountAnnotation): on plain Pods, and on a StatefulSet's pod template
 * where Kueue's StatefulSet webhook writes them with the total = replicas
 * (pkg/controller/jobs/statefulset/statefulset_webhook.go) ---- */

static int read_kueue(struct karmada_workload *w, json_object *md)
{
    const char *name, *total;
    int rc = pod_str(w, md, "labels", KARMADA_WORKLOAD_KUEUE_GROUP_NAME, &name);
    if (!rc)
        rc = pod_str(w, md, "annotations", KARMADA_WORKLOAD_KUEUE_GROUP_TOTAL, &total);
    if (rc || (!name && !total))
        return rc;
    if (!name || !total)
        return INVALID(w,
                       "a Kueue pod group needs both the label " KARMADA_WORKLOAD_KUEUE_GROUP_NAME
                       " and the annotation " KARMADA_WORKLOAD_KUEUE_GROUP_TOTAL);
    if (!group_name_ok(name))
        return INVALID(w,
                       "pod label " KARMADA_WORKLOAD_KUEUE_GROUP_NAME ": \"%.63s\" is not a "
                       "group name",
                       name);
    int32_t n;
    if (karmada_workload_parse_count(total, strlen(total), &n) || n == 0)
        return INVALID(w,
                       "pod annotation " KARMADA_WORKLOAD_KUEUE_GROUP_TOTAL ": \"%.32s\" is not a "
                       "positive whole number",
                       total);
    w->group_total = n;
    copy_name(w->group_name, sizeof(w->group_name), name);
    if (w->dialect == KARMADA_WORKLOAD_DIALECT_NONE)
        w->dialect = KARMADA_WORKLOAD_DIALECT_KUEUE;
    return 0;
}

/* ---- PodGroups on the hub, named from the pods: coscheduling's label
 * (kubernetes-sigs/scheduler-plugins apis/scheduling/v1alpha1/types.go PodGroupLabel) and
 * Volcano's annotation (volcano-sh/apis pkg/apis/scheduling/v1beta1/labels.go
 * KubeGroupNameAnnotationKey) ---- */

static int read_named_group(struct karmada_workload *w, json_object *md, const char *where,
                            const char *key, enum karmada_workload_dialect d)
{
    const char *name;
    int rc = pod_str(w, md, where, key, &name);
    if (rc || !name)
        return rc;
    if (!group_name_ok(name))
        return INVALID(w, "pod %s %s: \"%.63s\" is not a PodGroup name", where, key, name);
    if (w->dialect == KARMADA_WORKLOAD_DIALECT_NONE) {
        w->dialect = d;
        copy_name(w->group_name, sizeof(w->group_name), name);
    }
    return 0;
}

/* ---- The Kubernetes Workload API, 1.36 and 1.37 (kubernetes/kubernetes
 * staging/src/k8s.io/api/core/v1 types.go PodSpec.SchedulingGroup,
 * PodSchedulingGroup.PodGroupName; scheduling/v1alpha2 and scheduling/v1beta1 types.go
 * PodGroup, whose spec.schedulingPolicy is the same in both): the pod spec names a PodGroup of
 * its namespace ---- */

static int read_scheduling_group(struct karmada_workload *w, json_object *tmpl)
{
    json_object *ps = w->kind == KARMADA_WORKLOAD_KIND_POD
                          ? kube_json_get(tmpl, "spec")
                          : kube_json_path(tmpl, "spec", "template", "spec", NULL);
    json_object *sg = kube_json_get(ps, KARMADA_WORKLOAD_SCHEDULING_GROUP);
    if (!sg)
        return 0;
    json_object *n = kube_json_get(sg, "podGroupName");
    if (!json_object_is_type(sg, json_type_object) ||
        (n && !json_object_is_type(n, json_type_string)))
        return INVALID(w, "pod spec.schedulingGroup: must be an object whose podGroupName is a "
                          "string");
    if (!n)
        return 0; /* the one member of a union that may grow: nothing muster reads */
    const char *s = json_object_get_string(n);
    size_t len = (size_t)json_object_get_string_len(n);
    int ok = len > 0 && len <= KARMADA_WORKLOAD_NAME_MAX;
    for (size_t i = 0; ok && i < len; i++)
        ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
             ((s[i] == '-' || s[i] == '.') && i > 0 && i < len - 1);
    if (!ok)
        return INVALID(w, "pod spec.schedulingGroup.podGroupName: \"%.63s\" is not a PodGroup name",
                       s);
    if (w->dialect == KARMADA_WORKLOAD_DIALECT_NONE) {
        w->dialect = KARMADA_WORKLOAD_DIALECT_WORKLOAD_API;
        copy_name(w->group_name, sizeof(w->group_name), s);
    }
    return 0;
}

int karmada__workload_read_dialects(struct karmada_workload *w, json_object *tmpl)
{
    json_object *md = pod_meta(w, tmpl);
    if (!md) /* no labels nor annotations; the pod spec may still name its PodGroup */
        return read_scheduling_group(w, tmpl);
    int rc = read_yunikorn(w, md);
    if (!rc &&
        (w->kind == KARMADA_WORKLOAD_KIND_POD || w->kind == KARMADA_WORKLOAD_KIND_STATEFULSET))
        rc = read_kueue(w, md); /* the kinds whose pods Kueue groups by these keys */
    if (!rc)
        rc = read_named_group(w, md, "labels", KARMADA_WORKLOAD_COSCHED_GROUP,
                              KARMADA_WORKLOAD_DIALECT_COSCHEDULING);
    if (!rc)
        rc = read_named_group(w, md, "annotations", KARMADA_WORKLOAD_VOLCANO_GROUP,
                              KARMADA_WORKLOAD_DIALECT_VOLCANO);
    if (!rc)
        rc = read_scheduling_group(w, tmpl);
    return rc;
}

/* ---- The PodGroup itself, on the hub: Volcano's scheduling.volcano.sh/v1beta1 (volcano-sh/apis
 * pkg/apis/scheduling/v1beta1/types.go PodGroupSpec: minMember, minResources, queue,
 * priorityClassName) and coscheduling's scheduling.x-k8s.io/v1alpha1 (kubernetes-sigs/
 * scheduler-plugins apis/scheduling/v1alpha1/types.go PodGroupSpec: minMember, minResources,
 * scheduleTimeoutSeconds) ---- */

/* spec.<key> as a whole number from 0 to INT32_MAX: 0 and *out untouched when absent. */
static int group_int(struct karmada_workload *w, const char *what, json_object *spec,
                     const char *key, int32_t *out)
{
    json_object *v = kube_json_get(spec, key);
    if (!v)
        return 0;
    int64_t n = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
    if (n < 0 || n > INT32_MAX)
        return INVALID(w, "the hub's %s %.63s: spec.%s must be a whole number from 0 to 2^31-1",
                       what, w->group_name, key);
    *out = (int32_t)n;
    return 0;
}

/* spec.<key> as a name of at most cap-1 characters, "" when absent. */
static int group_str(struct karmada_workload *w, const char *what, json_object *spec,
                     const char *key, char *out, size_t cap)
{
    out[0] = '\0';
    json_object *v = kube_json_get(spec, key);
    if (!v)
        return 0;
    size_t n = (size_t)json_object_get_string_len(v);
    const char *s = json_object_get_string(v);
    int ok = json_object_is_type(v, json_type_string) && n < cap;
    for (size_t i = 0; ok && i < n; i++)
        ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
             s[i] == '.';
    if (!ok)
        return INVALID(w,
                       "the hub's %s %.63s: spec.%s must be a name of at most %zu lowercase "
                       "letters, digits, '-' and '.'",
                       what, w->group_name, key, cap - 1);
    copy_name(out, cap, s);
    return 0;
}

/* A Workload API PodGroup's spec.schedulingPolicy: exactly one of gang (minCount, at least 1)
 * and basic (no gang: min-member 1), copied by its controller from the Workload's template. */
static int workload_api_group(struct karmada_workload *w, json_object *spec)
{
    json_object *pol = kube_json_get(spec, "schedulingPolicy");
    json_object *gang = kube_json_get(pol, "gang"), *basic = kube_json_get(pol, "basic");
    json_object *mc = kube_json_get(gang, "minCount");
    int64_t n = json_object_is_type(mc, json_type_int) ? json_object_get_int64(mc) : 0;
    if (!gang == !basic)
        return INVALID(w,
                       "the hub's Workload API PodGroup %.63s: spec.schedulingPolicy must set "
                       "exactly one of gang and basic",
                       w->group_name);
    if (gang && (n < 1 || n > INT32_MAX))
        return INVALID(w,
                       "the hub's Workload API PodGroup %.63s: "
                       "spec.schedulingPolicy.gang.minCount must be a whole number above 0",
                       w->group_name);
    w->group_found = 1;
    w->group_min = gang ? (int32_t)n : 1;
    return 0;
}

int karmada__workload_read_hub_group(struct karmada_workload *w,
                                     const struct karmada_workload_hub *hub, json_object *rb,
                                     json_object *tmpl)
{
    int cos = w->dialect == KARMADA_WORKLOAD_DIALECT_COSCHEDULING;
    int wl = w->dialect == KARMADA_WORKLOAD_DIALECT_WORKLOAD_API;
    if ((!cos && !wl && w->dialect != KARMADA_WORKLOAD_DIALECT_VOLCANO) || !w->group_name[0] ||
        !hub->podgroup)
        return 0;
    if (hub->own_group && strcmp(hub->own_group, w->group_name) == 0)
        return 0; /* muster's own, made in each member: nothing on the hub to wait for */
    /* A PodGroup lives in the namespace of its pods, which is the template's. */
    const char *ns = kube_json_path_str(tmpl, "metadata", "namespace", NULL);
    if (!ns)
        ns = kube_json_path_str(rb, "metadata", "namespace", NULL);
    if (!ns)
        return 0; /* a cluster-scoped binding has no pods of its own to group */
    int served = 0;
    json_object *pg = hub->podgroup(hub->ud, w->dialect, ns, w->group_name, &served);
    const char *what = cos  ? "coscheduling PodGroup"
                       : wl ? "Workload API PodGroup"
                            : "Volcano PodGroup";
    if (!served)
        return 0; /* the CRD is not on the hub: the name alone, as before */
    if (!pg) {
        w->group_found = 0;
        if (cos) /* scheduler-plugins schedules the pods of a missing PodGroup as lone pods
                    (pkg/coscheduling/core/core.go PreFilter): no gang to read, muster's own
                    rows decide */
            return 0;
        /* Volcano's scheduler holds pods until the PodGroup they name exists, and so does
         * kube-scheduler's GangScheduling plugin ("waiting for PodGroup", KEP-5832) */
        return karmada_workload_fail(w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
                                     "waiting for the %s %s/%.63s that its pods name (%s) to be "
                                     "created on the hub",
                                     what, ns, w->group_name,
                                     wl ? "spec.schedulingGroup.podGroupName"
                                        : "annotation " KARMADA_WORKLOAD_VOLCANO_GROUP);
    }
    json_object *spec = kube_json_get(pg, "spec");
    if (spec && !json_object_is_type(spec, json_type_object))
        return INVALID(w, "the hub's %s %.63s: spec must be an object", what, w->group_name);
    if (wl)
        return workload_api_group(w, spec);
    json_object *mr = kube_json_get(spec, "minResources");
    if (mr && !json_object_is_type(mr, json_type_object))
        return INVALID(w, "the hub's %s %.63s: spec.minResources must be an object of quantities",
                       what, w->group_name);
    int32_t min = 0;
    int rc = group_int(w, what, spec, "minMember", &min);
    if (!rc && cos) {
        int32_t t = 0;
        rc = group_int(w, what, spec, "scheduleTimeoutSeconds", &t);
        if (!rc && t > 0 && !w->gang_timeout_s)
            w->gang_timeout_s = t;
    } else if (!rc) {
        rc = group_str(w, what, spec, "queue", w->group_queue, sizeof(w->group_queue));
        if (!rc && strcmp(w->group_queue, "default") == 0)
            w->group_queue[0] = '\0'; /* the CRD's default: every PodGroup naming none has it */
        if (!rc)
            rc = group_str(w, what, spec, "priorityClassName", w->group_priority_class,
                           sizeof(w->group_priority_class));
    }
    if (rc)
        return rc;
    w->group_found = 1;
    w->group_min = min;
    return 0;
}
