/* Tests for cluster-adapters/sim/store.c: resourceVersion, uid, generation, status subresource,
 * Status errors, no-op updates, paging (a snapshot across pages), watch replay and ordering,
 * 410 Expired. */
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/selector.h"
#include "cluster-adapters/sim/store.h"
#include "cluster-adapters/kube/errors.h"
#include "testing.h"

#include <string.h>

#define NOW ((time_t)1790000000) /* 2026-09-21T... : any fixed instant */

static const struct sim_resource *rb(void)
{
    return sim_resource_find("work.karmada.io", 15, "v1alpha2", 8, "resourcebindings", 16);
}

static const struct sim_resource *podgroups(void)
{
    return sim_resource_find("scheduling.volcano.sh", 21, "v1beta1", 7, "podgroups", 9);
}

static json_object *parse(const char *s)
{
    json_object *o = json_tokener_parse(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o;
}

/* Cuts s at the first sep and returns what follows (NULL at the end): strtok without state. */
static char *next_seg(char *s, char sep)
{
    char *p = strchr(s, sep);
    if (!p)
        return NULL;
    *p = '\0';
    return p + 1;
}

/* The string at a dotted path, or NULL. */
static const char *at(json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    json_object *cur = o;
    char *rest = NULL;
    for (char *seg = buf; seg && cur; seg = rest) {
        rest = next_seg(seg, '.');
        json_object *next = NULL;
        if (!json_object_object_get_ex(cur, seg, &next))
            return NULL;
        cur = next;
    }
    return cur ? json_object_get_string(cur) : NULL;
}

static json_object *create_rb(struct sim_store *s, const char *name, const char *extra)
{
    char body[1024];
    snprintf(body, sizeof(body),
             "{\"apiVersion\":\"work.karmada.io/v1alpha2\",\"kind\":\"ResourceBinding\","
             "\"metadata\":{\"name\":\"%s\",\"labels\":{\"team\":\"a\"}},"
             "\"spec\":{\"replicas\":2}%s}",
             name, extra ? extra : "");
    json_object *in = parse(body), *out = NULL, *st = NULL;
    int rc = sim_store_create(s, rb(), "default", in, NOW, 0, &out, &st);
    json_object_put(in);
    CU_ASSERT_EQUAL(rc, 0);
    json_object_put(st);
    return out;
}

static void test_create_sets_server_fields(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(100, &s), 0);
    json_object *o = create_rb(s, "a", ",\"status\":{\"x\":1}");
    CU_ASSERT_STRING_EQUAL(at(o, "metadata.resourceVersion"), "1001");
    CU_ASSERT_STRING_EQUAL(at(o, "metadata.namespace"), "default");
    CU_ASSERT_STRING_EQUAL(at(o, "metadata.generation"), "1");
    CU_ASSERT_STRING_EQUAL(at(o, "metadata.creationTimestamp"), "2026-09-21T14:13:20Z");
    const char *uid = at(o, "metadata.uid");
    CU_ASSERT_EQUAL(strlen(uid), 36);
    CU_ASSERT_EQUAL(uid[14], '4');       /* version 4 */
    CU_ASSERT_PTR_NULL(at(o, "status")); /* status is a subresource: dropped on create */
    CU_ASSERT_EQUAL(sim_store_rv(s), 1001);
    json_object_put(o);

    /* AlreadyExists, with the apiserver's wording and details. */
    json_object *in = parse("{\"metadata\":{\"name\":\"a\"}}"), *st = NULL;
    CU_ASSERT_EQUAL(sim_store_create(s, rb(), "default", in, NOW, 0, NULL, &st), MUSTER_EEXIST);
    CU_ASSERT_STRING_EQUAL(at(st, "reason"), "AlreadyExists");
    CU_ASSERT_STRING_EQUAL(at(st, "code"), "409");
    CU_ASSERT_STRING_EQUAL(at(st, "message"),
                           "resourcebindings.work.karmada.io \"a\" already exists");
    CU_ASSERT_STRING_EQUAL(at(st, "details.kind"), "resourcebindings");
    CU_ASSERT_STRING_EQUAL(at(st, "details.group"), "work.karmada.io");
    CU_ASSERT_STRING_EQUAL(at(st, "kind"), "Status");
    CU_ASSERT_STRING_EQUAL(at(st, "status"), "Failure");
    json_object_put(st);
    json_object_put(in);

    /* Invalid: no name, and a bad name. */
    in = parse("{\"metadata\":{}}");
    st = NULL;
    CU_ASSERT_EQUAL(sim_store_create(s, rb(), "default", in, NOW, 0, NULL, &st), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(at(st, "reason"), "Invalid");
    CU_ASSERT_STRING_EQUAL(at(st, "code"), "422");
    json_object_put(st);
    json_object_put(in);
    in = parse("{\"metadata\":{\"name\":\"Bad_Name\"}}");
    st = NULL;
    CU_ASSERT_EQUAL(sim_store_create(s, rb(), "default", in, NOW, 0, NULL, &st), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(at(st, "message"),
                                  "ResourceBinding.work.karmada.io \"Bad_Name\" is invalid: "
                                  "metadata.name: Invalid value"));
    json_object *causes = json_object_object_get(json_object_object_get(st, "details"), "causes");
    CU_ASSERT_STRING_EQUAL(at(json_object_array_get_idx(causes, 0), "field"), "metadata.name");
    json_object_put(st);
    json_object_put(in);
    /* Wrong kind is a 400. */
    in = parse("{\"kind\":\"Work\",\"metadata\":{\"name\":\"b\"}}");
    st = NULL;
    CU_ASSERT_EQUAL(sim_store_create(s, rb(), "default", in, NOW, 0, NULL, &st), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(at(st, "code"), "400");
    json_object_put(st);
    json_object_put(in);
    /* generateName. */
    in = parse("{\"metadata\":{\"generateName\":\"job-\"}}");
    json_object *out = NULL;
    CU_ASSERT_EQUAL(sim_store_create(s, rb(), "default", in, NOW, 0, &out, NULL), 0);
    CU_ASSERT_EQUAL(strlen(at(out, "metadata.name")), 9);
    CU_ASSERT_EQUAL(strncmp(at(out, "metadata.name"), "job-", 4), 0);
    json_object_put(out);
    json_object_put(in);
    sim_store_free(s);
}

static void test_update_generation_status_conflict(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(100, &s), 0);
    json_object_put(create_rb(s, "a", NULL));

    /* A label change: new rv, same generation. */
    json_object *in = parse("{\"metadata\":{\"name\":\"a\",\"labels\":{\"team\":\"b\"}},"
                            "\"spec\":{\"replicas\":2}}");
    json_object *out = NULL, *st = NULL;
    CU_ASSERT_EQUAL(sim_store_update(s, rb(), "default", "a", in, 0, &out, NULL), 0);
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.resourceVersion"), "1002");
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.generation"), "1");
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.labels.team"), "b");
    json_object_put(out);
    json_object_put(in);

    /* A spec change bumps generation; a status in a main write is ignored. */
    in = parse("{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1002\","
               "\"labels\":{\"team\":\"b\"}},\"spec\":{\"replicas\":3},\"status\":{\"x\":1}}");
    CU_ASSERT_EQUAL(sim_store_update(s, rb(), "default", "a", in, 0, &out, NULL), 0);
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.generation"), "2");
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.resourceVersion"), "1003");
    CU_ASSERT_PTR_NULL(at(out, "status"));
    json_object_put(out);

    /* The same body again is now stale: Conflict. */
    CU_ASSERT_EQUAL(sim_store_update(s, rb(), "default", "a", in, 0, NULL, &st), MUSTER_ECONFLICT);
    CU_ASSERT_STRING_EQUAL(at(st, "reason"), "Conflict");
    CU_ASSERT_STRING_EQUAL(at(st, "message"),
                           "Operation cannot be fulfilled on resourcebindings.work.karmada.io "
                           "\"a\": the object has been modified; please apply your changes to "
                           "the latest version and try again");
    json_object_put(st);
    json_object_put(in);

    /* A status write changes status only: spec and labels in the body are ignored and
     * generation stays. */
    in = parse("{\"metadata\":{\"name\":\"a\",\"labels\":{\"team\":\"z\"}},"
               "\"spec\":{\"replicas\":99},\"status\":{\"schedulerObservedGeneration\":2}}");
    CU_ASSERT_EQUAL(sim_store_update(s, rb(), "default", "a", in, SIM_WRITE_STATUS, &out, NULL), 0);
    CU_ASSERT_STRING_EQUAL(at(out, "status.schedulerObservedGeneration"), "2");
    CU_ASSERT_STRING_EQUAL(at(out, "spec.replicas"), "3");
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.labels.team"), "b");
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.generation"), "2");
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.resourceVersion"), "1004");
    json_object_put(out);

    /* Writing the same status again commits nothing. */
    CU_ASSERT_EQUAL(sim_store_update(s, rb(), "default", "a", in, SIM_WRITE_STATUS, &out, NULL), 0);
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.resourceVersion"), "1004");
    CU_ASSERT_EQUAL(sim_store_rv(s), 1004);
    json_object_put(out);
    json_object_put(in);

    /* Name in the body must match the URL. */
    in = parse("{\"metadata\":{\"name\":\"other\"}}");
    CU_ASSERT_EQUAL(sim_store_update(s, rb(), "default", "a", in, 0, NULL, &st), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(at(st, "code"), "400");
    json_object_put(st);
    json_object_put(in);

    /* NotFound. */
    in = parse("{\"metadata\":{\"name\":\"nope\"}}");
    CU_ASSERT_EQUAL(sim_store_update(s, rb(), "default", "nope", in, 0, NULL, &st), MUSTER_ENOENT);
    CU_ASSERT_STRING_EQUAL(at(st, "message"),
                           "resourcebindings.work.karmada.io \"nope\" not found");
    CU_ASSERT_STRING_EQUAL(at(st, "code"), "404");
    json_object_put(st);
    json_object_put(in);
    sim_store_free(s);
}

static void test_dry_run(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(100, &s), 0);
    json_object *in = parse("{\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":1}}");
    json_object *out = NULL;
    CU_ASSERT_EQUAL(sim_store_create(s, rb(), "default", in, NOW, SIM_WRITE_DRY_RUN, &out, NULL),
                    0);
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.generation"), "1");
    CU_ASSERT_PTR_NULL(at(out, "metadata.resourceVersion"));
    json_object_put(out);
    CU_ASSERT_EQUAL(sim_store_rv(s), 1000);
    CU_ASSERT_EQUAL(sim_store_get(s, rb(), "default", "d", NULL, NULL), MUSTER_ENOENT);
    CU_ASSERT_EQUAL(sim_store_create(s, rb(), "default", in, NOW, 0, NULL, NULL), 0);
    json_object_put(in);
    in = parse("{\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":2}}");
    CU_ASSERT_EQUAL(sim_store_update(s, rb(), "default", "d", in, SIM_WRITE_DRY_RUN, &out, NULL),
                    0);
    CU_ASSERT_STRING_EQUAL(at(out, "spec.replicas"), "2");
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.generation"), "2");
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.resourceVersion"), "1001");
    json_object_put(out);
    json_object_put(in);
    CU_ASSERT_EQUAL(sim_store_rv(s), 1001);
    CU_ASSERT_EQUAL(sim_store_get(s, rb(), "default", "d", &out, NULL), 0);
    CU_ASSERT_STRING_EQUAL(at(out, "spec.replicas"), "1");
    json_object_put(out);
    sim_store_free(s);
}

