/* Tests for cluster-adapters/kube/frozen.c: what is packed thaws back equal (keys in order,
 * every JSON type, long and shared strings, deep and wide values), packs smaller than json-c
 * keeps it, and a damaged block is refused without reading past it. */
#include "cluster-adapters/kube/frozen.h"
#include "cluster-adapters/kube/json.h"
#include "queue/mem.h"
#include "testing.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

static const char rb_text[] =
    "{\"apiVersion\":\"work.karmada.io/v1alpha2\",\"kind\":\"ResourceBinding\",\"metadata\":{"
    "\"name\":\"train-7-deployment\",\"namespace\":\"team-a\",\"uid\":"
    "\"0b6e2f7a-6c2d-4d8e-9a51-3f0c1c2d4e5f\",\"resourceVersion\":\"184467\",\"generation\":3,"
    "\"labels\":{\"resourcebinding.karmada.io/permanent-id\":"
    "\"5d1c7a9e-2b3f-4c6d-8e9f-0a1b2c3d4e5f\",\"kueue.x-k8s.io/queue-name\":\"gpu\"}},"
    "\"spec\":{\"resource\":{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"namespace\":"
    "\"team-a\",\"name\":\"train-7\"},\"replicas\":8,\"replicaRequirements\":{"
    "\"resourceRequest\":{\"cpu\":\"4\",\"nvidia.com/gpu\":\"1\",\"memory\":\"16Gi\"}},"
    "\"placement\":{\"clusterAffinity\":{\"clusterNames\":[\"gpu-east\",\"gpu-west\"]}},"
    "\"suspension\":{\"scheduling\":true},\"ratio\":0.25,\"neg\":-42,\"big\":"
    "9223372036854775807,\"zero\":0,\"none\":null,\"off\":false,\"empty\":{},\"list\":[]},"
    "\"status\":{\"conditions\":[{\"type\":\"Scheduled\",\"status\":\"False\",\"reason\":"
    "\"QuotaExceeded\",\"message\":\"queue gpu: nvidia.com/gpu 8 over 6\"}]}}";

static struct json_object *parse(const char *text)
{
    struct json_object *o = json_tokener_parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o;
}

/* Equal, and the keys in the same order (json_object_equal ignores order). */
static void assert_same(struct json_object *a, struct json_object *b)
{
    CU_ASSERT_TRUE(json_object_equal(a, b));
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN),
                           json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN));
}

