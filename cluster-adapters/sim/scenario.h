/* Scenario files (deploy/scenarios/NAME.yaml): YAML read with libyaml into a json-c tree, so the
 * rest of the simulator sees scenarios the way it sees API objects. */
#ifndef MUSTER_SIM_SCENARIO_H
#define MUSTER_SIM_SCENARIO_H

#include <json-c/json.h>
#include <stddef.h>

/* Reads the YAML document at path into *out (caller owns it), as kube_yaml_parse types it
 * (YAML 1.2 core schema: plain integers, floats, true/false and null typed; quoted scalars stay
 * strings; duplicate keys and aliases refused).
 * Returns 0, MUSTER_EIO (file unreadable) or MUSTER_EINVAL (bad YAML); err then names the
 * file and line. */
int sim_scenario_load(const char *path, json_object **out, char *err, size_t errcap);

/* Same, from a string (name is used in messages). */
int sim_scenario_parse(const char *name, const char *yaml, size_t len, json_object **out, char *err,
                       size_t errcap);

#endif