static void test_no_status_subresource(void)
{
    /* Volcano's PodGroup CRD has no status subresource: status is written with the object and
     * counts towards generation like any other content. */
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(100, &s), 0);
    json_object *in = parse("{\"metadata\":{\"name\":\"pg\"},\"spec\":{\"minMember\":2},"
                            "\"status\":{\"phase\":\"Pending\"}}");
    json_object *out = NULL;
    CU_ASSERT_EQUAL(sim_store_create(s, podgroups(), "default", in, NOW, 0, &out, NULL), 0);
    CU_ASSERT_STRING_EQUAL(at(out, "status.phase"), "Pending");
    CU_ASSERT_STRING_EQUAL(at(out, "kind"), "PodGroup");
    CU_ASSERT_STRING_EQUAL(at(out, "apiVersion"), "scheduling.volcano.sh/v1beta1");
    json_object_put(out);
    json_object_put(in);
    in = parse("{\"metadata\":{\"name\":\"pg\"},\"spec\":{\"minMember\":2},"
               "\"status\":{\"phase\":\"Running\"}}");
    CU_ASSERT_EQUAL(sim_store_update(s, podgroups(), "default", "pg", in, 0, &out, NULL), 0);
    CU_ASSERT_STRING_EQUAL(at(out, "status.phase"), "Running");
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.generation"), "2");
    json_object_put(out);
    json_object_put(in);
    sim_store_free(s);
}

