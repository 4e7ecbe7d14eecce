/* Tests for cluster-adapters/kube/jsonparse.c, against json_tokener in strict mode as the
 * reference: every text either parser accepts gives the same tree (same serialization, same
 * types), and every text json_tokener refuses is refused, with an offset in the message. The
 * fixtures of the repository and every single-byte change of one of them are compared. */
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/file.h"
#include "cluster-adapters/kube/jsonparse.h"
#include "queue/mem.h"
#include "testing.h"

#include <dirent.h>
#include <json-c/json.h>
#include <stdint.h>
#include <string.h>

/* json_tokener's verdict on the whole of s (strict; whitespace only after the value): 1 and
 * *out, or 0. */
static int reference(const char *s, size_t n, int depth, struct json_object **out)
{
    struct json_tokener *tok = json_tokener_new_ex(depth);
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    /* with the terminating NUL: a scalar at the very end is complete only when the tokener
     * sees something after it */
    *out = json_tokener_parse_ex(tok, s, (int)n + (s[n] == 0));
    int ok = json_tokener_get_error(tok) == json_tokener_success;
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    for (; ok && end < n && s[end]; end++)
        if (s[end] != ' ' && s[end] != '\n' && s[end] != '\r' && s[end] != '\t')
            ok = 0;
    if (!ok) {
        json_object_put(*out);
        *out = NULL;
    }
    return ok;
}

static int same_tree(struct json_object *a, struct json_object *b)
{
    if (!a || !b)
        return a == b;
    if (json_object_get_type(a) != json_object_get_type(b))
        return 0;
    if (!json_object_equal(a, b))
        return 0;
    const char *x = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN);
    const char *y = json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN);
    return strcmp(x, y) == 0;
}

/* What kube_json_parse says of s compared with json_tokener's. Returns: 1 both accept and
 * agree, 0 both refuse, -1 they differ (mine more lenient, or a different tree), -2 json_tokener
 * accepts and mine refuses. */
static int compare(const char *s, size_t n, int depth)
{
    struct json_object *ref = NULL, *mine = NULL;
    int rok = reference(s, n, depth, &ref);
    char err[128];
    int rc = kube_json_parse(s, n, depth, &mine, err, sizeof err);
    int verdict;
    if (rc == 0)
        verdict = rok && same_tree(ref, mine) ? 1 : -1;
    else
        verdict = rok ? -2 : 0;
    if (rc != 0 && (rc != MUSTER_EPROTO || strncmp(err, "offset ", 7) != 0))
        verdict = -1; /* a refusal says where */
    json_object_put(ref);
    json_object_put(mine);
    return verdict;
}

static void test_values(void)
{
    static const char *const good[] = {
        "{}", "[]", "null", "true", "false", "0", "-0", "12", "-12", "1.50", "1e5", "1E+5",
        "-2.5e-3", "0.1", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "18446744073709551615", "\"\"", "\"a\\\"b\\\\c\\/d\"",
        "\"\\b\\f\\n\\r\\t\"", "\"\\u00e9\\u4e2d\"", "\"\\ud83d\\ude00\"", "\"caf\xc3\xa9\"",
        "\"\\u003cb\\u003e \\u0026\"", " \n{\"a\" : [1, 2 ,{\"b\":null}] }\t\r\n",
        "{\"a\":1,\"a\":2}", "[[],[[]],{}]", "{\"k\":\"v\",\"n\":{\"m\":[true,false,null]}}",
        "[1.0,2.000,3e0,-0.0]", "\"\\u0000x\"",
        /* clamped as json_tokener clamps them */
        "18446744073709551616", "-9223372036854775809", "[1e999,-1e999,1e-999]"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        int v = compare(good[i], strlen(good[i]), 128);
        if (v != 1)
            fprintf(stderr, "good text %s: %d\n", good[i], v);
        CU_ASSERT_EQUAL(v, 1);
    }
    static const char *const bad[] = {
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "01", ".5", "+1",
        "-", "1e", "1e+", "tru", "nul", "{\"a\" 1}", "{\"a\":}", "{1:2}",
        "[1 2]", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12g4\"", "{} {}", "[] x", "/*c*/1",
        "{\"a\":1}}", "[\"a\"]]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int v = compare(bad[i], strlen(bad[i]), 128);
        if (v != 0)
            fprintf(stderr, "bad text %s: %d\n", bad[i], v);
        CU_ASSERT_EQUAL(v, 0);
    }
    /* stricter than json_tokener, as RFC 8259 is: single quotes, a raw control character in a
     * string */
    static const char *const stricter[] = {"{'a':1}", "NaN", "Infinity", "-01", "1.", "[1.]"};
    for (size_t i = 0; i < sizeof stricter / sizeof *stricter; i++)
        CU_ASSERT_EQUAL(compare(stricter[i], strlen(stricter[i]), 128), -2);
    CU_ASSERT_EQUAL(compare("\"a\tb\"", 5, 128) <= 0, 1);
    struct json_object *o = NULL;
    char err[128];
    CU_ASSERT_EQUAL(kube_json_parse("\"a\nb\"", 5, 0, &o, err, sizeof err), MUSTER_EPROTO);
    CU_ASSERT_PTR_NULL(o);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "control character"));
    /* a lone surrogate is U+FFFD, as json_tokener makes it */
    CU_ASSERT_EQUAL(compare("\"\\ud800x\"", 9, 128), 1);
    CU_ASSERT_EQUAL(compare("\"\\udc00\"", 8, 128), 1);
}

