/* The controller's record of a binding (dispatcher/controller/ctl_int.h, bindings.c) kept small
 * for a million pending RBs (issue 22): the allowed clusters as a bitmap, strings allocated by
 * size or interned, and the state of an admitted gang in a struct ctl_act that a binding never
 * admitted does not hold, read as zero. */
#include "dispatcher/controller/ctl_int.h"
#include "testing.h"

static struct ctl *mk_ctl(void)
{
    struct ctl *c = muster_calloc(1, sizeof *c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

static void free_ctl(struct ctl *c)
{
    for (uint32_t i = 0; i < c->qn.cap; i++)
        muster_free(c->qn.v[i]);
    muster_free(c->qn.v);
    muster_free(c->bykey);
    muster_free(c->bytkey);
    muster_free(c);
}

/* Bit i of the bitmap is cluster i: across words, and none from CTL_ALLOW_MAX on. */
static void test_allowed(void)
{
    struct binding b;
    memset(&b, 0, sizeof b);
    b.allow0 = UINT64_C(1) << 3;
    /* none past 63 without the words for them */
    CU_ASSERT_FALSE(ctl__allowed(&b, 64));
    CU_ASSERT_FALSE(ctl__allowed(&b, 255));
    uint64_t hi[CTL_ALLOW_WORDS - 1] = {0};
    b.allow_hi = hi;
    hi[0] = UINT64_C(1);       /* cluster 64 */
    hi[2] = UINT64_C(1) << 63; /* cluster 255 */
    CU_ASSERT_TRUE(ctl__allowed(&b, 3));
    CU_ASSERT_FALSE(ctl__allowed(&b, 2));
    CU_ASSERT_FALSE(ctl__allowed(&b, 4));
    CU_ASSERT_TRUE(ctl__allowed(&b, 64));
    CU_ASSERT_FALSE(ctl__allowed(&b, 63));
    CU_ASSERT_FALSE(ctl__allowed(&b, 65));
    CU_ASSERT_TRUE(ctl__allowed(&b, 255));
    CU_ASSERT_FALSE(ctl__allowed(&b, 256)); /* past the bitmap: never allowed */
    CU_ASSERT_FALSE(ctl__allowed(&b, 1000));
}

/* One copy per queue name: equal names give the same pointer, across the set's growth; a name
 * longer than QUEUE_NAME_MAX is kept cut, as the array was. */
static void test_queue_intern(void)
{
    struct ctl *c = mk_ctl();
    const char *a = ctl__queue_intern(c, "research/nlp");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_STRING_EQUAL(a, "research/nlp");
    char again[] = "research/nlp"; /* another buffer, same name */
    CU_ASSERT_PTR_EQUAL(ctl__queue_intern(c, again), a);
    const char *v = ctl__queue_intern(c, "research/vision");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_PTR_NOT_EQUAL(v, a);
    CU_ASSERT_STRING_EQUAL(ctl__queue_intern(c, ""), "");
    CU_ASSERT_EQUAL(c->qn.n, 2);
    const char *names[300];
    char nm[32];
    for (int i = 0; i < 300; i++) {
        snprintf(nm, sizeof nm, "q%d", i);
        names[i] = ctl__queue_intern(c, nm);
        CU_ASSERT_PTR_NOT_NULL_FATAL(names[i]);
    }
    for (int i = 0; i < 300; i++) {
        snprintf(nm, sizeof nm, "q%d", i);
        CU_ASSERT_PTR_EQUAL(ctl__queue_intern(c, nm), names[i]);
        CU_ASSERT_STRING_EQUAL(names[i], nm);
    }
    CU_ASSERT_PTR_EQUAL(ctl__queue_intern(c, "research/nlp"), a);
    CU_ASSERT_EQUAL(c->qn.n, 302);
    char longer[QUEUE_NAME_MAX + 20];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    const char *cut = ctl__queue_intern(c, longer);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cut);
    CU_ASSERT_EQUAL(strlen(cut), QUEUE_NAME_MAX);
    longer[QUEUE_NAME_MAX] = '\0';
    CU_ASSERT_PTR_EQUAL(ctl__queue_intern(c, longer), cut); /* the cut name is that copy */
    CU_ASSERT_EQUAL(c->qn.n, 303);

    struct binding *b = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(b = ctl__binding_new(c, "ns/rb", 0));
    CU_ASSERT_STRING_EQUAL(b->queue, ""); /* none until read */
    CU_ASSERT_EQUAL(ctl__binding_set_queue(c, b, "research/nlp"), 0);
    CU_ASSERT_PTR_EQUAL(b->queue, a);
    ctl__binding_destroy(b);
    free_ctl(c);
}

/* The uid and the permanent id: two UUIDs (what a hub writes) kept as 16 bytes each and read
 * back as the same text; anything else as text of its own; "" until read. */
static void test_ids(void)
{
    struct ctl *c = mk_ctl();
    struct binding *b = NULL;
    char ub[CTL_UID_MAX], pb[CTL_UID_MAX];
    CU_ASSERT_PTR_NOT_NULL_FATAL(b = ctl__binding_new(c, "ns/rb", 0));
    CU_ASSERT_STRING_EQUAL(ctl__uid(b, ub), "");
    CU_ASSERT_STRING_EQUAL(ctl__pid(b, pb), "");
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, "0b3f-uid", "perm-1"), 0);
    CU_ASSERT_STRING_EQUAL(ctl__uid(b, ub), "0b3f-uid");
    CU_ASSERT_STRING_EQUAL(ctl__pid(b, pb), "perm-1");
    CU_ASSERT_FALSE(b->ids_bin);
    /* kept as text, the buffer holds the answer too (callers compare the buffer) */
    CU_ASSERT_STRING_EQUAL(ub, "0b3f-uid");
    CU_ASSERT_STRING_EQUAL(pb, "perm-1");
    /* the old ids as the new ones' source: read before the old text goes */
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, ctl__pid(b, pb), ctl__uid(b, ub)), 0);
    CU_ASSERT_STRING_EQUAL(ctl__uid(b, ub), "perm-1");
    CU_ASSERT_STRING_EQUAL(ctl__pid(b, pb), "0b3f-uid");
    const char *u1 = "8c74e80f-0949-464b-af45-057e9a69fb70",
               *p1 = "f52337a7-45ac-4720-bca4-85e6f49d0579";
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, u1, p1), 0);
    CU_ASSERT_TRUE(b->ids_bin); /* two UUIDs: bytes, no text (ASan: the text freed) */
    CU_ASSERT_PTR_NULL(b->ids_text);
    CU_ASSERT_STRING_EQUAL(ctl__uid(b, ub), u1);
    CU_ASSERT_STRING_EQUAL(ctl__pid(b, pb), p1);
    /* a new uid, the permanent id kept from the bytes */
    const char *u2 = "00000000-0000-4000-8000-0000000000ff";
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, u2, NULL), 0);
    CU_ASSERT_TRUE(b->ids_bin);
    CU_ASSERT_STRING_EQUAL(ctl__uid(b, ub), u2);
    CU_ASSERT_STRING_EQUAL(ctl__pid(b, pb), p1);
    /* upper case is not how Kubernetes writes a uid: kept as text, exact */
    const char *u3 = "8C74E80F-0949-464B-AF45-057E9A69FB70";
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, u3, NULL), 0);
    CU_ASSERT_FALSE(b->ids_bin);
    CU_ASSERT_STRING_EQUAL(ctl__uid(b, ub), u3);
    CU_ASSERT_STRING_EQUAL(ctl__pid(b, pb), p1);
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, "0b3f-uid", "perm-1"), 0);
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, "other-uid", NULL), 0); /* the pid is kept */
    CU_ASSERT_STRING_EQUAL(ctl__uid(b, ub), "other-uid");
    CU_ASSERT_STRING_EQUAL(ctl__pid(b, pb), "perm-1");
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, NULL, "perm-2"), 0);
    CU_ASSERT_STRING_EQUAL(ctl__uid(b, ub), "");
    CU_ASSERT_STRING_EQUAL(ctl__pid(b, pb), "perm-2");
    /* a uid known before its permanent id (the label comes later): text until both are */
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, u1, ""), 0);
    CU_ASSERT_FALSE(b->ids_bin);
    CU_ASSERT_STRING_EQUAL(ctl__uid(b, ub), u1);
    CU_ASSERT_STRING_EQUAL(ctl__pid(b, pb), "");
    char longer[CTL_UID_MAX + 10];
    memset(longer, 'u', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, longer, ""), 0);
    CU_ASSERT_EQUAL(strlen(ctl__uid(b, ub)), CTL_UID_MAX - 1); /* as the array was */
    CU_ASSERT_STRING_EQUAL(ctl__pid(b, pb), "");
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, longer, longer), 0);
    CU_ASSERT_EQUAL(strlen(ctl__pid(b, pb)), CTL_UID_MAX - 1);
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, u1, p1), 0);
    CU_ASSERT_STRING_EQUAL(ctl__pid(b, pb), p1);
    CU_ASSERT_EQUAL(ctl__binding_set_ids(b, "", ""), 0);
    CU_ASSERT_FALSE(b->ids_bin);
    CU_ASSERT_PTR_NULL(b->ids_text); /* nothing allocated for nothing */
    CU_ASSERT_STRING_EQUAL(ctl__uid(b, ub), "");
    ctl__binding_destroy(b);
    free_ctl(c);
}