static void test_delete_preconditions(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(100, &s), 0);
    json_object_put(create_rb(s, "a", NULL));
    json_object *st = NULL, *out = NULL;
    CU_ASSERT_EQUAL(sim_store_delete(s, rb(), "default", "a", "not-the-uid", NULL, 0, NULL, &st),
                    MUSTER_ECONFLICT);
    CU_ASSERT_PTR_NOT_NULL(strstr(at(st, "message"), "Precondition failed: UID in precondition"));
    json_object_put(st);
    CU_ASSERT_EQUAL(sim_store_delete(s, rb(), "default", "a", NULL, "1001", 0, &out, NULL), 0);
    CU_ASSERT_STRING_EQUAL(at(out, "metadata.name"), "a");
    json_object_put(out);
    CU_ASSERT_EQUAL(sim_store_rv(s), 1002);
    CU_ASSERT_EQUAL(sim_store_get(s, rb(), "default", "a", NULL, NULL), MUSTER_ENOENT);
    CU_ASSERT_EQUAL(sim_store_delete(s, rb(), "default", "a", NULL, NULL, 0, NULL, NULL),
                    MUSTER_ENOENT);
    sim_store_free(s);
}

static void test_list_paging_and_selectors(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(100, &s), 0);
    const char *names[] = {"e", "b", "d", "a", "c"};
    for (size_t i = 0; i < 5; i++)
        json_object_put(create_rb(s, names[i], NULL));
    json_object *in = parse("{\"metadata\":{\"name\":\"z\",\"labels\":{\"team\":\"b\"}}}");
    CU_ASSERT_EQUAL(sim_store_create(s, rb(), "other", in, NOW, 0, NULL, NULL), 0);
    json_object_put(in);

    /* Pages of two in key order, across namespaces ("default/..." < "other/..."). */
    struct sim_list_opts opts = {NULL, NULL, 2, NULL};
    json_object *page = NULL;
    char seen[16] = "";
    char cont[512] = "";
    for (int i = 0; i < 4; i++) {
        opts.cont = cont[0] ? cont : NULL;
        CU_ASSERT_EQUAL_FATAL(sim_store_list(s, rb(), NULL, &opts, &page, NULL), 0);
        json_object *items = json_object_object_get(page, "items");
        for (size_t j = 0; j < json_object_array_length(items); j++)
            strncat(seen, at(json_object_array_get_idx(items, j), "metadata.name"), 1);
        CU_ASSERT_STRING_EQUAL(at(page, "metadata.resourceVersion"), "1006");
        const char *c = at(page, "metadata.continue");
        if (i == 0) {
            CU_ASSERT_STRING_EQUAL(at(page, "metadata.remainingItemCount"), "4");
            CU_ASSERT_STRING_EQUAL(at(page, "kind"), "ResourceBindingList");
        }
        snprintf(cont, sizeof(cont), "%s", c ? c : "");
        json_object_put(page);
        if (!c)
            break;
    }
    CU_ASSERT_STRING_EQUAL(seen, "abcdez");

    /* One namespace, and a label selector. */
    struct sim_selector *sel = NULL;
    char err[128];
    CU_ASSERT_EQUAL(sim_selector_parse_labels("team in (b,c)", &sel, err, sizeof(err)), 0);
    struct sim_list_opts o2 = {sel, NULL, 0, NULL};
    CU_ASSERT_EQUAL(sim_store_list(s, rb(), NULL, &o2, &page, NULL), 0);
    CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(page, "items")), 1);
    json_object_put(page);
    CU_ASSERT_EQUAL(sim_store_list(s, rb(), "default", NULL, &page, NULL), 0);
    CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(page, "items")), 5);
    CU_ASSERT_PTR_NULL(at(page, "metadata.continue"));
    json_object_put(page);
    sim_selector_free(sel);

    /* A garbage continue token is a 400. */
    json_object *st = NULL;
    struct sim_list_opts o3 = {NULL, NULL, 2, "!!!"};
    CU_ASSERT_EQUAL(sim_store_list(s, rb(), NULL, &o3, &page, &st), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(at(st, "code"), "400");
    json_object_put(st);
    sim_store_free(s);
}

