/* --validate-writes (see validate.h and docs/sim.md). */
#include "cluster-adapters/sim/validate.h"

#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/status.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <stdio.h>
#include <string.h>

enum { V_RB, V_WORK, V_OP, V_PG, V_COPG, V_WLPG, V_WLPG_B, V_N };

static const struct {
    const char *group, *plural, *file, *version;
} crds[V_N] = {
    [V_RB] = {"work.karmada.io", "resourcebindings",
              "karmada_work.karmada.io_resourcebindings.yaml", "v1alpha2"},
    [V_WORK] = {"work.karmada.io", "works", "karmada_work.karmada.io_works.yaml", "v1alpha1"},
    [V_OP] = {"policy.karmada.io", "overridepolicies",
              "karmada_policy.karmada.io_overridepolicies.yaml", "v1alpha1"},
    [V_PG] = {"scheduling.volcano.sh", "podgroups", "volcano_scheduling.volcano.sh_podgroups.yaml",
              "v1beta1"},
    [V_COPG] = {"scheduling.x-k8s.io", "podgroups",
                "schedulerplugins_scheduling.x-k8s.io_podgroups.yaml", "v1alpha1"},
    /* the Workload API's built-in alpha PodGroup: a schema written from its types.go (the file's
     * header says so; Kubernetes ships no CRD for it) */
    [V_WLPG] = {"scheduling.k8s.io", "podgroups", "kubernetes_scheduling.k8s.io_podgroups.yaml",
                "v1alpha2"},
    /* and its beta (Kubernetes 1.37), in the same file */
    [V_WLPG_B] = {"scheduling.k8s.io", "podgroups", "kubernetes_scheduling.k8s.io_podgroups.yaml",
                  "v1beta1"},
};

struct sim_validator {
    struct kube_schema *schema[V_N];
    int64_t checked, rejected;
    char last[512];
};

int sim_validator_new(const char *dir, struct sim_validator **out, char *err, size_t errcap)
{
    *out = NULL;
    struct sim_validator *v = muster_calloc(1, sizeof(*v));
    if (!v)
        return MUSTER_ENOMEM;
    for (int i = 0; i < V_N; i++) {
        char path[4096], e[512] = "";
        snprintf(path, sizeof(path), "%s/%s", dir, crds[i].file);
        int rc = kube_schema_load_crd(path, crds[i].version, &v->schema[i], e, sizeof(e));
        if (rc < 0) {
            snprintf(err, errcap, "--validate-writes: %s", e[0] ? e : path);
            sim_validator_free(v);
            return rc;
        }
    }
    *out = v;
    return 0;
}

void sim_validator_free(struct sim_validator *v)
{
    if (!v)
        return;
    for (int i = 0; i < V_N; i++)
        kube_schema_free(v->schema[i]);
    muster_free(v);
}

static int which(const struct sim_resource *r)
{
    for (int i = 0; i < V_N; i++)
        if (strcmp(r->group, crds[i].group) == 0 && strcmp(r->plural, crds[i].plural) == 0 &&
            strcmp(r->version, crds[i].version) == 0)
            return i;
    return -1;
}

int sim_validator_covers(const struct sim_validator *v, const struct sim_resource *r)
{
    return v && which(r) >= 0;
}

/* Validates obj against schema i; appends messages (prefixed) to errs. */
static void check_one(struct sim_validator *v, int i, json_object *obj, const char *prefix,
                      struct kube_schema_errors *errs)
{
    struct kube_schema_errors mine;
    kube_schema_errors_init(&mine);
    if (kube_schema_validate(v->schema[i], obj, &mine) != 0 && mine.count == 0)
        mine.dropped++;
    for (size_t k = 0; k < mine.count; k++) {
        if (errs->count >= KUBE_SCHEMA_MAX_ERRORS)
            break;
        size_t n = strlen(prefix) + strlen(mine.msgs[k]) + 1;
        char *m = muster_malloc(n);
        if (!m)
            break;
        snprintf(m, n, "%s%s", prefix, mine.msgs[k]);
        if (errs->count == errs->cap) {
            size_t cap = errs->cap ? errs->cap * 2 : 8;
            char **nm = muster_realloc(errs->msgs, cap * sizeof(*nm));
            if (!nm) {
                muster_free(m);
                break;
            }
            errs->msgs = nm;
            errs->cap = cap;
        }
        errs->msgs[errs->count++] = m;
    }
    errs->dropped += mine.dropped;
    kube_schema_errors_close(&mine);
}