static void test_depth(void)
{
    char buf[2048];
    for (int depth = 1; depth <= 260; depth++) {
        /* depth empty arrays, then the same around a 1, then objects: json_tokener refuses a
         * value 128 levels down (the outermost at level 0) */
        for (int form = 0; form < 3; form++) {
            int n = 0;
            for (int i = 0; i < depth; i++)
                n += snprintf(buf + n, sizeof buf - (size_t)n, form == 2 ? "{\"a\":" : "[");
            if (form)
                buf[n++] = '1';
            for (int i = 0; i < depth; i++)
                buf[n++] = form == 2 ? '}' : ']';
            buf[n] = 0;
            int want = form ? depth < 128 : depth <= 128;
            int v = compare(buf, (size_t)n, 128);
            if (v != want)
                fprintf(stderr, "depth %d form %d: %d\n", depth, form, v);
            CU_ASSERT_EQUAL(v, want);
        }
    }
}

static void test_keys_shared(void)
{
    struct json_object *a = NULL, *b = NULL;
    const char *t = "{\"metadata\":{\"name\":\"x\"}}";
    CU_ASSERT_EQUAL_FATAL(kube_json_parse(t, strlen(t), 0, &a, NULL, 0), 0);
    CU_ASSERT_EQUAL_FATAL(kube_json_parse(t, strlen(t), 0, &b, NULL, 0), 0);
    /* the same key text, one copy for the process */
    const char *ka = NULL, *kb = NULL;
    json_object_object_foreach(a, k1, v1)
    {
        (void)v1;
        ka = k1;
    }
    json_object_object_foreach(b, k2, v2)
    {
        (void)v2;
        kb = k2;
    }
    CU_ASSERT_PTR_EQUAL(ka, kb);
    CU_ASSERT_PTR_EQUAL(ka, kube_json_key_intern("metadata"));
    json_object_put(a);
    json_object_put(b);
    /* a long key is copied, and a key with escapes unescaped */
    char lk[200];
    memset(lk, 'k', sizeof lk);
    char text[300];
    int n = snprintf(text, sizeof text, "{\"%.*s\":1,\"a\\u0062\":2}", 100, lk);
    CU_ASSERT_EQUAL_FATAL(kube_json_parse(text, (size_t)n, 0, &a, NULL, 0), 0);
    CU_ASSERT_EQUAL(json_object_object_length(a), 2);
    CU_ASSERT_TRUE(json_object_object_get_ex(a, "ab", NULL));
    json_object_put(a);
}

static int fixture_count;

/* Every fixture as it is, and every single-byte change of one in 7 bytes of it (to one of a
 * few characters that matter to JSON). */
static void check_file(const char *path)
{
    char *text = NULL;
    size_t n = 0;
    char err[256];
    if (kube_file_read(path, 1 << 22, &text, &n, err, sizeof err) != 0)
        return;
    fixture_count++;
    int v = compare(text, n, 128);
    if (v != 1 && v != 0)
        fprintf(stderr, "%s: %d\n", path, v);
    CU_ASSERT_TRUE(v == 1 || v == 0);
    static const char subst[] = "{}[]\",:\\0e.-tn \x01";
    uint64_t rng = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < n && n < 20000; i += 7) {
        char keep = text[i];
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        text[i] = subst[(rng >> 33) % (sizeof subst - 1)];
        int w = compare(text, n, 128);
        if (w == -1)
            fprintf(stderr, "%s: byte %zu -> %02x: differs\n", path, i, (unsigned char)text[i]);
        CU_ASSERT_NOT_EQUAL(w, -1);
        /* refused where json_tokener accepts: only a raw control character in a string */
        if (w == -2)
            CU_ASSERT_TRUE((unsigned char)text[i] < 0x20);
        text[i] = keep;
    }
    muster_free(text);
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0)
            check_file(p);
        else if (!strchr(e->d_name, '.'))
            walk(p);
    }
    closedir(d);
}

