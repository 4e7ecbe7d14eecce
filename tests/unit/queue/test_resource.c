/* Tests for queue/resource.c: name validation and interning, sparse vector arithmetic. */
#include "queue/errors.h"
#include "queue/mem.h"
#include "queue/resource.h"
#include "testing.h"

#include <string.h>

static int valid(const char *s)
{
    return queue_resname_valid(s, strlen(s));
}

static void test_names(void)
{
    CU_ASSERT_TRUE(valid("cpu"));
    CU_ASSERT_TRUE(valid("nvidia.com/gpu"));
    CU_ASSERT_TRUE(valid("example.com/foo"));
    CU_ASSERT_TRUE(valid("hugepages-2Mi"));
    CU_ASSERT_TRUE(valid("nvidia.com/mig-1g.5gb"));
    CU_ASSERT_FALSE(valid(""));
    CU_ASSERT_FALSE(valid("/gpu"));
    CU_ASSERT_FALSE(valid("nvidia.com/"));
    CU_ASSERT_FALSE(valid("Nvidia.com/gpu")); /* prefix is a lowercase DNS subdomain */
    CU_ASSERT_FALSE(valid("-cpu"));
    CU_ASSERT_FALSE(valid("cpu "));
    CU_ASSERT_FALSE(valid("a/b/c"));
    /* issue 23: without a domain only Kubernetes' standard names, lower case */
    CU_ASSERT_FALSE(valid("CPU"));
    CU_ASSERT_FALSE(valid("Memory"));
    CU_ASSERT_FALSE(valid("foo"));
    CU_ASSERT_FALSE(valid("gpu"));
    CU_ASSERT_FALSE(valid("hugepages-"));
    CU_ASSERT_TRUE(valid("memory"));
    CU_ASSERT_TRUE(valid("ephemeral-storage"));
    CU_ASSERT_TRUE(valid("pods"));
    CU_ASSERT_TRUE(valid("hugepages-1Gi"));
    CU_ASSERT_TRUE(valid("attachable-volumes-aws-ebs"));
    CU_ASSERT_TRUE(valid("example.com/Foo")); /* an extended name part may have upper case */
    CU_ASSERT_TRUE(valid("intel.com/gpu"));
    char long_name[80];
    memset(long_name, 'a', 64);
    long_name[64] = '\0';
    CU_ASSERT_FALSE(valid(long_name)); /* name part at most 63 */
    memset(long_name, 'a', sizeof(long_name));
    memcpy(long_name, "x.io/", 5);
    long_name[63 + 5] = '\0';
    CU_ASSERT_TRUE(valid(long_name));
    long_name[63 + 5] = 'a';
    long_name[64 + 5] = '\0';
    CU_ASSERT_FALSE(valid(long_name));
}

static void test_intern(void)
{
    struct queue_resnames *t = queue_resnames_new();
    uint32_t a, b, c;
    CU_ASSERT_EQUAL(queue_resnames_intern(t, "cpu", 3, &a), 0);
    CU_ASSERT_EQUAL(queue_resnames_intern(t, "memory", 6, &b), 0);
    CU_ASSERT_EQUAL(queue_resnames_intern(t, "cpu", 3, &c), 0);
    CU_ASSERT_EQUAL(a, c);
    CU_ASSERT_NOT_EQUAL(a, b);
    CU_ASSERT_EQUAL(queue_resnames_intern(t, "bad name", 8, &c), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(queue_resnames_find(t, "gpu", 3, &c), MUSTER_ENOENT);
    CU_ASSERT_STRING_EQUAL(queue_resnames_name(t, b), "memory");
    CU_ASSERT_PTR_NULL(queue_resnames_name(t, 99));
    /* Many names: the table grows and every id stays stable. */
    char buf[32];
    for (int i = 0; i < 500; i++) {
        snprintf(buf, sizeof(buf), "example.com/r%d", i);
        CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(t, buf, strlen(buf), &c), 0);
        CU_ASSERT_EQUAL(c, (uint32_t)i + 2);
    }
    CU_ASSERT_EQUAL(queue_resnames_find(t, "example.com/r123", 16, &c), 0);
    CU_ASSERT_EQUAL(c, 125);
    CU_ASSERT_EQUAL(queue_resnames_count(t), 502);
    queue_resnames_free(t);
    queue_resnames_free(NULL);
}

