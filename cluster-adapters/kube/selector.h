/* Kubernetes label selectors (metav1.LabelSelector: matchLabels and matchExpressions with In,
 * NotIn, Exists, DoesNotExist), checked as the apiserver's validation does and matched as
 * apimachinery's labels.Selector does. They come from outside (a queue's namespaceSelector, a
 * placement's clusterAffinity), so the check bounds them before anything matches. */
#ifndef MUSTER_KUBE_SELECTOR_H
#define MUSTER_KUBE_SELECTOR_H

#include <stddef.h>

struct json_object;

/* At most this many labels plus expressions in one selector, and values in one expression. */
#define KUBE_SELECTOR_TERMS_MAX 64

/* Checks sel as a LabelSelector: an object with only matchLabels (label keys to label values)
 * and matchExpressions ({key, operator, values}: values non-empty for In and NotIn, empty for
 * Exists and DoesNotExist). Keys are qualified names (an optional DNS-subdomain prefix and '/',
 * then at most 63 of [A-Za-z0-9-_.], alphanumeric at both ends), values label values. 0, or
 * MUSTER_EINVAL (MUSTER_ELIMIT past the bounds) with why = "<path>.<field>: <rule>". */
int kube_selector_check(struct json_object *sel, const char *path, char *why, size_t cap);

/* Whether labels (a JSON object of strings; NULL: no labels) satisfy the checked selector sel.
 * An empty selector, {} , matches everything (metav1's rule); sel NULL matches everything too.
 * When it does not, why (if given) says the first term that fails: "label team is not nlp",
 * "label tier does not satisfy NotIn [gpu]". Returns 1 or 0. */
int kube_selector_matches(struct json_object *sel, struct json_object *labels, char *why,
                          size_t cap);

/* Whether s is a valid label key (a qualified name) / label value. */
int kube_label_key_valid(const char *s);
int kube_label_value_valid(const char *s);

#endif
