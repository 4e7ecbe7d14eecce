/* YAML documents read into json-c trees: CRDs, scenario files, test fixtures. One reader for
 * all of them, so every YAML muster or muster-sim reads is typed the same way. */
#ifndef MUSTER_KUBE_YAML_H
#define MUSTER_KUBE_YAML_H

#include <json-c/json.h>
#include <stddef.h>

#define KUBE_YAML_MAX_BYTES (16 * 1024 * 1024) /* a YAML file read whole */
#define KUBE_YAML_MAX_DEPTH 256                /* nesting of one document */

/* Parses YAML text (len bytes, one or more documents) into a new JSON array with one element per
 * document, using YAML 1.2 core-schema scalars (plain true/false/null/numbers are typed, quoted
 * scalars are strings). name labels messages. Aliases, non-string keys and nesting beyond
 * KUBE_YAML_MAX_DEPTH are refused. Returns 0 and stores the array in *docs (release with
 * json_object_put), or MUSTER_EINVAL / MUSTER_ELIMIT (over KUBE_YAML_MAX_BYTES) /
 * MUSTER_ENOMEM with a message in err and *docs NULL. */
int kube_yaml_parse(const char *text, size_t len, const char *name, json_object **docs, char *err,
                    size_t errcap);

/* kube_yaml_parse on the file at path (at most KUBE_YAML_MAX_BYTES). Also returns
 * MUSTER_ENOENT, MUSTER_EIO or MUSTER_ELIMIT for file problems. */
int kube_yaml_read(const char *path, json_object **docs, char *err, size_t errcap);

#endif
