/* Label and field selectors in the syntax of k8s.io/apimachinery/pkg/labels and pkg/fields. */
#ifndef MUSTER_SIM_SELECTOR_H
#define MUSTER_SIM_SELECTOR_H

#include <json-c/json.h>
#include <stddef.h>

struct sim_selector;

/* Parses a label selector ("a=b,c!=d,e in (x,y),f notin (z),g,!h,n>3") into *out (caller frees
 * with sim_selector_free). An empty or NULL string selects everything. Returns 0, MUSTER_EINVAL
 * with a message in err (as kube-apiserver words it) or MUSTER_ENOMEM. */
int sim_selector_parse_labels(const char *s, struct sim_selector **out, char *err, size_t errcap);

/* Parses a field selector ("metadata.name=x,metadata.namespace!=y"; only =, == and !=). Same
 * contract as sim_selector_parse_labels. */
int sim_selector_parse_fields(const char *s, struct sim_selector **out, char *err, size_t errcap);

/* 1 when obj matches: label selectors test metadata.labels, field selectors test the string at
 * each dotted path (a missing field is ""). A NULL selector matches everything. */
int sim_selector_matches(const struct sim_selector *sel, json_object *obj);

/* The number of requirements and the key of the i-th, so callers can reject unsupported field
 * labels. */
size_t sim_selector_count(const struct sim_selector *sel);
const char *sim_selector_key(const struct sim_selector *sel, size_t i);

/* The value a field selector requires with "=" for key, or NULL: lets a list narrow its scan. */
const char *sim_selector_equals(const struct sim_selector *sel, const char *key);

void sim_selector_free(struct sim_selector *sel);

#endif