static int set_replicas(struct sim_store *s, const char *name, int replicas)
{
    char body[256];
    snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"replicas\":%d}}",
             name, replicas);
    json_object *in = parse(body);
    int rc = sim_store_update(s, rb(), "default", name, in, 0, NULL, NULL);
    json_object_put(in);
    return rc;
}

/* Pages after the first show the first page's snapshot, as etcd serves them, whatever
 * changed in between: a reflector watching from the list's version then sees each change once. */
static void test_continued_list_is_a_snapshot(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(100, &s), 0);
    const char *names[] = {"a", "b", "c", "d", "e"};
    for (size_t i = 0; i < 5; i++)
        json_object_put(create_rb(s, names[i], NULL));
    struct sim_list_opts opts = {NULL, NULL, 2, NULL};
    json_object *page = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_list(s, rb(), "default", &opts, &page, NULL), 0);
    char cont[512];
    snprintf(cont, sizeof(cont), "%s", at(page, "metadata.continue"));
    json_object_put(page);

    CU_ASSERT_EQUAL(set_replicas(s, "a", 7), 0); /* on the page already served */
    CU_ASSERT_EQUAL(set_replicas(s, "d", 7), 0); /* on a page to come, twice */
    CU_ASSERT_EQUAL(set_replicas(s, "d", 8), 0);
    CU_ASSERT_EQUAL(set_replicas(s, "e", 8), 0); /* changed, then deleted */
    CU_ASSERT_EQUAL(sim_store_delete(s, rb(), "default", "c", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_EQUAL(sim_store_delete(s, rb(), "default", "e", NULL, NULL, 0, NULL, NULL), 0);
    json_object_put(create_rb(s, "bb", NULL));
    json_object_put(create_rb(s, "f", NULL));

    char seen[64] = "";
    for (int i = 0; i < 3; i++) {
        opts.cont = cont;
        CU_ASSERT_EQUAL_FATAL(sim_store_list(s, rb(), "default", &opts, &page, NULL), 0);
        CU_ASSERT_STRING_EQUAL(at(page, "metadata.resourceVersion"), "1005");
        json_object *items = json_object_object_get(page, "items");
        for (size_t j = 0; j < json_object_array_length(items); j++) {
            json_object *it = json_object_array_get_idx(items, j);
            char one[32];
            snprintf(one, sizeof(one), "%s@%s:%s ", at(it, "metadata.name"),
                     at(it, "metadata.resourceVersion"), at(it, "spec.replicas"));
            strncat(seen, one, sizeof(seen) - strlen(seen) - 1);
        }
        const char *c = at(page, "metadata.continue");
        snprintf(cont, sizeof(cont), "%s", c ? c : "");
        json_object_put(page);
        if (!c)
            break;
    }
    CU_ASSERT_STRING_EQUAL(seen, "c@1003:2 d@1004:2 e@1005:2 ");

    /* A new list shows the new state. */
    opts.cont = NULL;
    opts.limit = 0;
    CU_ASSERT_EQUAL_FATAL(sim_store_list(s, rb(), "default", &opts, &page, NULL), 0);
    CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(page, "items")), 5);
    json_object_put(page);
    sim_store_free(s);
}