/* The condition reason and message share one allocation, shared by every binding that waits
 * with the same pair; a change marks the condition dirty, the same pair again does not. */
static void test_reason(void)
{
    struct ctl *c = mk_ctl();
    struct binding *b = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(b = ctl__binding_new(c, "ns/rb", 0));
    CU_ASSERT_STRING_EQUAL(ctl__binding_reason(b), "");
    CU_ASSERT_STRING_EQUAL(ctl__binding_msg(b), "");
    ctl__set_reason(b, "NoClusterFit", "no cluster holds %d replicas", 4);
    CU_ASSERT_STRING_EQUAL(ctl__binding_reason(b), "NoClusterFit");
    CU_ASSERT_STRING_EQUAL(ctl__binding_msg(b), "no cluster holds 4 replicas");
    CU_ASSERT_TRUE(b->cond_dirty);
    b->cond_dirty = 0;
    ctl__set_reason(b, "NoClusterFit", "no cluster holds %d replicas", 4);
    CU_ASSERT_FALSE(b->cond_dirty);
    ctl__set_reason(b, "Unschedulable", "%s", "");
    CU_ASSERT_STRING_EQUAL(ctl__binding_reason(b), "Unschedulable");
    CU_ASSERT_STRING_EQUAL(ctl__binding_msg(b), "");
    CU_ASSERT_TRUE(b->cond_dirty);
    ctl__set_reason(b, "AVeryLongReasonIndeed", "%s", "m");
    CU_ASSERT_STRING_EQUAL(ctl__binding_reason(b), "AVeryLongReason"); /* 15, as the array */
    CU_ASSERT_STRING_EQUAL(ctl__binding_msg(b), "m");
    /* the same pair is one string for both; each keeps its own when the other's changes or
     * goes (ASan: neither freed early nor leaked) */
    struct binding *o = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(o = ctl__binding_new(c, "ns/other", 0));
    ctl__set_reason(o, "AVeryLongReasonIndeed", "%s", "m");
    CU_ASSERT_PTR_EQUAL(o->msg, b->msg);
    ctl__set_reason(o, "QuotaExceeded", "queue %s is full", "q");
    CU_ASSERT_PTR_NOT_EQUAL(o->msg, b->msg);
    CU_ASSERT_STRING_EQUAL(ctl__binding_msg(b), "m");
    ctl__set_reason(b, "QuotaExceeded", "queue %s is full", "q");
    CU_ASSERT_PTR_EQUAL(o->msg, b->msg);
    ctl__binding_destroy(o);
    CU_ASSERT_STRING_EQUAL(ctl__binding_reason(b), "QuotaExceeded");
    CU_ASSERT_STRING_EQUAL(ctl__binding_msg(b), "queue q is full");
    ctl__set_reason(b, "", "%s", "");
    CU_ASSERT_PTR_NULL(b->msg);
    CU_ASSERT_STRING_EQUAL(ctl__binding_reason(b), "");
    ctl__binding_destroy(b);
    free_ctl(c);
}

