/* JSON text written straight into a buffer (see jsonwrite.h). */
#include "cluster-adapters/kube/jsonwrite.h"

#include "queue/mem.h"

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
        case '\b': memcpy(esc, "\\b", 2); break;
        case '\n': memcpy(esc, "\\n", 2); break;
        case '\r': memcpy(esc, "\\r", 2); break;
        case '\t': memcpy(esc, "\\t", 2); break;
        case '\f': memcpy(esc, "\\f", 2); break;
        case '"': memcpy(esc, "\\\"", 2); break;
        case '\\': memcpy(esc, "\\\\", 2); break;
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