struct recorder {
    char log[1024];
    struct sim_store *s;
    int write_back; /* on the first ADDED, modify the object from inside the callback */
    int stop_after; /* > 0: unwatch from inside the callback after this many events */
    struct sim_store_watch **self;
};

static void record(void *data, const struct sim_event *ev)
{
    struct recorder *r = data;
    static const char *const t[] = {"A", "M", "D"};
    char line[64];
    snprintf(line, sizeof(line), "%s%s@%lld ", t[ev->type], sim_meta_str(ev->obj, "name"),
             (long long)ev->rv);
    strncat(r->log, line, sizeof(r->log) - strlen(r->log) - 1);
    if (r->write_back && ev->type == SIM_EVENT_ADDED) {
        r->write_back = 0;
        json_object *in =
            json_tokener_parse("{\"metadata\":{\"name\":\"a\"},\"spec\":{\"replicas\":5}}");
        sim_store_update(r->s, ev->res, "default", "a", in, 0, NULL, NULL);
        json_object_put(in);
    }
    if (r->stop_after > 0 && --r->stop_after == 0) {
        sim_store_unwatch(r->s, *r->self);
        *r->self = NULL;
    }
}

static void test_watch_replay_order_and_expiry(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(4, &s), 0);
    struct recorder live = {"", s, 1, 0, NULL};
    struct sim_store_watch *w = NULL;
    CU_ASSERT_EQUAL(sim_store_watch(s, sim_store_rv(s), record, &live, &w, NULL), 0);
    /* The watcher writes from inside its callback; a second watcher must still see events in
     * resourceVersion order. */
    struct recorder other = {"", s, 0, 0, NULL};
    struct sim_store_watch *w2 = NULL;
    CU_ASSERT_EQUAL(sim_store_watch(s, sim_store_rv(s), record, &other, &w2, NULL), 0);
    json_object_put(create_rb(s, "a", NULL));
    CU_ASSERT_STRING_EQUAL(live.log, "Aa@1001 Ma@1002 ");
    CU_ASSERT_STRING_EQUAL(other.log, "Aa@1001 Ma@1002 ");
    sim_store_unwatch(s, w2);

    /* Replay from the middle. */
    struct recorder late = {"", s, 0, 0, NULL};
    struct sim_store_watch *w3 = NULL;
    CU_ASSERT_EQUAL(sim_store_watch(s, 1001, record, &late, &w3, NULL), 0);
    CU_ASSERT_STRING_EQUAL(late.log, "Ma@1002 ");
    sim_store_unwatch(s, w3);

    /* Overflow the 4-event ring: 1001 falls out, so a watch from 1001 is Expired. */
    json_object_put(create_rb(s, "b", NULL));
    json_object_put(create_rb(s, "c", NULL));
    CU_ASSERT_EQUAL(sim_store_delete(s, rb(), "default", "b", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_EQUAL(sim_store_floor_rv(s), 1001);
    json_object *st = NULL;
    CU_ASSERT_EQUAL(sim_store_watch(s, 1000, record, &late, &w3, &st), MUSTER_EGONE);
    CU_ASSERT_STRING_EQUAL(at(st, "reason"), "Expired");
    CU_ASSERT_STRING_EQUAL(at(st, "code"), "410");
    CU_ASSERT_STRING_EQUAL(at(st, "message"), "too old resource version: 1000 (1001)");
    json_object_put(st);
    memset(late.log, 0, sizeof(late.log));
    CU_ASSERT_EQUAL(sim_store_watch(s, 1001, record, &late, &w3, NULL), 0);
    CU_ASSERT_STRING_EQUAL(late.log, "Ma@1002 Ab@1003 Ac@1004 Db@1005 ");
    sim_store_unwatch(s, w3);

    /* A watcher that stops itself in the middle of its replay gets nothing more. */
    struct sim_store_watch *w4 = NULL;
    struct recorder quitter = {"", s, 0, 2, &w4};
    CU_ASSERT_EQUAL(sim_store_watch(s, 1001, record, &quitter, &w4, NULL), 0);
    CU_ASSERT_PTR_NULL(w4);
    CU_ASSERT_STRING_EQUAL(quitter.log, "Ma@1002 Ab@1003 ");
    json_object_put(create_rb(s, "d", NULL));
    CU_ASSERT_STRING_EQUAL(quitter.log, "Ma@1002 Ab@1003 ");

    /* The event log says the same. */
    json_object *log = NULL;
    CU_ASSERT_EQUAL(sim_store_event_log(s, 1003, &log), 0);
    json_object *items = json_object_object_get(log, "items");
    CU_ASSERT_EQUAL(json_object_array_length(items), 3);
    CU_ASSERT_STRING_EQUAL(at(json_object_array_get_idx(items, 1), "type"), "DELETED");
    CU_ASSERT_STRING_EQUAL(at(json_object_array_get_idx(items, 1), "resourceVersion"), "1005");
    CU_ASSERT_STRING_EQUAL(at(log, "floor"), "1002");
    json_object_put(log);
    sim_store_unwatch(s, w);
    sim_store_free(s);
}

static void record_prev(void *data, const struct sim_event *ev)
{
    json_object **prev = data;
    if (ev->type == SIM_EVENT_MODIFIED && !*prev)
        *prev = json_object_get(ev->prev);
}

/* SIM_WRITE_SHARE: the store keeps the caller's values by reference (a write copies only the
 * levels it edits) while every version it hands out stays as it was; without the flag the
 * caller's object stays its own. */
static void test_shared_writes(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(100, &s), 0);
    json_object *in = parse("{\"metadata\":{\"name\":\"a\",\"labels\":{\"l\":\"1\"}},"
                            "\"spec\":{\"x\":{\"y\":\"1\"}}}");
    json_object *out = NULL;
    CU_ASSERT_EQUAL_FATAL(
        sim_store_create(s, podgroups(), "ns", in, NOW, SIM_WRITE_SHARE, &out, NULL), 0);
    CU_ASSERT_PTR_EQUAL(json_object_object_get(out, "spec"), json_object_object_get(in, "spec"));
    CU_ASSERT_PTR_NOT_EQUAL(json_object_object_get(out, "metadata"),
                            json_object_object_get(in, "metadata"));
    CU_ASSERT_PTR_NULL(at(in, "metadata.uid"));
    json_object_put(in);

    /* An update sharing the unchanged spec commits only its label change. */
    json_object *prev = NULL;
    struct sim_store_watch *w = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_watch(s, sim_store_rv(s), record_prev, &prev, &w, NULL), 0);
    json_object *next = json_object_new_object();
    json_object_object_add(next, "spec", json_object_get(json_object_object_get(out, "spec")));
    json_object_object_add(next, "metadata", parse("{\"name\":\"a\",\"labels\":{\"l\":\"2\"}}"));
    json_object *out2 = NULL;
    CU_ASSERT_EQUAL(sim_store_update(s, podgroups(), "ns", "a", next, SIM_WRITE_SHARE, &out2, NULL),
                    0);
    json_object_put(next);
    CU_ASSERT_STRING_EQUAL(at(out2, "metadata.labels.l"), "2");
    CU_ASSERT_STRING_EQUAL(at(out2, "metadata.generation"), "1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(prev);
    CU_ASSERT_STRING_EQUAL(at(prev, "metadata.labels.l"), "1");
    CU_ASSERT_STRING_NOT_EQUAL(at(prev, "metadata.resourceVersion"),
                               at(out2, "metadata.resourceVersion"));
    CU_ASSERT_PTR_EQUAL(json_object_object_get(prev, "spec"), json_object_object_get(out2, "spec"));
    sim_store_unwatch(s, w);
    json_object_put(prev);
    json_object_put(out2);
    json_object_put(out);

    /* Without the flag the caller may change its object afterwards. */
    in = parse("{\"metadata\":{\"name\":\"b\"},\"spec\":{\"x\":{\"y\":\"1\"}}}");
    CU_ASSERT_EQUAL(sim_store_create(s, podgroups(), "ns", in, NOW, 0, NULL, NULL), 0);
    json_object_object_add(json_object_object_get(json_object_object_get(in, "spec"), "x"), "y",
                           json_object_new_string("changed"));
    json_object_put(in);
    CU_ASSERT_EQUAL(sim_store_get(s, podgroups(), "ns", "b", &out, NULL), 0);
    CU_ASSERT_STRING_EQUAL(at(out, "spec.x.y"), "1");
    json_object_put(out);
    sim_store_free(s);
}

