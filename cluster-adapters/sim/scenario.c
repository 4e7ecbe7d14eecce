/* Scenario files: one YAML mapping, read by kube/yaml.c (see scenario.h). */
#include "cluster-adapters/sim/scenario.h"

#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/file.h"
#include "cluster-adapters/kube/yaml.h"
#include "queue/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim_scenario_parse(const char *name, const char *yaml, size_t len, json_object **out, char *err,
                       size_t errcap)
{
    json_object *docs = NULL;
    int rc = kube_yaml_parse(yaml, len, name, &docs, err, errcap);
    if (rc < 0)
        return rc;
    json_object *doc =
        json_object_array_length(docs) == 1 ? json_object_array_get_idx(docs, 0) : NULL;
    if (!json_object_is_type(doc, json_type_object)) {
        snprintf(err, errcap, "%s: a scenario is one YAML mapping", name);
        json_object_put(docs);
        return MUSTER_EINVAL;
    }
    *out = json_object_get(doc);
    json_object_put(docs);
    return 0;
}

int sim_scenario_load(const char *path, json_object **out, char *err, size_t errcap)
{
    /* Scenarios are small; a cap keeps a wrong path (a disk image, say) from being slurped. */
    enum { SCENARIO_MAX_BYTES = 16 * 1024 * 1024 };
    char *buf, why[128];
    size_t n;
    int rc = kube_file_read(path, SCENARIO_MAX_BYTES, &buf, &n, why, sizeof(why));
    if (rc == MUSTER_ENOMEM)
        return rc;
    if (rc == MUSTER_ELIMIT) {
        snprintf(err, errcap, "%s: %s", path, why); /* "larger than N bytes" */
        return MUSTER_ETOOBIG;
    }
    if (rc) {
        snprintf(err, errcap, "%s: %s", path, why);
        return MUSTER_EIO;
    }
    rc = sim_scenario_parse(path, buf, n, out, err, errcap);
    muster_free(buf);
    return rc;
}
