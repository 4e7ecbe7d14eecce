/* The hub paths of Karmada's objects (see paths.h), on kube_path. */
#include "cluster-adapters/karmada/paths.h"

#include "cluster-adapters/karmada/workload.h"
#include "cluster-adapters/kube/client.h"
#include "queue/errors.h"

#include <stdio.h>
#include <string.h>

#define RB_GROUP "work.karmada.io"
#define RB_VERSION "v1alpha2"
#define WORK_GROUP "work.karmada.io"
#define WORK_VERSION "v1alpha1"
#define POLICY_GROUP "policy.karmada.io"
#define POLICY_VERSION "v1alpha1"
/* A namespace is a DNS label (63) and a cluster name at most a DNS subdomain (253). */
#define NAMESPACE_MAX 320

static int named(const char *s)
{
    return s && *s;
}

int karmada_path_rb(char *buf, size_t cap, const char *ns, const char *name)
{
    if (!named(ns) || !named(name))
        return MUSTER_EINVAL;
    return kube_path(buf, cap, RB_GROUP, RB_VERSION, ns, "resourcebindings", name);
}

int karmada_path_rb_status(char *buf, size_t cap, const char *ns, const char *name)
{
    int rc = karmada_path_rb(buf, cap, ns, name);
    if (rc)
        return rc;
    size_t len = strlen(buf);
    int n = snprintf(buf + len, cap - len, "/%s", KARMADA_PATH_RB_STATUS);
    if (n < 0 || (size_t)n >= cap - len) {
        buf[0] = '\0';
        return MUSTER_ENOSPC;
    }
    return 0;
}

int karmada_path_execution_namespace(char *buf, size_t cap, const char *cluster)
{
    if (!buf || cap == 0 || !named(cluster))
        return MUSTER_EINVAL;
    int n = snprintf(buf, cap, KARMADA_PATH_EXECUTION_PREFIX "%s", cluster);
    if (n < 0 || (size_t)n >= cap) {
        buf[0] = '\0';
        return MUSTER_ENOSPC;
    }
    return 0;
}

const char *karmada_path_execution_cluster(const char *ns)
{
    size_t n = strlen(KARMADA_PATH_EXECUTION_PREFIX);
    if (!ns || strncmp(ns, KARMADA_PATH_EXECUTION_PREFIX, n) != 0 || !ns[n])
        return NULL;
    return ns + n;
}

int karmada_path_work(char *buf, size_t cap, const char *cluster, const char *name)
{
    char ns[NAMESPACE_MAX];
    int rc = karmada_path_execution_namespace(ns, sizeof ns, cluster);
    if (rc)
        return rc;
    if (name && !*name)
        return MUSTER_EINVAL;
    return kube_path(buf, cap, WORK_GROUP, WORK_VERSION, ns, "works", name);
}

int karmada_path_works(char *buf, size_t cap)
{
    return kube_path(buf, cap, WORK_GROUP, WORK_VERSION, NULL, "works", NULL);
}

int karmada_path_works_selector(char *buf, size_t cap, const char *permanent_id)
{
    if (!buf || cap == 0 || !named(permanent_id))
        return MUSTER_EINVAL;
    int n = snprintf(buf, cap, "%s=%s", KARMADA_WORKLOAD_PERMANENT_ID_LABEL, permanent_id);
    if (n < 0 || (size_t)n >= cap) {
        buf[0] = '\0';
        return MUSTER_ENOSPC;
    }
    return 0;
}

int karmada_path_policy(char *buf, size_t cap, const char *ns, const char *name)
{
    if (!named(ns) || (name && !*name))
        return MUSTER_EINVAL;
    return kube_path(buf, cap, POLICY_GROUP, POLICY_VERSION, ns, "overridepolicies", name);
}