/* Reads by exact key go through a hash index kept beside the sorted array: after many
 * creates, deletes (which shift probe runs back) and updates, every get agrees with a list. */
static void test_get_index_follows_writes(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(10, &s), 0);
    char body[128], name[32];
    for (int i = 0; i < 600; i++) {
        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"pg-%d\"},\"spec\":{\"v\":%d}}", i,
                 i);
        json_object *o = parse(body);
        CU_ASSERT_EQUAL(sim_store_create(s, podgroups(), i % 2 ? "a" : "b", o, NOW, 0, NULL, NULL),
                        0);
        json_object_put(o);
    }
    for (int i = 0; i < 600; i += 3) {
        snprintf(name, sizeof(name), "pg-%d", i);
        CU_ASSERT_EQUAL(
            sim_store_delete(s, podgroups(), i % 2 ? "a" : "b", name, NULL, NULL, 0, NULL, NULL),
            0);
    }
    for (int i = 1; i < 600; i += 3) {
        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"pg-%d\"},\"spec\":{\"v\":-1}}", i);
        json_object *o = parse(body);
        snprintf(name, sizeof(name), "pg-%d", i);
        CU_ASSERT_EQUAL(sim_store_update(s, podgroups(), i % 2 ? "a" : "b", name, o, 0, NULL, NULL),
                        0);
        json_object_put(o);
    }
    json_object *list = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_list(s, podgroups(), NULL, NULL, &list, NULL), 0);
    CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(list, "items")), 400);
    json_object_put(list);
    int wrong = 0;
    for (int i = 0; i < 600; i++) {
        snprintf(name, sizeof(name), "pg-%d", i);
        json_object *o = NULL;
        int rc = sim_store_get(s, podgroups(), i % 2 ? "a" : "b", name, &o, NULL);
        int want_v = i % 3 == 1 ? -1 : i;
        if (i % 3 == 0)
            wrong += rc != MUSTER_ENOENT;
        else
            wrong += rc != 0 || !at(o, "spec.v") || strtol(at(o, "spec.v"), NULL, 10) != want_v;
        json_object_put(o);
        /* The other namespace never has it. */
        wrong +=
            sim_store_get(s, podgroups(), i % 2 ? "b" : "a", name, NULL, NULL) != MUSTER_ENOENT;
    }
    CU_ASSERT_EQUAL(wrong, 0);
    sim_store_free(s);
}

