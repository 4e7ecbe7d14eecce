/* Merge patch and JSON patch, written against the RFCs' texts (RFC 7386 section 2, RFC 6902
 * section 4) and the behaviour of evanphx/json-patch, which kube-apiserver uses. */
#include "cluster-adapters/sim/patch.h"

#include "cluster-adapters/kube/json.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_object *copy_of(json_object *v)
{
    json_object *c = NULL;
    if (!v)
        return NULL;
    if (json_object_deep_copy(v, &c, NULL) != 0)
        return NULL;
    return c;
}

/* A new container holding references to v's members (v itself for anything else), or NULL
 * when memory runs out. */
static json_object *clone_level(json_object *v)
{
    json_object *c = NULL;
    if (json_object_is_type(v, json_type_object)) {
        c = json_object_new_object();
        if (!c)
            return NULL;
        json_object_object_foreach(v, k, mv)
        {
            json_object_object_add(c, k, json_object_get(mv));
        }
        return c;
    }
    if (json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        c = json_object_new_array_ext((int)(n ? n : 1));
        if (!c)
            return NULL;
        for (size_t i = 0; i < n; i++)
            json_object_array_add(c, json_object_get(json_object_array_get_idx(v, i)));
        return c;
    }
    return json_object_get(v);
}

int sim_merge_patch(json_object *target, json_object *patch, json_object **out)
{
    if (!json_object_is_type(patch, json_type_object)) {
        /* A non-object patch replaces the target wholesale (null included). */
        *out = copy_of(patch);
        return patch && !*out ? MUSTER_ENOMEM : 0;
    }
    /* Copy on write: only the objects on a patched path are new; everything else is shared
     * with target, so a patch costs what it touches rather than the whole object. */
    json_object *result = json_object_new_object();
    if (!result)
        return MUSTER_ENOMEM;
    if (json_object_is_type(target, json_type_object)) {
        json_object_object_foreach(target, tk, tv)
        {
            json_object_object_add(result, tk, json_object_get(tv));
        }
    }
    json_object_object_foreach(patch, k, v)
    {
        if (!v || json_object_is_type(v, json_type_null)) {
            json_object_object_del(result, k);
            continue;
        }
        json_object *cur = NULL;
        json_object_object_get_ex(result, k, &cur);
        json_object *merged = NULL;
        int rc = sim_merge_patch(cur, v, &merged);
        if (rc < 0) {
            json_object_put(result);
            return rc;
        }
        json_object_object_add(result, k, merged);
    }
    *out = result;
    return 0;
}

/* ---- JSON pointer ---- */

/* Splits pointer into its unescaped last token (in last) and finds the parent value in doc.
 * Returns 0, or MUSTER_EINVAL when a prefix does not resolve. An empty pointer ("") names the
 * document itself: *parent is NULL then. */
static int resolve_parent(json_object *doc, const char *ptr, json_object **parent, char *last,
                          size_t lastcap, int cow, char *err, size_t errcap)
{
    if (ptr[0] == '\0') {
        *parent = NULL;
        last[0] = '\0';
        return 0;
    }
    if (ptr[0] != '/') {
        snprintf(err, errcap, "invalid JSON pointer %s: must start with '/'", ptr);
        return MUSTER_EINVAL;
    }
    json_object *cur = doc;
    const char *p = ptr + 1;
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
            char c = p[i];
            if (c == '~' && i + 1 < len && (p[i + 1] == '0' || p[i + 1] == '1')) {
                c = p[i + 1] == '0' ? '~' : '/';
                i++;
            }
            if (o + 1 >= lastcap) {
                snprintf(err, errcap, "JSON pointer %s: token too long", ptr);
                return MUSTER_EINVAL;
            }
            last[o++] = c;
        }
        last[o] = '\0';
        if (!slash) {
            *parent = cur;
            return 0;
        }
        json_object *next = NULL;
        long idx = -1;
        if (json_object_is_type(cur, json_type_object)) {
            if (!json_object_object_get_ex(cur, last, &next))
                next = NULL;
        } else if (json_object_is_type(cur, json_type_array)) {
            char *end = NULL;
            errno = 0;
            idx = strtol(last, &end, 10);
            if (!errno && end != last && !*end && idx >= 0 &&
                (size_t)idx < json_object_array_length(cur))
                next = json_object_array_get_idx(cur, (size_t)idx);
        }
        if (!next) {
            snprintf(err, errcap, "doc is missing path: \"%s\": missing value", ptr);
            return MUSTER_EINVAL;
        }
        if (cow) {
            /* The document shares what no operation touched with the caller's: a container
             * on the way to a change is replaced by a copy of its level first. */
            json_object *own = clone_level(next);
            if (!own) {
                snprintf(err, errcap, "out of memory");
                return MUSTER_ENOMEM;
            }
            if (json_object_is_type(cur, json_type_object))
                json_object_object_add(cur, last, own);
            else
                json_object_array_put_idx(cur, (size_t)idx, own);
            next = own;
        }
        cur = next;
        p = slash + 1;
    }
}