/* issue 23: names a refused request brought are rolled back; a full table counts refusals. */
static void test_mark_rollback(void)
{
    struct queue_resnames *t = queue_resnames_new();
    uint32_t id, cpu, again;
    CU_ASSERT_EQUAL(queue_resnames_intern(t, "cpu", 3, &cpu), 0);
    uint32_t mark = queue_resnames_mark(t);
    char buf[32];
    for (int i = 0; i < 300; i++) {
        snprintf(buf, sizeof(buf), "example.com/t%d", i);
        CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(t, buf, strlen(buf), &id), 0);
    }
    queue_resnames_rollback(t, mark);
    CU_ASSERT_EQUAL(queue_resnames_count(t), 1);
    CU_ASSERT_EQUAL(queue_resnames_find(t, "example.com/t7", 14, &id), MUSTER_ENOENT);
    CU_ASSERT_EQUAL(queue_resnames_find(t, "cpu", 3, &again), 0);
    CU_ASSERT_EQUAL(again, cpu);
    CU_ASSERT_PTR_NULL(queue_resnames_name(t, 1));
    CU_ASSERT_EQUAL(queue_resnames_intern(t, "intel.com/gpu", 13, &id), 0);
    CU_ASSERT_EQUAL(id, 1);         /* the id is given again */
    queue_resnames_rollback(t, 99); /* a mark above the count changes nothing */
    CU_ASSERT_EQUAL(queue_resnames_count(t), 2);
    /* Full: every new name is refused, and counted; known ones still resolve. */
    for (uint32_t i = queue_resnames_count(t); i < QUEUE_RESNAMES_MAX; i++) {
        snprintf(buf, sizeof(buf), "example.com/f%u", i);
        CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(t, buf, strlen(buf), &id), 0);
    }
    CU_ASSERT_EQUAL(queue_resnames_refused(t), 0);
    CU_ASSERT_EQUAL(queue_resnames_intern(t, "example.com/one-more", 20, &id), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(queue_resnames_intern(t, "example.com/two-more", 20, &id), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(queue_resnames_refused(t), 2);
    CU_ASSERT_EQUAL(queue_resnames_intern(t, "intel.com/gpu", 13, &id), 0);
    queue_resnames_free(t);
}

static void test_put_keeps_zero(void)
{
    struct queue_resvec a = {0};
    CU_ASSERT_EQUAL(queue_resvec_put(&a, 4, 0), 0); /* a listed zero is an item */
    CU_ASSERT_EQUAL(a.len, 1);
    CU_ASSERT_EQUAL(a.items[0].id, 4);
    CU_ASSERT_EQUAL(a.items[0].milli, 0);
    CU_ASSERT_EQUAL(queue_resvec_put(&a, 2, 5), 0);
    CU_ASSERT_EQUAL(queue_resvec_put(&a, 2, 0), 0); /* set to zero, still listed */
    CU_ASSERT_EQUAL(a.len, 2);
    CU_ASSERT_EQUAL(a.items[0].id, 2);
    CU_ASSERT_EQUAL(queue_resvec_get(&a, 2), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&a, 2, 0), 0); /* set still removes it */
    CU_ASSERT_EQUAL(a.len, 1);
    queue_resvec_close(&a);
}

static void test_vector_ops(void)
{
    struct queue_resvec a = {0}, b = {0};
    CU_ASSERT_EQUAL(queue_resvec_set(&a, 5, 100), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&a, 1, 7), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&a, 3, 9), 0);
    CU_ASSERT_EQUAL(a.len, 3);
    CU_ASSERT_EQUAL(a.items[0].id, 1); /* kept sorted */
    CU_ASSERT_EQUAL(a.items[2].id, 5);
    CU_ASSERT_EQUAL(queue_resvec_set(&a, 3, 0), 0); /* zero removes */
    CU_ASSERT_EQUAL(a.len, 2);
    CU_ASSERT_EQUAL(queue_resvec_get(&a, 3), 0);

    CU_ASSERT_EQUAL(queue_resvec_set(&b, 1, 3), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&b, 2, 4), 0);
    CU_ASSERT_EQUAL(queue_resvec_add(&a, &b), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&a, 1), 10);
    CU_ASSERT_EQUAL(queue_resvec_get(&a, 2), 4);
    CU_ASSERT_EQUAL(queue_resvec_sub(&a, &b), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&a, 1), 7);
    CU_ASSERT_EQUAL(queue_resvec_get(&a, 2), 0);
    CU_ASSERT_EQUAL(a.len, 2);

    /* fits: absent counts as 0 */
    uint32_t over = 0;
    CU_ASSERT_FALSE(queue_resvec_fits(&b, &a, &over));
    CU_ASSERT_EQUAL(over, 2);
    queue_resvec_clear(&b);
    CU_ASSERT_EQUAL(queue_resvec_set(&b, 1, 7), 0);
    CU_ASSERT_TRUE(queue_resvec_fits(&b, &a, NULL));
    CU_ASSERT_EQUAL(queue_resvec_set(&b, 1, 8), 0);
    CU_ASSERT_FALSE(queue_resvec_fits(&b, &a, &over));
    CU_ASSERT_EQUAL(over, 1);

    /* overflow is refused and changes nothing */
    CU_ASSERT_EQUAL(queue_resvec_set(&b, 5, INT64_MAX), 0);
    CU_ASSERT_EQUAL(queue_resvec_add(&a, &b), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(queue_resvec_get(&a, 1), 7);
    CU_ASSERT_EQUAL(queue_resvec_get(&a, 5), 100);

    /* equality, order, hash */
    struct queue_resvec c = {0};
    CU_ASSERT_EQUAL(queue_resvec_copy(&c, &a), 0);
    CU_ASSERT_EQUAL(queue_resvec_cmp(&a, &c), 0);
    CU_ASSERT_EQUAL(queue_resvec_hash(&a), queue_resvec_hash(&c));
    CU_ASSERT_EQUAL(queue_resvec_set(&c, 5, 101), 0);
    CU_ASSERT(queue_resvec_cmp(&a, &c) < 0);
    CU_ASSERT_NOT_EQUAL(queue_resvec_hash(&a), queue_resvec_hash(&c));
    CU_ASSERT_FALSE(queue_resvec_any_negative(&c));
    CU_ASSERT_EQUAL(queue_resvec_set(&c, 9, -1), 0);
    CU_ASSERT_TRUE(queue_resvec_any_negative(&c));
    queue_resvec_close(&a);
    queue_resvec_close(&b);
    queue_resvec_close(&c);
}

