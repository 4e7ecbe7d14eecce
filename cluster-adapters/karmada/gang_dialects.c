/* Member gang dialects: names and detection (gang_dialects.h). */
#include "cluster-adapters/karmada/gang_dialects.h"

#include "cluster-adapters/karmada/workload_clusters.h"
#include "queue/errors.h"

#include <string.h>

static const char *const dialect_names[] = {
    [KARMADA_GANG_DIALECT_VOLCANO] = "volcano",
    [KARMADA_GANG_DIALECT_COSCHEDULING] = "coscheduling",
    [KARMADA_GANG_DIALECT_YUNIKORN] = "yunikorn",
    [KARMADA_GANG_DIALECT_NONE] = "none",
    [KARMADA_GANG_DIALECT_WORKLOAD_API] = "workload-api",
};
#define NDIALECTS (sizeof dialect_names / sizeof dialect_names[0])

const char *karmada_gang_dialect_name(enum karmada_gang_dialect d)
{
    return (unsigned)d < NDIALECTS ? dialect_names[d] : NULL;
}

int karmada_gang_dialect_parse(const char *s, enum karmada_gang_dialect *out)
{
    for (unsigned i = 0; s && i < NDIALECTS; i++)
        if (strcmp(s, dialect_names[i]) == 0) {
            *out = (enum karmada_gang_dialect)i;
            return 0;
        }
    return MUSTER_EINVAL;
}

enum karmada_gang_dialect karmada_gang_dialect_detect(json_object *cluster)
{
    /* -1: no apiEnablements reported yet (not collected): not judged, as before dialects */
    if (karmada_workload_cluster_serves(cluster, "scheduling.volcano.sh/v1beta1", "podgroups") != 0)
        return KARMADA_GANG_DIALECT_VOLCANO;
    if (karmada_workload_cluster_serves(cluster, "scheduling.x-k8s.io/v1alpha1", "podgroups") > 0)
        return KARMADA_GANG_DIALECT_COSCHEDULING;
    if (karmada_workload_cluster_serves(cluster, KARMADA_GANG_WL_API_VERSION, "podgroups") > 0 ||
        karmada_workload_cluster_serves(cluster, KARMADA_GANG_WL_API_VERSION_V1ALPHA2,
                                        "podgroups") > 0)
        return KARMADA_GANG_DIALECT_WORKLOAD_API;
    return KARMADA_GANG_DIALECT_NONE;
}

enum karmada_gang_wl_version karmada_gang_wl_version_detect(json_object *cluster)
{
    /* v1beta1 first: no release serves both (1.37 added v1beta1 and removed v1alpha2), but a
     * Cluster whose apiEnablements list both takes the version that stays */
    if (karmada_workload_cluster_serves(cluster, KARMADA_GANG_WL_API_VERSION, "podgroups") > 0)
        return KARMADA_GANG_WL_V1BETA1;
    if (karmada_workload_cluster_serves(cluster, KARMADA_GANG_WL_API_VERSION_V1ALPHA2,
                                        "podgroups") > 0)
        return KARMADA_GANG_WL_V1ALPHA2;
    return KARMADA_GANG_WL_V1BETA1;
}

const char *karmada_gang_wl_api_version(enum karmada_gang_wl_version v)
{
    return v == KARMADA_GANG_WL_V1BETA1    ? KARMADA_GANG_WL_API_VERSION
           : v == KARMADA_GANG_WL_V1ALPHA2 ? KARMADA_GANG_WL_API_VERSION_V1ALPHA2
                                           : NULL;
}

const char *karmada_gang_wl_scheduled_condition(enum karmada_gang_wl_version v)
{
    return v == KARMADA_GANG_WL_V1BETA1    ? KARMADA_GANG_WL_SCHEDULED
           : v == KARMADA_GANG_WL_V1ALPHA2 ? KARMADA_GANG_WL_SCHEDULED_V1ALPHA2
                                           : NULL;
}

int karmada_gang_dialect_gangs(enum karmada_gang_dialect d)
{
    return d != KARMADA_GANG_DIALECT_NONE && (unsigned)d < NDIALECTS;
}

int karmada_gang_dialect_has_work(enum karmada_gang_dialect d)
{
    return d == KARMADA_GANG_DIALECT_VOLCANO || d == KARMADA_GANG_DIALECT_COSCHEDULING ||
           d == KARMADA_GANG_DIALECT_WORKLOAD_API;
}