/* Parses an array index token; "-" is the end when allow_end. Returns the index or -1. */
static long array_index(json_object *arr, const char *tok, int allow_end)
{
    size_t n = json_object_array_length(arr);
    if (allow_end && strcmp(tok, "-") == 0)
        return (long)n;
    if (!tok[0] || (tok[0] == '0' && tok[1]) || tok[0] == '-' || tok[0] == '+')
        return -1;
    char *end = NULL;
    errno = 0;
    long idx = strtol(tok, &end, 10);
    if (errno || *end || idx < 0 || (size_t)idx > n || (!allow_end && (size_t)idx == n))
        return -1;
    return idx;
}

static json_object *get_at(json_object *doc, const char *ptr, char *err, size_t errcap)
{
    json_object *parent = NULL;
    char last[1024];
    if (resolve_parent(doc, ptr, &parent, last, sizeof(last), 0, err, errcap) < 0)
        return NULL;
    if (!parent)
        return doc;
    json_object *v = NULL;
    if (json_object_is_type(parent, json_type_object)) {
        if (json_object_object_get_ex(parent, last, &v))
            return v;
    } else if (json_object_is_type(parent, json_type_array)) {
        long idx = array_index(parent, last, 0);
        if (idx >= 0)
            return json_object_array_get_idx(parent, (size_t)idx);
    }
    snprintf(err, errcap, "doc is missing path: \"%s\": missing value", ptr);
    return NULL;
}

/* Inserts value (ownership taken) at ptr. replace=1 requires the target to exist. The root
 * pointer is handled by the caller. */
static int put_at(json_object *doc, const char *ptr, json_object *value, int replace, char *err,
                  size_t errcap)
{
    json_object *parent = NULL;
    char last[1024];
    int rc = resolve_parent(doc, ptr, &parent, last, sizeof(last), 1, err, errcap);
    if (rc < 0) {
        json_object_put(value);
        return rc;
    }
    if (json_object_is_type(parent, json_type_object)) {
        if (replace && !json_object_object_get_ex(parent, last, NULL)) {
            snprintf(err, errcap, "replace operation does not apply: doc is missing key: %s", ptr);
            json_object_put(value);
            return MUSTER_EINVAL;
        }
        json_object_object_add(parent, last, value);
        return 0;
    }
    if (json_object_is_type(parent, json_type_array)) {
        long idx = array_index(parent, last, !replace);
        if (idx < 0) {
            snprintf(err, errcap, "%s operation does not apply: index out of bounds: %s",
                     replace ? "replace" : "add", ptr);
            json_object_put(value);
            return MUSTER_EINVAL;
        }
        if (replace) {
            json_object_array_put_idx(parent, (size_t)idx, value);
            return 0;
        }
        size_t n = json_object_array_length(parent);
        if ((size_t)idx == n)
            return json_object_array_add(parent, value) == 0 ? 0 : MUSTER_ENOMEM;
        /* json-c 0.16 has no insert: grow by one and shift the tail right. */
        if (json_object_array_add(parent, NULL) != 0) {
            json_object_put(value);
            return MUSTER_ENOMEM;
        }
        for (size_t j = n; j > (size_t)idx; j--)
            json_object_array_put_idx(parent, j,
                                      json_object_get(json_object_array_get_idx(parent, j - 1)));
        json_object_array_put_idx(parent, (size_t)idx, value);
        return 0;
    }
    snprintf(err, errcap, "doc is missing path: \"%s\": missing value", ptr);
    json_object_put(value);
    return MUSTER_EINVAL;
}

static int remove_at(json_object *doc, const char *ptr, char *err, size_t errcap)
{
    json_object *parent = NULL;
    char last[1024];
    int rc = resolve_parent(doc, ptr, &parent, last, sizeof(last), 1, err, errcap);
    if (rc < 0)
        return rc;
    if (json_object_is_type(parent, json_type_object) &&
        json_object_object_get_ex(parent, last, NULL)) {
        json_object_object_del(parent, last);
        return 0;
    }
    if (json_object_is_type(parent, json_type_array)) {
        long idx = array_index(parent, last, 0);
        if (idx >= 0) {
            json_object_array_del_idx(parent, (size_t)idx, 1);
            return 0;
        }
    }
    snprintf(err, errcap, "remove operation does not apply: doc is missing path: \"%s\"", ptr);
    return MUSTER_EINVAL;
}