/* The names of a list's items, in order, space-separated. */
static void names_of(json_object *list, char *buf, size_t cap)
{
    json_object *items = json_object_object_get(list, "items");
    size_t at_ = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(items) && at_ < cap; i++)
        at_ += (size_t)snprintf(buf + at_, cap - at_, "%s ",
                                at(json_object_array_get_idx(items, i), "metadata.name"));
}

/* A list selecting one permanent id reads the label index (muster-sim's own, for its CPU): it
 * answers what the scan answers, in the same order, after creates, relabelling updates and
 * deletes, in one namespace or all. */
static void test_label_index_follows_writes(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(10, &s), 0);
    char body[256], name[32];
    const char *lk = "resourcebinding.karmada.io/permanent-id";
    for (int i = 0; i < 300; i++) {
        snprintf(body, sizeof(body),
                 "{\"metadata\":{\"name\":\"pg-%03d\",\"labels\":{\"%s\":\"p%d\"}}}", (i * 7) % 300,
                 lk, i % 10);
        json_object *o = parse(body);
        CU_ASSERT_EQUAL(sim_store_create(s, podgroups(), i % 3 ? "a" : "b", o, NOW, 0, NULL, NULL),
                        0);
        json_object_put(o);
    }
    for (int i = 0; i < 300; i += 4) { /* moved to p3, or the label dropped */
        snprintf(body, sizeof(body),
                 i % 8 ? "{\"metadata\":{\"name\":\"pg-%03d\",\"labels\":{\"%s\":\"p3\"}}}"
                       : "{\"metadata\":{\"name\":\"pg-%03d\",\"labels\":{\"x%s\":\"p3\"}}}",
                 (i * 7) % 300, lk);
        json_object *o = parse(body);
        CU_ASSERT_EQUAL(sim_store_update(s, podgroups(), i % 3 ? "a" : "b",
                                         json_object_get_string(json_object_object_get(
                                             json_object_object_get(o, "metadata"), "name")),
                                         o, 0, NULL, NULL),
                        0);
        json_object_put(o);
    }
    for (int i = 1; i < 300; i += 5) {
        snprintf(name, sizeof(name), "pg-%03d", (i * 7) % 300);
        CU_ASSERT_EQUAL(
            sim_store_delete(s, podgroups(), i % 3 ? "a" : "b", name, NULL, NULL, 0, NULL, NULL),
            0);
    }
    int checked = 0, nonempty = 0, found = 0;
    const char *nss[] = {NULL, "a", "b"};
    for (int v = 0; v < 10; v++) {
        char sel_text[128], err[256], indexed[8192], scanned[8192];
        snprintf(sel_text, sizeof(sel_text), "%s=p%d", lk, v);
        struct sim_selector *sel = NULL;
        CU_ASSERT_EQUAL_FATAL(sim_selector_parse_labels(sel_text, &sel, err, sizeof(err)), 0);
        for (int n = 0; n < 3; n++) {
            struct sim_list_opts fast = {.labels = sel}, scan = {.labels = sel, .limit = 1000};
            json_object *a = NULL, *b = NULL;
            CU_ASSERT_EQUAL_FATAL(sim_store_list(s, podgroups(), nss[n], &fast, &a, NULL), 0);
            CU_ASSERT_EQUAL_FATAL(sim_store_list(s, podgroups(), nss[n], &scan, &b, NULL), 0);
            names_of(a, indexed, sizeof(indexed));
            names_of(b, scanned, sizeof(scanned));
            CU_ASSERT_STRING_EQUAL(indexed, scanned);
            checked++;
            nonempty += indexed[0] != '\0';
            if (!nss[n])
                found += (int)json_object_array_length(json_object_object_get(a, "items"));
            json_object_put(a);
            json_object_put(b);
        }
        sim_selector_free(sel);
    }
    CU_ASSERT_EQUAL(checked, 30);
    /* every object still labelled is found under its value, once */
    int labelled = 0;
    for (int i = 0; i < 300; i++)
        labelled += i % 5 != 1 && !(i % 8 == 0);
    CU_ASSERT_EQUAL(found, labelled);
    CU_ASSERT(nonempty >= 20);
    sim_store_free(s);
}

