/* Tests for queue/hash.c: the published FNV-1a vectors, the incremental form, and that the values
 * dispatcher/gangobj.c persisted in object names (its own fnv1a before this module) are kept. */
#include "queue/hash.h"
#include "testing.h"

#include <string.h>

static uint64_t h64(const char *s)
{
    return queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, s);
}

static void test_fnv64_vectors(void)
{
    /* From the FNV reference test suite (and Go's hash/fnv tests). */
    CU_ASSERT_EQUAL(h64(""), 0xcbf29ce484222325ULL);
    CU_ASSERT_EQUAL(h64("a"), 0xaf63dc4c8601ec8cULL);
    CU_ASSERT_EQUAL(h64("foobar"), 0x85944171f73967e8ULL);
    CU_ASSERT_EQUAL(QUEUE_HASH_FNV64_BASIS, 14695981039346656037ULL);
    CU_ASSERT_EQUAL(queue_hash_fnv1a64(QUEUE_HASH_FNV64_BASIS, NULL, 0), QUEUE_HASH_FNV64_BASIS);
}

static void test_fnv32_vectors(void)
{
    CU_ASSERT_EQUAL(queue_hash_fnv1a32(QUEUE_HASH_FNV32_BASIS, "", 0), 0x811c9dc5U);
    CU_ASSERT_EQUAL(queue_hash_fnv1a32(QUEUE_HASH_FNV32_BASIS, "a", 1), 0xe40c292cU);
    CU_ASSERT_EQUAL(queue_hash_fnv1a32(QUEUE_HASH_FNV32_BASIS, "foobar", 6), 0xbf9cf968U);
}

static void test_incremental(void)
{
    uint64_t h = queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, "team-a/");
    h = queue_hash_fnv1a64_str(h, "job-1");
    CU_ASSERT_EQUAL(h, h64("team-a/job-1"));
    uint64_t b = queue_hash_fnv1a64(QUEUE_HASH_FNV64_BASIS, "team-a/job-1", 7);
    CU_ASSERT_EQUAL(queue_hash_fnv1a64(b, "job-1", 5), h);
    uint32_t w = queue_hash_fnv1a32(QUEUE_HASH_FNV32_BASIS, "foo", 3);
    CU_ASSERT_EQUAL(queue_hash_fnv1a32(w, "bar", 3), 0xbf9cf968U);
}

/* dispatcher/gangobj.c named gang objects with its own copy of FNV-1a 64 over the parts of a
 * name; those names are on the hub, so the shared function must give the same values. The copy
 * as it was, and values it produced. */
static uint64_t gangobj_fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

static void test_gangobj_names_unchanged(void)
{
    const char *parts[][3] = {
        {"default", "-", "train-llm-7b"},
        {"a-very-long-namespace-name-for-teams", "/", "vcjob-with-a-name-long-enough"},
        {"", "", ""},
    };
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        uint64_t old = 0xcbf29ce484222325ULL, now = QUEUE_HASH_FNV64_BASIS;
        for (size_t j = 0; j < 3; j++) {
            old = gangobj_fnv1a(old, parts[i][j]);
            now = queue_hash_fnv1a64_str(now, parts[i][j]);
        }
        CU_ASSERT_EQUAL(now, old);
    }
    CU_ASSERT_EQUAL(h64("default-train-llm-7b"),
                    gangobj_fnv1a(0xcbf29ce484222325ULL, "default-train-llm-7b"));
}

static CU_TestInfo tests[] = {
    {"fnv1a64 published vectors", test_fnv64_vectors},
    {"fnv1a32 published vectors", test_fnv32_vectors},
    {"a key in parts hashes as the whole", test_incremental},
    {"gangobj's persisted hash unchanged", test_gangobj_names_unchanged},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/hash", tests)