static int apply_op(json_object **docp, json_object *op, char *err, size_t errcap)
{
    const char *kind = kube_json_str(op, "op");
    const char *path = kube_json_str(op, "path");
    if (!kind || !path) {
        snprintf(err, errcap, "%s", !kind ? "Unexpected kind: unknown" : "missing path");
        return MUSTER_EINVAL;
    }
    json_object *value = NULL;
    int has_value = json_object_object_get_ex(op, "value", &value);
    if (strcmp(kind, "add") == 0 || strcmp(kind, "replace") == 0) {
        if (!has_value) {
            snprintf(err, errcap, "missing value for %s operation", kind);
            return MUSTER_EINVAL;
        }
        json_object *v = copy_of(value);
        if (value && !v)
            return MUSTER_ENOMEM;
        if (!path[0]) {
            json_object_put(*docp);
            *docp = v;
            return 0;
        }
        return put_at(*docp, path, v, kind[0] == 'r', err, errcap);
    }
    if (strcmp(kind, "remove") == 0)
        return remove_at(*docp, path, err, errcap);
    if (strcmp(kind, "test") == 0) {
        /* evanphx/json-patch v4 (Patch.test): a missing parent fails; a missing object member
         * reads as nil, which a null value matches; an array index out of range fails */
        json_object *parent = NULL;
        char last[1024];
        if (path[0] &&
            resolve_parent(*docp, path, &parent, last, sizeof(last), 0, err, errcap) < 0)
            return MUSTER_EINVAL;
        json_object *have = get_at(*docp, path, err, errcap);
        if (!have && !(has_value && !value && (!path[0] || json_object_is_type(parent, json_type_object)))) {
            if (!err[0])
                snprintf(err, errcap, "testing value %s failed: test failed", path);
            return MUSTER_EINVAL;
        }
        if (!json_object_equal(have, value)) {
            snprintf(err, errcap, "testing value %s failed: test failed", path);
            return MUSTER_EINVAL;
        }
        return 0;
    }
    if (strcmp(kind, "move") == 0 || strcmp(kind, "copy") == 0) {
        const char *from = kube_json_str(op, "from");
        if (!from) {
            snprintf(err, errcap, "missing from for %s operation", kind);
            return MUSTER_EINVAL;
        }
        json_object *src = get_at(*docp, from, err, errcap);
        if (!src)
            return MUSTER_EINVAL;
        size_t flen = strlen(from);
        if (kind[0] == 'm' && strncmp(path, from, flen) == 0 && path[flen] == '/') {
            snprintf(err, errcap, "move operation: path %s is a child of from %s", path, from);
            return MUSTER_EINVAL;
        }
        json_object *v = copy_of(src);
        if (src && !v)
            return MUSTER_ENOMEM;
        if (kind[0] == 'm') {
            int rc = remove_at(*docp, from, err, errcap);
            if (rc < 0) {
                json_object_put(v);
                return rc;
            }
        }
        if (!path[0]) {
            json_object_put(*docp);
            *docp = v;
            return 0;
        }
        return put_at(*docp, path, v, 0, err, errcap);
    }
    snprintf(err, errcap, "Unexpected kind: %s", kind);
    return MUSTER_EINVAL;
}

int sim_json_patch(json_object *doc, json_object *ops, json_object **out, char *err, size_t errcap)
{
    if (!json_object_is_type(ops, json_type_array)) {
        snprintf(err, errcap,
                 "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
        return MUSTER_EINVAL;
    }
    /* Copy on write: the operations copy the containers on their paths (resolve_parent), so
     * a patch costs what it touches rather than the whole document. */
    json_object *result = clone_level(doc);
    if (doc && !result)
        return MUSTER_ENOMEM;
    size_t n = json_object_array_length(ops);
    for (size_t i = 0; i < n; i++) {
        json_object *op = json_object_array_get_idx(ops, i);
        if (!json_object_is_type(op, json_type_object)) {
            snprintf(err, errcap, "operation %zu is not an object", i);
            json_object_put(result);
            return MUSTER_EINVAL;
        }
        int rc = apply_op(&result, op, err, errcap);
        if (rc < 0) {
            json_object_put(result);
            return rc;
        }
    }
    *out = result;
    return 0;
}