/* A binding without a struct ctl_act reads all zero; the first write makes one, and it goes
 * once all of it is zero again (a retry time only counts while in the retry list). */
static void test_act(void)
{
    struct ctl *c = mk_ctl();
    struct binding *b = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(b = ctl__binding_new(c, "ns/rb", 0));
    CU_ASSERT_PTR_NULL(b->act);
    CU_ASSERT_EQUAL(ctl__act(b)->admitted_at, 0);
    CU_ASSERT_EQUAL(ctl__act(b)->aseq, 0);
    CU_ASSERT_PTR_NULL(ctl__act(b)->rc_wait);
    CU_ASSERT_EQUAL(ctl__act(b)->ndropped, 0);
    CU_ASSERT_PTR_NULL(b->act); /* reading makes none */
    struct ctl_act *a = ctl__act_w(c, b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b->act);
    CU_ASSERT_PTR_EQUAL(a, b->act);
    CU_ASSERT_PTR_EQUAL(ctl__act_w(c, b), a); /* the same one */
    a->admitted_at = 1234;
    CU_ASSERT_EQUAL(ctl__act(b)->admitted_at, 1234);
    ctl__act_trim(b);
    CU_ASSERT_PTR_EQUAL(b->act, a); /* not all zero: kept */
    a->admitted_at = 0;
    a->retry_at = 99;
    b->in_retry = 1;
    ctl__act_trim(b);
    CU_ASSERT_PTR_EQUAL(b->act, a); /* its retry is due: kept */
    b->in_retry = 0;
    a->rcm.searched = 1;
    ctl__act_trim(b);
    CU_ASSERT_PTR_EQUAL(b->act, a); /* reclaim's memo: kept */
    a->rcm.searched = 0;
    a->dropped = muster_calloc(2, sizeof *a->dropped); /* an array kept for the next shrink */
    ctl__act_trim(b);
    CU_ASSERT_PTR_NULL(b->act); /* all zero (the stale retry time too): freed */
    CU_ASSERT_EQUAL(ctl__act(b)->retry_at, 0);
    /* what every read or cycle writes of every binding: zero makes none */
    struct karmada_member_topo mt = {0};
    ctl__act_set_mtopo(c, b, &mt);
    ctl__act_set_tree_placed(c, b, 0);
    ctl__act_set_nofit_unproven(c, b, 0);
    CU_ASSERT_PTR_NULL(b->act);
    ctl__act_set_tree_placed(c, b, 6);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b->act);
    CU_ASSERT_EQUAL(ctl__act(b)->tree_placed, 6);
    mt.group.tier = 2;
    ctl__act_set_mtopo(c, b, &mt);
    ctl__act_set_tree_placed(c, b, 0);
    ctl__act_trim(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b->act); /* a member topology: kept */
    CU_ASSERT_EQUAL(ctl__act(b)->mtopo.group.tier, 2);
    CU_ASSERT_EQUAL(ctl__act(b)->tree_placed, 0);
    mt.group.tier = 0;
    ctl__act_set_mtopo(c, b, &mt);
    b->act->reply = json_object_new_object(); /* a step's answer: kept until dropped */
    ctl__act_trim(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b->act);
    ctl__reply_drop(b);
    ctl__act_trim(b);
    CU_ASSERT_PTR_NULL(b->act);
    a = ctl__act_w(c, b);
    a->fresh = json_object_new_object(); /* freed with the binding (ASan) */
    a->loss = muster_calloc(1, sizeof *a->loss);
    a->rc_wait = muster_strdup("waiting for capacity to be reclaimed");
    a->preempted_at = 5;
    ctl__binding_destroy(b); /* frees what the ctl_act holds */
    free_ctl(c);
}

static CU_TestInfo tests[] = {
    {"the allowed clusters as a bitmap", test_allowed},
    {"queue names interned", test_queue_intern},
    {"uid and permanent id in one allocation", test_ids},
    {"condition reason and message in one allocation", test_reason},
    {"an admitted gang's state made on first write, freed when zero", test_act},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/record", tests)
