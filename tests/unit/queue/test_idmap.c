/* Tests for queue/idmap.c: puts, gets and deletes against a plain array, through growth and
 * backward-shift deletion. */
#include "queue/errors.h"
#include "queue/idmap.h"
#include "testing.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static void test_against_array(void)
{
    enum { N = 20000 };
    static uintptr_t truth[N];
    struct queue_idmap m;
    queue_idmap_init(&m);
    uint64_t rng = 7;
    for (int step = 0; step < 200000; step++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        uint64_t key = rng % N;
        uintptr_t val = (uintptr_t)(step + 1);
        switch (rng >> 62) {
        case 0:
        case 1:
            CU_ASSERT_EQUAL_FATAL(queue_idmap_put(&m, key, (void *)val), 0);
            truth[key] = val;
            break;
        case 2:
            CU_ASSERT_EQUAL((uintptr_t)queue_idmap_del(&m, key), truth[key]);
            truth[key] = 0;
            break;
        default:
            CU_ASSERT_EQUAL((uintptr_t)queue_idmap_get(&m, key), truth[key]);
        }
    }
    size_t live = 0;
    for (int k = 0; k < N; k++) {
        live += truth[k] != 0;
        CU_ASSERT_EQUAL((uintptr_t)queue_idmap_get(&m, (uint64_t)k), truth[k]);
    }
    CU_ASSERT_EQUAL(m.len, live);
    queue_idmap_close(&m);
    CU_ASSERT_PTR_NULL(queue_idmap_get(&m, 1)); /* a closed map is empty, not dangling */
}

static void count_cb(void *ud, void *val)
{
    (void)val;
    (*(int *)ud)++;
}

static void test_each_and_big_keys(void)
{
    struct queue_idmap m;
    queue_idmap_init(&m);
    CU_ASSERT_EQUAL(queue_idmap_put(&m, UINT64_MAX, (void *)1), 0);
    CU_ASSERT_EQUAL(queue_idmap_put(&m, 0, (void *)2), 0);
    CU_ASSERT_EQUAL(queue_idmap_put(&m, 1ULL << 40, (void *)3), 0);
    CU_ASSERT_EQUAL((uintptr_t)queue_idmap_get(&m, 0), 2);
    int n = 0;
    queue_idmap_each(&m, count_cb, &n);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_PTR_NULL(queue_idmap_del(&m, 12345));
    queue_idmap_close(&m);
}

/* A record that holds its own key, as the engine's entries do. */
struct rec {
    uint32_t tag;
    uint64_t id;
};

static void test_keyed_against_array(void)
{
    enum { N = 20000 };
    static struct rec recs[N];
    static uint8_t in[N];
    for (int k = 0; k < N; k++)
        recs[k] = (struct rec){(uint32_t)k, (uint64_t)k * 0x9e3779b97f4a7c15ULL};
    struct queue_idmap m;
    queue_idmap_init_keyed(&m, offsetof(struct rec, id));
    uint64_t rng = 11;
    for (int round = 0; round < 2; round++) { /* the second after a close: still keyed */
        for (int step = 0; step < 200000; step++) {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            int k = (int)(rng % N);
            switch (rng >> 62) {
            case 0:
            case 1:
                CU_ASSERT_EQUAL_FATAL(queue_idmap_put(&m, recs[k].id, &recs[k]), 0);
                in[k] = 1;
                break;
            case 2:
                CU_ASSERT_PTR_EQUAL(queue_idmap_del(&m, recs[k].id), in[k] ? &recs[k] : NULL);
                in[k] = 0;
                break;
            default:
                CU_ASSERT_PTR_EQUAL(queue_idmap_get(&m, recs[k].id), in[k] ? &recs[k] : NULL);
            }
        }
        CU_ASSERT_PTR_NULL(m.keys); /* the slots hold no copy of the keys */
        size_t live = 0;
        for (int k = 0; k < N; k++) {
            live += in[k];
            CU_ASSERT_PTR_EQUAL(queue_idmap_get(&m, recs[k].id), in[k] ? &recs[k] : NULL);
            /* a key no record holds, probing past records that hold others */
            CU_ASSERT_PTR_NULL(queue_idmap_get(&m, recs[k].id + 1));
        }
        CU_ASSERT_EQUAL(m.len, live);
        queue_idmap_close(&m);
        CU_ASSERT_PTR_NULL(queue_idmap_get(&m, recs[0].id));
        memset(in, 0, sizeof in);
    }
}

static CU_TestInfo tests[] = {
    {"keyed: values hold their keys", test_keyed_against_array},
    {"against a plain array", test_against_array},
    {"each, and extreme keys", test_each_and_big_keys},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/idmap", tests)
