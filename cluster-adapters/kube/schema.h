/* Validates Kubernetes objects against a CRD's OpenAPI v3 schema the way the apiserver does. */
#ifndef MUSTER_KUBE_SCHEMA_H
#define MUSTER_KUBE_SCHEMA_H

#include <json-c/json.h>
#include <stddef.h>

/* Caps. The largest reference CRD (Volcano Job) is about 220 KiB and nests its schema about 40
 * levels deep; anything far past these is a mistake or an attack, not a schema or an object. */
#define KUBE_SCHEMA_MAX_FILE_BYTES (16 * 1024 * 1024)
#define KUBE_SCHEMA_MAX_YAML_DEPTH 256 /* YAML nesting while loading a CRD file */
#define KUBE_SCHEMA_MAX_DEPTH 128      /* schema nesting, and validation recursion per object */
#define KUBE_SCHEMA_MAX_ERRORS 100     /* messages kept per validation; the rest are counted */
#define KUBE_SCHEMA_MAX_PATH 512       /* bytes of one field path in a message */

/* A loaded schema: an immutable tree (a graph when swagger $refs recur), safe to share between
 * threads for validation once loaded. */
struct kube_schema;

/* What one validation found. Messages read like the apiserver's field errors:
 * "spec.clusters[0].replicas: Invalid value: \"x\": must be of type integer". */
struct kube_schema_errors {
    char **msgs;    /* count messages, owned by the struct */
    size_t count;   /* at most KUBE_SCHEMA_MAX_ERRORS */
    size_t dropped; /* errors found past the cap and not kept */
    size_t cap;
};

/* Loads the CustomResourceDefinition (apiextensions.k8s.io/v1) in the YAML file at path and
 * builds the schema of spec.versions[] entry `version` (its schema.openAPIV3Schema). On success
 * stores a new schema in *out (free with kube_schema_free) and returns 0. On failure returns
 * MUSTER_ENOENT (no file, no such version), MUSTER_EINVAL (not a CRD, bad YAML, a schema this
 * module cannot represent), MUSTER_ELIMIT, MUSTER_EIO or MUSTER_ENOMEM, leaves *out NULL and
 * writes a message naming the file and the place into err. */
int kube_schema_load_crd(const char *path, const char *version, struct kube_schema **out, char *err,
                         size_t errcap);

/* kube_schema_load_crd on CRD YAML already in memory (len bytes); name labels messages. Same
 * contract, without the file errors. */
int kube_schema_parse_crd(const char *text, size_t len, const char *name, const char *version,
                          struct kube_schema **out, char *err, size_t errcap);

/* Loads a swagger-style definitions map (a JSON object of name -> schema, or a document with a
 * "definitions" object) and builds the schema of `definition` (for example
 * "com.github.karmada-io.karmada.pkg.apis.cluster.v1alpha1.Cluster"), resolving
 * "#/definitions/..." $refs. Refs to a few apimachinery types that such extracts leave out
 * (ObjectMeta, ListMeta, Condition, Time, Quantity, core/v1 Taint) resolve to built-in schemas;
 * any other unresolved $ref fails the load. Same contract as kube_schema_load_crd. */
int kube_schema_load_swagger(const char *path, const char *definition, struct kube_schema **out,
                             char *err, size_t errcap);

/* Validates obj (not modified, may be NULL for JSON null) against s. errs must have been set up
 * with kube_schema_errors_init; new messages are appended. Returns 0 when obj is valid,
 * MUSTER_EINVAL when it is not (errs holds at least one message), MUSTER_ENOMEM when recording
 * a message failed (the verdict is then unknown). */
int kube_schema_validate(const struct kube_schema *s, json_object *obj,
                         struct kube_schema_errors *errs);

/* The apiVersion ("work.karmada.io/v1alpha2") and kind ("ResourceBinding") the schema was loaded
 * for; "" when the source did not say. Owned by s. */
const char *kube_schema_api_version(const struct kube_schema *s);
const char *kube_schema_kind(const struct kube_schema *s);

/* How many `pattern`s in the schema could not be translated to a POSIX extended regex (RE2-only
 * syntax such as (?i) or \b) and are therefore not checked. 0 for every reference CRD. */
size_t kube_schema_unchecked_patterns(const struct kube_schema *s);

/* Frees s and everything it owns. kube_schema_free(NULL) is a no-op. */
void kube_schema_free(struct kube_schema *s);

/* Sets up an empty error list / frees its messages and zeroes it (safe on a zeroed struct). */
void kube_schema_errors_init(struct kube_schema_errors *errs);
void kube_schema_errors_close(struct kube_schema_errors *errs);

#endif
