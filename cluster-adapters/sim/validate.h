/* --validate-writes: the simulated hub checks what clients write against the CRD schemas, as
 * kube-apiserver does for custom resources. Covered: resourcebindings (main and /status),
 * works (and every PodGroup manifest inside one), overridepolicies and podgroups. The object
 * checked is the one the write would store (a merge or JSON patch already applied). */
#ifndef MUSTER_SIM_VALIDATE_H
#define MUSTER_SIM_VALIDATE_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

struct sim_resource;
struct sim_validator;

/* Loads the CRDs from dir (the file names of tests/fixtures/reference/crds/). Returns 0 and
 * *out, or a MUSTER_* code with a message in err. */
int sim_validator_new(const char *dir, struct sim_validator **out, char *err, size_t errcap);
void sim_validator_free(struct sim_validator *v);

/* Whether writes to r are checked. */
int sim_validator_covers(const struct sim_validator *v, const struct sim_resource *r);

/* Checks obj, the object a write to r would store, and counts it. Returns NULL when valid (or
 * not covered), else a new 422 Invalid Status naming the field (the caller owns it). */
json_object *sim_validator_check(struct sim_validator *v, const struct sim_resource *r,
                                 json_object *obj);

/* {"checked": N, "rejected": M, "last": "..."}: last is the latest rejection's first message. */
json_object *sim_validator_report(const struct sim_validator *v);

#endif