json_object *sim_validator_check(struct sim_validator *v, const struct sim_resource *r,
                                 json_object *obj)
{
    int i = v ? which(r) : -1;
    if (i < 0)
        return NULL;
    v->checked++;
    struct kube_schema_errors errs;
    kube_schema_errors_init(&errs);
    check_one(v, i, obj, "", &errs);
    if (i == V_WORK) {
        /* Each PodGroup manifest is an object of its own kind: checked against its CRD. */
        json_object *spec = NULL, *wl = NULL, *mans = NULL;
        if (json_object_object_get_ex(obj, "spec", &spec) &&
            json_object_object_get_ex(spec, "workload", &wl) &&
            json_object_object_get_ex(wl, "manifests", &mans) &&
            json_object_is_type(mans, json_type_array)) {
            for (size_t k = 0; k < json_object_array_length(mans); k++) {
                json_object *m = json_object_array_get_idx(mans, k), *av = NULL, *kind = NULL;
                if (!json_object_object_get_ex(m, "apiVersion", &av) ||
                    !json_object_object_get_ex(m, "kind", &kind))
                    continue;
                const char *a = json_object_get_string(av);
                int pgi = strncmp(a, "scheduling.volcano.sh/", 22) == 0  ? V_PG
                          : strncmp(a, "scheduling.x-k8s.io/", 20) == 0  ? V_COPG
                          : strcmp(a, "scheduling.k8s.io/v1alpha2") == 0 ? V_WLPG
                          : strcmp(a, "scheduling.k8s.io/v1beta1") == 0  ? V_WLPG_B
                                                                         : -1;
                if (pgi < 0 || strcmp(json_object_get_string(kind), "PodGroup") != 0)
                    continue;
                char prefix[64];
                snprintf(prefix, sizeof(prefix), "spec.workload.manifests[%zu].", k);
                v->checked++;
                size_t before = errs.count + errs.dropped;
                check_one(v, pgi, m, prefix, &errs);
                if (errs.count + errs.dropped > before)
                    v->rejected++;
            }
        }
    }
    json_object *st = NULL;
    if (errs.count || errs.dropped) {
        v->rejected++;
        json_object *md = NULL, *name = NULL;
        const char *nm = "";
        if (json_object_object_get_ex(obj, "metadata", &md) &&
            json_object_object_get_ex(md, "name", &name))
            nm = json_object_get_string(name);
        const char *first = errs.count ? errs.msgs[0] : "invalid (messages dropped)";
        snprintf(v->last, sizeof(v->last), "%s.%s \"%s\": %s", r->plural, r->group, nm, first);
        /* kube-apiserver: `Kind.group "name" is invalid: [field: ..., ...]` */
        char msg[2048];
        int off = snprintf(msg, sizeof(msg), "%s.%s \"%s\" is invalid: ", r->kind, r->group, nm);
        for (size_t k = 0; k < errs.count && off > 0 && (size_t)off < sizeof(msg); k++)
            off +=
                snprintf(msg + off, sizeof(msg) - (size_t)off, "%s%s", k ? ", " : "", errs.msgs[k]);
        st = sim_status_new(422, "Invalid", msg, NULL, NULL);
        if (st) {
            for (size_t k = 0; k < errs.count; k++) {
                /* The field is what precedes ": " in the message. */
                char field[KUBE_SCHEMA_MAX_PATH + 1];
                const char *colon = strstr(errs.msgs[k], ": ");
                size_t n = colon ? (size_t)(colon - errs.msgs[k]) : 0;
                if (n >= sizeof(field))
                    n = sizeof(field) - 1;
                memcpy(field, errs.msgs[k], n);
                field[n] = '\0';
                sim_status_add_cause(st, "FieldValueInvalid", errs.msgs[k], field);
            }
        }
    }
    kube_schema_errors_close(&errs);
    return st;
}

json_object *sim_validator_report(const struct sim_validator *v)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    json_object_object_add(o, "checked", json_object_new_int64(v ? v->checked : 0));
    json_object_object_add(o, "rejected", json_object_new_int64(v ? v->rejected : 0));
    json_object_object_add(o, "last", json_object_new_string(v ? v->last : ""));
    return o;
}
