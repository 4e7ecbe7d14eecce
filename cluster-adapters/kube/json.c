/* The typed JSON getters of kube/json.h over json-c. */
#include "cluster-adapters/kube/json.h"

#include "cluster-adapters/kube/errors.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <string.h>

struct json_object *kube_json_get(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    /* json_object_object_get_ex is false for a non-object o, and for NULL. */
    if (!o || !key || !json_object_object_get_ex(o, key, &v))
        return NULL;
    return v;
}

static struct json_object *typed(struct json_object *o, const char *key, enum json_type type)
{
    struct json_object *v = kube_json_get(o, key);
    return v && json_object_is_type(v, type) ? v : NULL;
}

const char *kube_json_str(struct json_object *o, const char *key)
{
    struct json_object *v = typed(o, key, json_type_string);
    return v ? json_object_get_string(v) : NULL;
}

struct json_object *kube_json_obj(struct json_object *o, const char *key)
{
    return typed(o, key, json_type_object);
}

struct json_object *kube_json_arr(struct json_object *o, const char *key)
{
    return typed(o, key, json_type_array);
}

int kube_json_bool(struct json_object *o, const char *key)
{
    struct json_object *v = typed(o, key, json_type_boolean);
    return v ? (json_object_get_boolean(v) ? 1 : 0) : KUBE_JSON_ABSENT;
}

int kube_json_int64(struct json_object *o, const char *key, int64_t *out)
{
    struct json_object *v = kube_json_get(o, key);
    if (!v)
        return MUSTER_ENOENT;
    if (!json_object_is_type(v, json_type_int))
        return MUSTER_EINVAL;
    *out = json_object_get_int64(v);
    return 0;
}

static struct json_object *path_va(struct json_object *o, const char *key, va_list ap)
{
    struct json_object *v = o;
    for (; key && v; key = va_arg(ap, const char *))
        v = kube_json_get(v, key);
    return v;
}

struct json_object *kube_json_path(struct json_object *o, const char *key, ...)
{
    va_list ap;
    va_start(ap, key);
    struct json_object *v = path_va(o, key, ap);
    va_end(ap);
    return v;
}

struct json_object *kube_json_pathv(struct json_object *o, const char *const *keys, size_t n)
{
    struct json_object *v = o;
    for (size_t i = 0; i < n && keys[i] && v; i++)
        v = kube_json_get(v, keys[i]);
    return v;
}

const char *kube_json_path_str(struct json_object *o, const char *key, ...)
{
    va_list ap;
    va_start(ap, key);
    struct json_object *v = path_va(o, key, ap);
    va_end(ap);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

struct json_object *kube_json_add(struct json_object *o, const char *key, struct json_object *v,
                                  int *bad)
{
    if (*bad || !o || !v || json_object_object_add(o, key, v)) {
        json_object_put(v);
        *bad = 1;
        return NULL;
    }
    return v;
}

struct json_object *kube_json_push(struct json_object *list, struct json_object *v, int *bad)
{
    if (*bad || !list || !v || json_object_array_add(list, v)) {
        json_object_put(v);
        *bad = 1;
        return NULL;
    }
    return v;
}

struct json_object *kube_json_add_str(struct json_object *o, const char *key, const char *s,
                                      int *bad)
{
    return kube_json_add(o, key, s ? json_object_new_string(s) : NULL, bad);
}

struct json_object *kube_json_add_obj(struct json_object *o, const char *key, int *bad)
{
    return kube_json_add(o, key, json_object_new_object(), bad);
}

int kube_json_has_str(struct json_object *list, const char *s)
{
    size_t n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
    for (size_t i = 0; s && i < n; i++) {
        json_object *v = json_object_array_get_idx(list, i);
        if (json_object_is_type(v, json_type_string) && strcmp(json_object_get_string(v), s) == 0)
            return 1;
    }
    return 0;
}

int kube_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