struct seen {
    int n;
    enum sim_event_type type[8];
};

static void record_kind(void *data, const struct sim_event *ev)
{
    struct seen *w = data;
    if (w->n < 8)
        w->type[w->n++] = ev->type;
}

/* Graceful deletion (apiserver registry Store.Delete / shouldDeleteDuringUpdate): an object with
 * finalizers is marked; it goes when an update empties them. */
static void test_finalizers_and_graceful_deletion(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(100, &s), 0);
    json_object_put(create_rb(s, "f", ""));
    json_object *in = parse("{\"metadata\":{\"name\":\"f\",\"finalizers\":[\"karmada.io/"
                            "binding-controller\"]},\"spec\":{\"replicas\":2}}");
    CU_ASSERT_EQUAL(sim_store_update(s, rb(), "default", "f", in, 0, NULL, NULL), 0);
    json_object_put(in);
    struct seen w = {0};
    struct sim_store_watch *h = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_watch(s, sim_store_rv(s), record_kind, &w, &h, NULL), 0);
    json_object *out = NULL;
    CU_ASSERT_EQUAL(sim_store_delete(s, rb(), "default", "f", NULL, NULL, NOW, &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(at(out, "metadata.deletionTimestamp"));
    json_object_put(out);
    CU_ASSERT_EQUAL(w.n, 1);
    CU_ASSERT_EQUAL(w.type[0], SIM_EVENT_MODIFIED);
    /* Still there; deleting again changes nothing. */
    CU_ASSERT_EQUAL(sim_store_get(s, rb(), "default", "f", &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(at(out, "metadata.deletionTimestamp"));
    int64_t rv = sim_store_rv(s);
    CU_ASSERT_EQUAL(sim_store_delete(s, rb(), "default", "f", NULL, NULL, NOW, NULL, NULL), 0);
    CU_ASSERT_EQUAL(sim_store_rv(s), rv);
    /* A client cannot clear deletionTimestamp; emptying the finalizers deletes. */
    json_object *next = NULL;
    json_object_deep_copy(out, &next, NULL);
    json_object_put(out);
    json_object *meta = json_object_object_get(next, "metadata");
    json_object_object_add(meta, "finalizers", json_object_new_array());
    json_object_object_del(meta, "deletionTimestamp");
    CU_ASSERT_EQUAL(sim_store_update(s, rb(), "default", "f", next, 0, NULL, NULL), 0);
    json_object_put(next);
    CU_ASSERT_EQUAL(sim_store_get(s, rb(), "default", "f", NULL, NULL), MUSTER_ENOENT);
    CU_ASSERT_EQUAL(w.n, 2);
    CU_ASSERT_EQUAL(w.type[1], SIM_EVENT_DELETED);
    /* Without finalizers an object goes at once. */
    json_object_put(create_rb(s, "g", ""));
    CU_ASSERT_EQUAL(sim_store_delete(s, rb(), "default", "g", NULL, NULL, NOW, NULL, NULL), 0);
    CU_ASSERT_EQUAL(sim_store_get(s, rb(), "default", "g", NULL, NULL), MUSTER_ENOENT);
    sim_store_unwatch(s, h);
    sim_store_free(s);
}

static CU_TestInfo tests[] = {
    {"create sets uid, rv, generation; errors are Status", test_create_sets_server_fields},
    {"update: generation, status subresource, conflict", test_update_generation_status_conflict},
    {"no status subresource: status is content", test_no_status_subresource},
    {"dry runs validate and commit nothing", test_dry_run},
    {"delete with preconditions", test_delete_preconditions},
    {"finalizers: graceful deletion", test_finalizers_and_graceful_deletion},
    {"list paging and selectors", test_list_paging_and_selectors},
    {"a continued list is the first page's snapshot", test_continued_list_is_a_snapshot},
    {"watch replay, order and expiry", test_watch_replay_order_and_expiry},
    {"shared writes copy only what the store edits; versions stay", test_shared_writes},
    {"gets by key follow creates, deletes and updates", test_get_index_follows_writes},
    {"a list of one permanent id reads the label index, as the scan would",
     test_label_index_follows_writes},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/store", tests)