static void test_round_trip(void)
{
    struct json_object *o = parse(rb_text);
    size_t len;
    uint8_t *p = kube_frozen_pack(o, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    struct json_object *t = kube_frozen_thaw(p, len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    assert_same(o, t);
    /* the second packing of the same object finds every key and shared value in the tables */
    size_t len2;
    uint8_t *p2 = kube_frozen_pack(t, &len2);
    CU_ASSERT_EQUAL(len2, len);
    CU_ASSERT_EQUAL(memcmp(p, p2, len), 0);
    /* far below the text, which is itself far below the tree json-c keeps */
    CU_ASSERT(len < strlen(rb_text) / 2);
    /* the thawed tree is the caller's to change */
    CU_ASSERT_EQUAL(json_object_object_add(t, "extra", json_object_new_int(1)), 0);
    json_object_put(t);
    json_object_put(o);
    muster_free(p);
    muster_free(p2);
}

static void test_unique_values_not_shared(void)
{
    struct kube_frozen_stats s0, s1;
    kube_frozen_stats(&s0);
    char text[256];
    for (int i = 0; i < 50; i++) {
        snprintf(text, sizeof text,
                 "{\"metadata\":{\"name\":\"n-%d\",\"resourceVersion\":\"%d\"},\"x\":\"same\"}", i,
                 1000 + i);
        struct json_object *o = parse(text);
        size_t len;
        uint8_t *p = kube_frozen_pack(o, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        struct json_object *t = kube_frozen_thaw(p, len);
        assert_same(o, t);
        json_object_put(t);
        json_object_put(o);
        muster_free(p);
    }
    kube_frozen_stats(&s1);
    /* names and versions stay inline: at most "same" and a key or two were added */
    CU_ASSERT(s1.values - s0.values <= 1);
    CU_ASSERT(s1.keys - s0.keys <= 4);
}

/* uids pack into 16 bytes and come back as written; anything close to one stays as it is */
static void test_uuids(void)
{
    static const char *const texts[] = {
        "0b6e2f7a-6c2d-4d8e-9a51-3f0c1c2d4e5f", /* packed */
        "0B6E2F7A-6C2D-4D8E-9A51-3F0C1C2D4E5F", /* upper case: kept as text */
        "0b6e2f7a-6c2d-4d8e-9a51-3f0c1c2d4e5",  /* 35 */
        "0b6e2f7a-6c2d-4d8e-9a51_3f0c1c2d4e5f", /* a dash moved */
        "0b6e2f7a-6c2d-4d8e-9a51-3f0c1c2d4e5g", /* not hex */
    };
    size_t first = 0;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "uid", json_object_new_string(texts[i]));
        size_t len;
        uint8_t *p = kube_frozen_pack(o, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        if (i == 0)
            first = len;
        else
            CU_ASSERT(len > first + 16); /* the text, not 16 bytes */
        struct json_object *t = kube_frozen_thaw(p, len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        assert_same(o, t);
        json_object_put(t);
        json_object_put(o);
        muster_free(p);
    }
    CU_ASSERT(first <= 1 + 2 + 1 + 16);
}

/* second-precision timestamps pack into a varint and come back as written; anything else that
 * looks like one (another form, a date that does not exist) stays as it is */
static void test_times(void)
{
    static const char *const texts[] = {
        "2026-11-27T07:48:45Z", /* packed */
        "1970-01-01T00:00:00Z", /* packed */
        "2024-02-29T23:59:59Z", /* packed: a leap day */
        "9999-12-31T23:59:59Z", /* packed */
        "2026-02-30T07:48:45Z", /* no such day: kept */
        "2025-02-29T00:00:00Z", /* no leap day that year: kept */
        "2026-11-27T07:48:45.123Z", "2026-11-27T07:48:45+01:00", "2026-11-27 07:48:45Z",
        "1969-12-31T23:59:59Z",     "2026-13-01T00:00:00Z",      "2026-11-27T24:00:00Z",
        "2026-11-27T07:60:00Z",     "2026-11-27T07:48:60Z",      "2O26-11-27T07:48:45Z",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "creationTimestamp", json_object_new_string(texts[i]));
        size_t len;
        uint8_t *p = kube_frozen_pack(o, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        if (i < 4) {
            CU_ASSERT(len <= 1 + 2 + 1 + 5); /* object, key, tag, seconds */
        } else {
            CU_ASSERT(len > strlen(texts[i])); /* the text */
        }
        struct json_object *t = kube_frozen_thaw(p, len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        assert_same(o, t);
        CU_ASSERT_STRING_EQUAL(kube_json_str(t, "creationTimestamp"), texts[i]);
        json_object_put(t);
        json_object_put(o);
        muster_free(p);
    }
}

static void test_long_and_odd_strings(void)
{
    /* a key longer than the key table takes, a value with a NUL, a long value, unicode */
    char key[300], val[2000];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = 0;
    memset(val, 'v', sizeof val - 1);
    val[sizeof val - 1] = 0;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, key, json_object_new_string(val));
    json_object_object_add(o, "nul", json_object_new_string_len("a\0b", 3));
    json_object_object_add(o, "utf", json_object_new_string("gr\xc3\xbc\xc3\x9f"));
    json_object_object_add(o, "n", json_object_new_int64(-9223372036854775807LL - 1));
    json_object_object_add(o, "d", json_object_new_double(-1e300));
    size_t len;
    uint8_t *p = kube_frozen_pack(o, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    struct json_object *t = kube_frozen_thaw(p, len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    assert_same(o, t);
    struct json_object *nul;
    CU_ASSERT_TRUE(json_object_object_get_ex(t, "nul", &nul));
    CU_ASSERT_EQUAL(json_object_get_string_len(nul), 3);
    json_object_put(t);
    json_object_put(o);
    muster_free(p);
}

static void test_wide_and_deep(void)
{
    struct json_object *arr = json_object_new_array();
    for (int i = 0; i < 5000; i++)
        json_object_array_add(arr, json_object_new_int(i * 7 - 100));
    size_t len;
    uint8_t *p = kube_frozen_pack(arr, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    struct json_object *t = kube_frozen_thaw(p, len);
    assert_same(arr, t);
    json_object_put(t);
    muster_free(p);
    json_object_put(arr);

    /* nested past the bound: refused, the caller keeps its tree */
    struct json_object *root = json_object_new_array(), *cur = root;
    for (int i = 0; i < KUBE_FROZEN_DEPTH_MAX + 2; i++) {
        struct json_object *next = json_object_new_array();
        json_object_array_add(cur, next);
        cur = next;
    }
    CU_ASSERT_PTR_NULL(kube_frozen_pack(root, &len));
    json_object_put(root);
}

static void test_damaged_refused(void)
{
    struct json_object *o = parse(rb_text);
    size_t len;
    uint8_t *p = kube_frozen_pack(o, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    /* every truncation is refused (ASan would catch a read past the block) */
    for (size_t n = 0; n < len; n++) {
        uint8_t *cut = muster_malloc(n ? n : 1);
        memcpy(cut, p, n);
        struct json_object *t = kube_frozen_thaw(cut, n);
        CU_ASSERT_PTR_NULL(t);
        json_object_put(t);
        muster_free(cut);
    }
    /* trailing bytes, an unknown tag, an index never given out */
    uint8_t *more = muster_malloc(len + 1);
    memcpy(more, p, len);
    more[len] = 0;
    CU_ASSERT_PTR_NULL(kube_frozen_thaw(more, len + 1));
    static const uint8_t unknown[] = {0xf0};
    CU_ASSERT_PTR_NULL(kube_frozen_thaw(unknown, sizeof unknown));
    static const uint8_t bad_value[] = {0x6f, 0xff, 0xff, 0x03}; /* F_VAL, id 65535 */
    CU_ASSERT_PTR_NULL(kube_frozen_thaw(bad_value, sizeof bad_value));
    static const uint8_t huge_count[] = {0x8f, 0xff, 0xff, 0xff, 0xff, 0x0f}; /* F_ARR */
    CU_ASSERT_PTR_NULL(kube_frozen_thaw(huge_count, sizeof huge_count));
    /* every single-byte change either thaws to some tree or is refused: never a crash */
    for (size_t i = 0; i < len; i++) {
        memcpy(more, p, len);
        more[i] ^= 0x5a;
        json_object_put(kube_frozen_thaw(more, len));
    }
    muster_free(more);
    muster_free(p);
    json_object_put(o);
}

static void set_refs(struct kube_frozen_refs *r, const char *a, const char *b, const char *c)
{
    const char *v[] = {a, b, c};
    r->n = 3;
    for (unsigned i = 0; i < 3; i++) {
        r->s[i] = v[i];
        r->len[i] = strlen(v[i]);
    }
}

static void test_refs(void)
{
    struct json_object *o = parse(rb_text);
    struct kube_frozen_refs refs;
    /* as the informer gives them: the name, the namespace, the resourceVersion */
    set_refs(&refs, "train-7-deployment", "team-a", "184467");
    size_t plain, len;
    uint8_t *p0 = kube_frozen_pack(o, &plain);
    uint8_t *p = kube_frozen_pack_refs(o, &refs, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    size_t plen = len;
    /* the name (18), the version (6), both namespaces (a shared value each: 1 + index) go */
    CU_ASSERT(len + 18 + 6 <= plain);
    struct json_object *t = kube_frozen_thaw_refs(p, len, &refs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    assert_same(o, t);
    json_object_put(t);
    /* a block that refers to strings is refused without them, or with too few */
    CU_ASSERT_PTR_NULL(kube_frozen_thaw(p, len));
    refs.n = 2;
    CU_ASSERT_PTR_NULL(kube_frozen_thaw_refs(p, len, &refs));
    /* other strings in their places: what the caller gives is what comes back */
    set_refs(&refs, "other", "team-b", "9");
    t = kube_frozen_thaw_refs(p, len, &refs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_STRING_EQUAL(kube_json_path_str(t, "metadata", "name", NULL), "other");
    CU_ASSERT_STRING_EQUAL(kube_json_path_str(t, "metadata", "resourceVersion", NULL), "9");
    CU_ASSERT_STRING_EQUAL(kube_json_path_str(t, "spec", "resource", "namespace", NULL), "team-b");
    /* a string that only starts like one is kept whole */
    CU_ASSERT_STRING_EQUAL(kube_json_path_str(t, "spec", "resource", "name", NULL), "train-7");
    json_object_put(t);
    /* an empty ref is never referred to: "" stays "" */
    struct json_object *e = parse("{\"a\":\"\",\"b\":\"x\"}");
    set_refs(&refs, "", "x", "");
    uint8_t *pe = kube_frozen_pack_refs(e, &refs, &len);
    set_refs(&refs, "zz", "x", "zz");
    t = kube_frozen_thaw_refs(pe, len, &refs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    assert_same(e, t);
    json_object_put(t);
    /* every truncation refused; below, every single-byte change of the RB's block is refused
     * or some tree, never read past */
    for (size_t n = 0; n < len; n++)
        CU_ASSERT_PTR_NULL(kube_frozen_thaw_refs(pe, n, &refs));
    muster_free(pe);
    json_object_put(e);
    set_refs(&refs, "train-7-deployment", "team-a", "184467");
    uint8_t *more = muster_malloc(plen);
    for (size_t i = 0; i < plen; i++) {
        memcpy(more, p, plen);
        more[i] ^= 0x5a;
        json_object_put(kube_frozen_thaw_refs(more, plen, &refs));
    }
    muster_free(more);
    muster_free(p);
    muster_free(p0);
    json_object_put(o);
}

static CU_TestInfo tests[] = {
    {"refs: strings kept beside the block, one byte each", test_refs},
    {"an RB thaws back equal, keys in order, and packs small", test_round_trip},
    {"names and versions are kept inline, not in the shared table", test_unique_values_not_shared},
    {"uids in 16 bytes, exact text back, near misses kept as text", test_uuids},
    {"timestamps as seconds, exact text back, near misses kept as text", test_times},
    {"long keys and values, a NUL, unicode, int64 and double extremes", test_long_and_odd_strings},
    {"5,000 elements; nesting past the bound refused", test_wide_and_deep},
    {"a truncated or damaged block is refused, never read past", test_damaged_refused},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/frozen", tests)