static void test_reserved_vector_does_not_allocate(void)
{
    struct queue_resvec u = {0}, r = {0};
    CU_ASSERT_EQUAL(queue_resvec_reserve(&u, 8), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&r, 2, 5), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&r, 4, 5), 0);
    struct muster_mem_stats before, after;
    muster_mem_stats(&before);
    for (int i = 0; i < 1000; i++) {
        CU_ASSERT_EQUAL(queue_resvec_add(&u, &r), 0);
        CU_ASSERT_TRUE(queue_resvec_fits(&r, &u, NULL));
        CU_ASSERT_EQUAL(queue_resvec_sub(&u, &r), 0);
    }
    muster_mem_stats(&after);
    CU_ASSERT_EQUAL(after.allocs, before.allocs);
    queue_resvec_close(&u);
    queue_resvec_close(&r);
}

/* A borrowed vector reads and changes in the caller's memory without allocating; an insert
 * beyond its room moves it to memory of its own (the room unchanged from then on); _close
 * frees only what it owns (ASan: the room is a stack array, a free of it would abort). */
static void test_borrowed_vector(void)
{
    struct queue_res room[3] = {{1, 100}, {3, 300}, {9, 999}};
    struct queue_resvec v, w = {0};
    queue_resvec_borrow(&v, room, 2);
    struct muster_mem_stats before, after;
    muster_mem_stats(&before);
    CU_ASSERT_EQUAL(queue_resvec_get(&v, 3), 300);
    CU_ASSERT_EQUAL(queue_resvec_set(&v, 3, 333), 0); /* in place */
    CU_ASSERT_EQUAL(room[1].milli, 333);
    CU_ASSERT_EQUAL(queue_resvec_set(&w, 1, 50), 0);
    muster_mem_stats(&after);
    CU_ASSERT_EQUAL(after.allocs, before.allocs + 1); /* w's, not v's */
    CU_ASSERT_EQUAL(queue_resvec_sub(&v, &w), 0); /* no new id: in place */
    CU_ASSERT_EQUAL(room[0].milli, 50);
    CU_ASSERT_EQUAL(room[2].milli, 999); /* past its room: untouched */
    CU_ASSERT_EQUAL(queue_resvec_set(&v, 2, 200), 0); /* a new id: moves */
    CU_ASSERT_PTR_NOT_EQUAL(v.items, room);
    CU_ASSERT_EQUAL(v.len, 3);
    CU_ASSERT_TRUE(v.cap >= 3);
    CU_ASSERT_EQUAL(queue_resvec_get(&v, 1), 50);
    CU_ASSERT_EQUAL(queue_resvec_get(&v, 2), 200);
    CU_ASSERT_EQUAL(queue_resvec_get(&v, 3), 333);
    CU_ASSERT_EQUAL(room[2].id, 9); /* the room was not written past its two */
    CU_ASSERT_EQUAL(queue_resvec_set(&v, 3, 1), 0);
    CU_ASSERT_EQUAL(room[1].milli, 333); /* its own now */
    queue_resvec_close(&v);
    queue_resvec_borrow(&v, room, 3);
    queue_resvec_close(&v); /* frees nothing */
    CU_ASSERT_PTR_NULL(v.items);
    queue_resvec_borrow(&v, room, 0);
    CU_ASSERT_PTR_NULL(v.items); /* empty: as a zeroed vector */
    CU_ASSERT_EQUAL(queue_resvec_set(&v, 4, 4), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&v, 4), 4);
    queue_resvec_close(&v);
    queue_resvec_close(&w);
}

static CU_TestInfo tests[] = {
    {"a borrowed vector", test_borrowed_vector},
    {"resource names", test_names},
    {"interning", test_intern},
    {"a tentative intern rolls back; a full table counts refusals", test_mark_rollback},
    {"vector arithmetic", test_vector_ops},
    {"put keeps a listed zero", test_put_keeps_zero},
    {"a reserved vector does not allocate", test_reserved_vector_does_not_allocate},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/resource", tests)
