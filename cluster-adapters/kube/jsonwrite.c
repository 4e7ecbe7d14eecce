/* JSON text written straight into a buffer (see jsonwrite.h). */
#include "cluster-adapters/kube/jsonwrite.h"

#include "queue/mem.h"

#include <json-c/json.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void kube_jw_init(struct kube_jw *w, char *stack, size_t cap, int escape_slash)
{
    *w = (struct kube_jw){.buf = stack, .cap = cap, .slash = escape_slash};
    if (cap)
        stack[0] = '\0';
    else
        w->bad = 1;
}

void kube_jw_free(struct kube_jw *w)
{
    if (w->heap)
        muster_free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
    w->heap = 0;
}

/* Room for n more bytes and the NUL; 0 when there is none (w->bad set). */
static int room(struct kube_jw *w, size_t n)
{
    if (w->bad)
        return 0;
    if (w->len + n < w->cap)
        return 1;
    size_t cap = w->cap * 2;
    while (cap <= w->len + n)
        cap *= 2;
    char *b = w->heap ? muster_realloc(w->buf, cap) : muster_malloc(cap);
    if (!b) {
        w->bad = 1;
        return 0;
    }
    if (!w->heap)
        memcpy(b, w->buf, w->len + 1);
    w->buf = b;
    w->cap = cap;
    w->heap = 1;
    return 1;
}

void kube_jw_raw(struct kube_jw *w, const char *s, size_t n)
{
    if (!room(w, n))
        return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

void kube_jw_lit(struct kube_jw *w, const char *s)
{
    kube_jw_raw(w, s, strlen(s));
}

void kube_jw_strn(struct kube_jw *w, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef"; /* json-c's json_hex_chars: lower case */
    kube_jw_raw(w, "\"", 1);
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        char esc[7];
        size_t el = 2;
        switch (ch) {
        case '\b':
            memcpy(esc, "\\b", 2);
            break;
        case '\n':
            memcpy(esc, "\\n", 2);
            break;
        case '\r':
            memcpy(esc, "\\r", 2);
            break;
        case '\t':
            memcpy(esc, "\\t", 2);
            break;
        case '\f':
            memcpy(esc, "\\f", 2);
            break;
        case '"':
            memcpy(esc, "\\\"", 2);
            break;
        case '\\':
            memcpy(esc, "\\\\", 2);
            break;
        case '/':
            if (!w->slash)
                continue;
            memcpy(esc, "\\/", 2);
            break;
        default:
            if (ch >= ' ')
                continue;
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[ch >> 4];
            esc[5] = hex[ch & 0xf];
            el = 6;
            break;
        }
        kube_jw_raw(w, s + start, i - start);
        kube_jw_raw(w, esc, el);
        start = i + 1;
    }
    kube_jw_raw(w, s + start, n - start);
    kube_jw_raw(w, "\"", 1);
}

void kube_jw_str(struct kube_jw *w, const char *s)
{
    if (!s) {
        w->bad = 1;
        return;
    }
    kube_jw_strn(w, s, strlen(s));
}

void kube_jw_key(struct kube_jw *w, const char *key)
{
    kube_jw_str(w, key);
    kube_jw_raw(w, ":", 1);
}

void kube_jw_int64(struct kube_jw *w, int64_t v)
{
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRId64, v);
    kube_jw_raw(w, b, (size_t)n);
}

void kube_jw_json(struct kube_jw *w, struct json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_null:
        kube_jw_raw(w, "null", 4);
        return;
    case json_type_boolean:
        kube_jw_lit(w, json_object_get_boolean(o) ? "true" : "false");
        return;
    case json_type_int: {
        int64_t v = json_object_get_int64(o);
        uint64_t u = json_object_get_uint64(o);
        if (v == INT64_MAX && u > (uint64_t)INT64_MAX) { /* held as a uint64 */
            char b[24];
            int n = snprintf(b, sizeof b, "%" PRIu64, u);
            kube_jw_raw(w, b, (size_t)n);
        } else {
            kube_jw_int64(w, v);
        }
        return;
    }
    case json_type_double: {
        size_t n = 0;
        const char *t = json_object_to_json_string_length(
            o, JSON_C_TO_STRING_PLAIN | (w->slash ? 0 : JSON_C_TO_STRING_NOSLASHESCAPE), &n);
        if (!t)
            w->bad = 1;
        else
            kube_jw_raw(w, t, n);
        return;
    }
    case json_type_string:
        kube_jw_strn(w, json_object_get_string(o), (size_t)json_object_get_string_len(o));
        return;
    case json_type_array: {
        size_t n = json_object_array_length(o);
        kube_jw_raw(w, "[", 1);
        for (size_t i = 0; i < n && !w->bad; i++) {
            if (i)
                kube_jw_raw(w, ",", 1);
            kube_jw_json(w, json_object_array_get_idx(o, i));
        }
        kube_jw_raw(w, "]", 1);
        return;
    }
    case json_type_object: {
        int first = 1;
        kube_jw_raw(w, "{", 1);
        json_object_object_foreach(o, k, v)
        {
            if (w->bad)
                break;
            if (!first)
                kube_jw_raw(w, ",", 1);
            first = 0;
            kube_jw_key(w, k);
            kube_jw_json(w, v);
        }
        kube_jw_raw(w, "}", 1);
        return;
    }
    }
}
