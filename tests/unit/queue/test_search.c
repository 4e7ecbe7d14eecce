/* Tests for queue/search.c: the lower bound at every position, over duplicates, sub-ranges and
 * empty ranges, checked against a linear scan. */
#include "queue/search.h"
#include "testing.h"

#include <stddef.h>
#include <string.h>

struct probe {
    const int *v;
    int key;
    size_t lo, hi; /* the range searched: cmp must never see an index outside it */
    int outside;
    unsigned calls;
};

static int cmp_int(const void *ctx, size_t i)
{
    struct probe *p = (struct probe *)ctx;
    if (i < p->lo || i >= p->hi)
        p->outside = 1;
    p->calls++;
    return (p->v[i] > p->key) - (p->v[i] < p->key);
}

static size_t linear(const int *v, size_t lo, size_t hi, int key)
{
    while (lo < hi && v[lo] < key)
        lo++;
    return lo;
}

static void test_every_position(void)
{
    static const int v[] = {1, 3, 3, 3, 5, 8, 8, 13};
    size_t n = sizeof(v) / sizeof(v[0]);
    for (size_t lo = 0; lo <= n; lo++) {
        for (size_t hi = lo; hi <= n; hi++) {
            for (int key = 0; key <= 14; key++) {
                struct probe p = {v, key, lo, hi, 0, 0};
                size_t got = queue_search_lower(lo, hi, cmp_int, &p);
                CU_ASSERT_EQUAL(got, linear(v, lo, hi, key));
                CU_ASSERT_FALSE(p.outside);
            }
        }
    }
}

static void test_duplicates_first(void)
{
    static const int v[] = {3, 3, 3, 3};
    struct probe p = {v, 3, 0, 4, 0, 0};
    CU_ASSERT_EQUAL(queue_search_lower(0, 4, cmp_int, &p), 0);
}

static void test_empty_and_inverted(void)
{
    struct probe p = {NULL, 1, 0, 0, 0, 0};
    CU_ASSERT_EQUAL(queue_search_lower(0, 0, cmp_int, &p), 0);
    CU_ASSERT_EQUAL(queue_search_lower(7, 7, cmp_int, &p), 7);
    CU_ASSERT_EQUAL(queue_search_lower(9, 2, cmp_int, &p), 9);
    CU_ASSERT_EQUAL(p.calls, 0);
}

static void test_logarithmic(void)
{
    static int v[1024];
    for (int i = 0; i < 1024; i++)
        v[i] = 2 * i;
    struct probe p = {v, 777, 0, 1024, 0, 0};
    CU_ASSERT_EQUAL(queue_search_lower(0, 1024, cmp_int, &p), 389);
    CU_ASSERT(p.calls <= 11);
}

static const char *const names[] = {"alpha", "beta", "delta", "gamma"};

static int cmp_name(const void *ctx, size_t i)
{
    return strcmp(names[i], ctx);
}

static void test_strings(void)
{
    CU_ASSERT_EQUAL(queue_search_lower(0, 4, cmp_name, "beta"), 1);
    CU_ASSERT_EQUAL(queue_search_lower(0, 4, cmp_name, "c"), 2);
    CU_ASSERT_EQUAL(queue_search_lower(0, 4, cmp_name, "zeta"), 4);
    CU_ASSERT_EQUAL(queue_search_lower(0, 4, cmp_name, ""), 0);
}

struct row {
    int weight;
    const char *name;
};

static void test_struct_strings(void)
{
    static const struct row rows[] = {{1, "a"}, {2, "c"}, {3, "c"}, {4, "e"}};
    size_t off = offsetof(struct row, name), n = 4;
    CU_ASSERT_EQUAL(queue_search_str(rows, n, sizeof(rows[0]), off, "c"), 1);
    CU_ASSERT_EQUAL(queue_search_str(rows, n, sizeof(rows[0]), off, "d"), 3);
    CU_ASSERT_EQUAL(queue_search_str(rows, n, sizeof(rows[0]), off, "f"), 4);
    CU_ASSERT_EQUAL(queue_search_str(rows, n, sizeof(rows[0]), off, "A"), 0);
    CU_ASSERT_EQUAL(queue_search_str(NULL, 0, sizeof(rows[0]), off, "c"), 0);
    CU_ASSERT_EQUAL(queue_search_str(names, 4, sizeof(names[0]), 0, "delta"), 2);
    CU_ASSERT_EQUAL(queue_search_str(names, 4, sizeof(names[0]), 0, "epsilon"), 3);
}

static CU_TestInfo tests[] = {
    {"every position and sub-range, as a linear scan", test_every_position},
    {"first of equal elements", test_duplicates_first},
    {"empty and inverted ranges", test_empty_and_inverted},
    {"logarithmic number of comparisons", test_logarithmic},
    {"strings", test_strings},
    {"a string field of structs, and an array of strings", test_struct_strings},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/search", tests)
