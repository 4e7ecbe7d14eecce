/* Typed reads of JSON objects (json-c): the one set of getters for Kubernetes objects, API
 * replies and test fixtures, so "the string at key, or NULL" is written once. None of them
 * allocates or takes a reference: a returned object or string is borrowed from o and lives as
 * long as o does. Every getter accepts o == NULL or o not an object and then finds nothing. */
#ifndef MUSTER_KUBE_JSON_H
#define MUSTER_KUBE_JSON_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

/* kube_json_bool's answer when the key is absent or not a boolean (JSON null included). */
#define KUBE_JSON_ABSENT (-1)

/* The value at key whatever its type (a JSON null is NULL too); NULL when absent. */
struct json_object *kube_json_get(struct json_object *o, const char *key);

/* The string at key; NULL when absent or not a string. */
const char *kube_json_str(struct json_object *o, const char *key);

/* The object at key; NULL when absent or not an object. */
struct json_object *kube_json_obj(struct json_object *o, const char *key);

/* The array at key; NULL when absent or not an array. */
struct json_object *kube_json_arr(struct json_object *o, const char *key);

/* 1 or 0 for true or false at key; KUBE_JSON_ABSENT when absent or not a boolean. */
int kube_json_bool(struct json_object *o, const char *key);

/* The integer at key into *out: 0, or MUSTER_ENOENT when absent (or null), MUSTER_EINVAL when
 * not an integer (a string or a number with a fraction is not one); *out is untouched then.
 * Integers beyond int64 are clamped by json-c to INT64_MIN/INT64_MAX. */
int kube_json_int64(struct json_object *o, const char *key, int64_t *out);

/* 1 when the array list (NULL or not an array: none) holds the string s (NULL: never). */
int kube_json_has_str(struct json_object *list, const char *s);

/* The value at the path of keys (o.k1.k2...), any type; the list ends at the first NULL:
 * kube_json_path(obj, "metadata", "labels", NULL). NULL when a step is absent or not an object. */
struct json_object *kube_json_path(struct json_object *o, const char *key, ...)
    __attribute__((sentinel));

/* The same with n keys in an array (a NULL key also ends the path). */
struct json_object *kube_json_pathv(struct json_object *o, const char *const *keys, size_t n);

/* The string at the path; NULL when absent or not a string. */
const char *kube_json_path_str(struct json_object *o, const char *key, ...)
    __attribute__((sentinel));

/* Building an object: each helper takes a sticky failure flag, so a builder is a straight list
 * of adds and one check of *bad at the end. A value is linked into its parent as soon as it
 * exists, so releasing the root on failure releases everything. Once *bad is set, or when o or
 * v is NULL (a constructor that failed), v is released, *bad set, and NULL returned; otherwise
 * the value added (borrowed from its parent). */
struct json_object *kube_json_add(struct json_object *o, const char *key, struct json_object *v,
                                  int *bad);
struct json_object *kube_json_push(struct json_object *list, struct json_object *v, int *bad);
/* s NULL fails, as a failed constructor does. */
struct json_object *kube_json_add_str(struct json_object *o, const char *key, const char *s,
                                      int *bad);
/* A new empty object at key. */
struct json_object *kube_json_add_obj(struct json_object *o, const char *key, int *bad);

/* The value of hex digit c (0-9, a-f, A-F), or -1: \u escapes, percent-encoding. */
int kube_hex_digit(char c);

#endif