static void test_fixtures(void)
{
    const char *src = getenv("MUSTER_SOURCE_DIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/fixtures", src ? src : ".");
    walk(dir);
    CU_ASSERT_TRUE(fixture_count >= 20);
}

/* Strings are skipped eight bytes at a time (kube_json_plain_run): a byte that ends or breaks
 * the run (a quote, an escape, a control character) at every position of strings up to 40
 * bytes, as key and as value, reads as json_tokener reads it (a raw control character is
 * refused, as RFC 8259 says); bytes that only look near (0x20, 0x7f, UTF-8) do not end it. */
static void test_string_runs(void)
{
    static const char *const odd[] = {"\\\"", "\\\\", "\\n", "\\u00e9", "\x01", "\x1f",
                                      " ",      "\x7f", "\xc3\xa9", "\"", "\\"};
    char body[64], text[160];
    int bad = 0, accepted = 0;
    for (size_t len = 0; len <= 40; len++)
        for (size_t at = 0; at <= len; at++)
            for (size_t k = 0; k < sizeof odd / sizeof *odd; k++) {
                memset(body, 'a', len);
                body[len] = 0;
                size_t ol = strlen(odd[k]);
                char full[128];
                memcpy(full, body, at);
                memcpy(full + at, odd[k], ol);
                memcpy(full + at + ol, body + at, len - at + 1);
                int n = snprintf(text, sizeof text, "{\"%s\":\"%s\"}", full, full);
                int v = compare(text, (size_t)n, 128);
                /* a raw control character: refused (json_tokener takes some, -2) */
                bad += v == -1 || (odd[k][0] > 0 && odd[k][0] < 0x20 && v != 0 && v != -2) ||
                       (!(odd[k][0] > 0 && odd[k][0] < 0x20) && v == -2);
                accepted += v == 1;
            }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_TRUE(accepted > 41 * 21 * 6); /* the escapes and plain bytes, every place */
}

/* A repeated key replaces the earlier value in place, as json_tokener has it, wherever it
 * repeats: among the first keys of an object, past 32 keys, after a key too long to be shared,
 * as a long key itself, and cut at a NUL. */
static void test_repeated_keys(void)
{
    char text[4096], longk[80];
    memset(longk, 'L', sizeof longk - 1);
    longk[sizeof longk - 1] = 0;
    int bad = 0, cases = 0;
    for (int nkeys = 1; nkeys <= 40; nkeys++)
        for (int rep = 0; rep < nkeys; rep++)
            for (int form = 0; form < 4; form++) {
                size_t n = 0;
                n += (size_t)snprintf(text + n, sizeof text - n, "{");
                for (int i = 0; i < nkeys; i++) {
                    if (form == 1 && i == nkeys / 2)
                        n += (size_t)snprintf(text + n, sizeof text - n, "\"%s\":0,", longk);
                    if (form == 2 && i == rep)
                        n += (size_t)snprintf(text + n, sizeof text - n, "\"%s%d\":%d,", longk, i, i);
                    else
                        n += (size_t)snprintf(text + n, sizeof text - n, "\"k%d\":%d,", i, i);
                }
                if (form == 2)
                    n += (size_t)snprintf(text + n, sizeof text - n, "\"%s%d\":\"again\"}", longk,
                                          rep);
                else if (form == 3)
                    n += (size_t)snprintf(text + n, sizeof text - n, "\"k%d\\u0000x\":\"again\"}",
                                          rep);
                else
                    n += (size_t)snprintf(text + n, sizeof text - n, "\"k%d\":\"again\"}", rep);
                struct json_object *mine = NULL;
                cases++;
                if (compare(text, n, 128) != 1 || kube_json_parse(text, n, 0, &mine, NULL, 0)) {
                    bad++;
                    continue;
                }
                /* the repeat replaced the value: one member fewer than written */
                bad += json_object_object_length(mine) != nkeys + (form == 1);
                json_object_put(mine);
            }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(cases, 40 * 41 / 2 * 4);
}

static CU_TestInfo tests[] = {
    {"repeated keys: the last value, in the first one's place", test_repeated_keys},
    {"strings: every byte that ends a run, at every place", test_string_runs},
    {"values, escapes, numbers: as json_tokener reads them", test_values},
    {"nesting depth: where json_tokener stops", test_depth},
    {"keys shared for the process, long and escaped keys", test_keys_shared},
    {"the fixtures and their single-byte changes", test_fixtures},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/jsonparse", tests)
