/* The strict request body decoder (api.h, api_body_parse): UTF-8, one JSON object, bounded
 * depth and size, no \u0000, no repeated key, finite numbers; and api__fail, the error every
 * handler fills. */
#include "dispatcher/api/api_int.h"

#include "queue/errors.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 5, 6))) int api__fail(struct api_error *e, int status,
                                                    const char *reason, const char *field,
                                                    const char *fmt, ...)
{
    e->status = status;
    snprintf(e->reason, sizeof(e->reason), "%s", reason);
    snprintf(e->field, sizeof(e->field), "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return status == 413 ? MUSTER_ELIMIT : MUSTER_EINVAL;
}

/* RFC 3629 UTF-8: no overlongs, no surrogates, nothing above U+10FFFF. json-c's own check
 * (JSON_TOKENER_VALIDATE_UTF8) does not exist in every version we build against, and the
 * offset of the bad byte makes a better message. Returns the offset of the first bad byte, or
 * len when the text is valid. */
static size_t utf8_check(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1;
            min = 0x80;
            c &= 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2;
            min = 0x800;
            c &= 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3;
            min = 0x10000;
            c &= 0x07;
        } else {
            return i;
        }
        if (len - i <= n)
            return i;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return i;
            c = (c << 6) | (s[i + k] & 0x3F);
        }
        if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            return i;
        i += n + 1;
    }
    return len;
}

/* json-c turns the escape \u0000 into a NUL inside a string or key; everything we keep is a C
 * string, so "cpu\u0000x" would silently mean "cpu". Found in the raw text (keys included):
 * outside strings valid JSON has no backslash, so every backslash starts an escape. Returns 1
 * when the text has one. */
static int has_nul_escape(const char *s, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] != '\\')
            continue;
        if (s[i + 1] == 'u' && len - i >= 6 && memcmp(s + i + 2, "0000", 4) == 0)
            return 1;
        i++; /* the escaped character, which may itself be a backslash */
    }
    return 0;
}

/* The object members in valid JSON text: a string followed, after whitespace, by a colon is a
 * key. Compared with the parsed tree's count it finds keys json-c merged (the last one wins
 * there, silently). */
static size_t text_members(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '"')
            continue;
        for (i++; i < len && s[i] != '"'; i++)
            if (s[i] == '\\')
                i++;
        size_t j = i + 1;
        while (j < len && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n'))
            j++;
        if (j < len && s[j] == ':')
            n++;
    }
    return n;
}

/* The object members of a parsed tree (at most API_JSON_DEPTH_MAX deep); *nonfinite is set
 * when a number is not finite (json-c reads -Infinity, NaN and 1e999). */
static size_t tree_members(struct json_object *o, int *nonfinite)
{
    size_t n = 0;
    switch (json_object_get_type(o)) {
    case json_type_object:
        n = (size_t)json_object_object_length(o);
        json_object_object_foreach(o, k, v)
        {
            (void)k;
            n += tree_members(v, nonfinite);
        }
        break;
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length(o); i++)
            n += tree_members(json_object_array_get_idx(o, i), nonfinite);
        break;
    case json_type_double:
        if (!isfinite(json_object_get_double(o)))
            *nonfinite = 1;
        break;
    default:
        break;
    }
    return n;
}

int api_body_parse(const char *body, size_t len, struct json_object **out, struct api_error *err)
{
    *out = NULL;
    if (len > API_BODY_MAX)
        return api__fail(err, 413, "RequestEntityTooLarge", NULL,
                         "request body of %zu bytes is above the limit of %d bytes", len,
                         API_BODY_MAX);
    if (len == 0)
        return api__fail(err, 400, "BadRequest", NULL, "request body is empty; send a JSON object");
    size_t bad = utf8_check((const unsigned char *)body, len);
    if (bad != len)
        return api__fail(err, 400, "BadRequest", NULL,
                         "request body is not valid UTF-8 (byte %zu); send UTF-8 JSON", bad);
    json_tokener *tok = json_tokener_new_ex(API_JSON_DEPTH_MAX);
    if (!tok)
        return api__fail(err, 500, "InternalError", NULL, "out of memory");
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    struct json_object *obj = json_tokener_parse_ex(tok, body, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = (size_t)json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    int rc = 0;
    if (jerr == json_tokener_error_depth) {
        rc = api__fail(err, 413, "RequestEntityTooLarge", NULL,
                       "request body nests JSON deeper than %d levels", API_JSON_DEPTH_MAX);
    } else if (jerr == json_tokener_continue || !obj) {
        rc = api__fail(err, 400, "BadRequest", NULL, "request body is not JSON: %s",
                       jerr == json_tokener_continue ? "unexpected end of input"
                                                     : json_tokener_error_desc(jerr));
    } else if (used < len && strspn(body + used, " \t\r\n") != len - used) {
        rc = api__fail(err, 400, "BadRequest", NULL,
                       "request body has data after the JSON value (byte %zu)", used);
    } else if (!json_object_is_type(obj, json_type_object)) {
        rc = api__fail(err, 400, "BadRequest", NULL, "request body must be a JSON object");
    } else if (has_nul_escape(body, len)) {
        rc =
            api__fail(err, 400, "BadRequest", NULL, "request body has a string containing \\u0000");
    } else {
        int nonfinite = 0;
        size_t parsed = tree_members(obj, &nonfinite);
        if (nonfinite)
            rc = api__fail(err, 400, "BadRequest", NULL,
                           "request body has a number that is not finite (Infinity, NaN or "
                           "too large); JSON numbers are finite");
        else if (parsed != text_members(body, len))
            rc = api__fail(err, 400, "BadRequest", NULL,
                           "request body repeats a key in an object; send each key once");
    }
    if (rc) {
        json_object_put(obj);
        return rc;
    }
    *out = obj;
    return 0;
}
