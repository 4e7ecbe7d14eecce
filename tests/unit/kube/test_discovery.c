/* Tests for cluster-adapters/kube/discovery.c: kinds mapped to resources from fixtures under
 * tests/fixtures/discovery/, with one group version down (503) as aggregated APIs can be. */
#include "cluster-adapters/kube/discovery.h"
#include "fakeapi.h"
#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"
#include "testing.h"

static void h_discovery(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    static const struct {
        const char *path, *fixture;
    } routes[] = {
        {"/api", "discovery/api.json"},
        {"/api/v1", "discovery/api-v1.json"},
        {"/apis", "discovery/apis.json"},
        {"/apis/apps/v1", "discovery/apps-v1.json"},
        {"/apis/work.karmada.io/v1alpha2", "discovery/work-v1alpha2.json"},
        {"/apis/work.karmada.io/v1alpha1", "discovery/work-v1alpha1.json"},
    };
    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
        if (strcmp(r->path, routes[i].path) == 0) {
            char *body = fake_fixture(routes[i].fixture);
            fake_respond(c, 200, NULL, body ? body : "{}");
            free(body);
            return;
        }
    }
    fake_status(c, 503, "ServiceUnavailable",
                "the server is currently unable to handle the request", NULL);
}

struct dt {
    int done, err, closed;
};

static void on_refreshed(int err, void *ud)
{
    struct dt *t = ud;
    t->done = 1;
    t->err = err;
}

static void on_closed(void *ud)
{
    ((struct dt *)ud)->closed = 1;
}

static void test_discovery_maps_kinds(void)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct fake_server srv;
    CU_ASSERT_FATAL(fake_server_start(&srv, &loop, h_discovery, NULL) == 0);
    struct kube_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.server = muster_strdup(srv.url);
    struct kube_client *c;
    CU_ASSERT_FATAL(kube_client_new(&loop, &cfg, NULL, &c) == 0);
    struct kube_discovery d;
    CU_ASSERT_EQUAL(kube_discovery_init(&d, c), 0);
    struct dt t = {0};
    CU_ASSERT_EQUAL(kube_discovery_refresh(&d, on_refreshed, &t), 0);
    CU_ASSERT_EQUAL(kube_discovery_refresh(&d, on_refreshed, &t), MUSTER_EBUSY);
    while (!t.done && uv_run(&loop, UV_RUN_ONCE))
        ;
    /* cluster.karmada.io is down: reported, and the rest is still usable. */
    CU_ASSERT_EQUAL(t.err, MUSTER_EHTTP);

    const struct kube_api_resource *e = kube_discovery_find(&d, "apps/v1", "Deployment");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->resource, "deployments");
    CU_ASSERT(e->namespaced && e->has_status);
    e = kube_discovery_find(&d, "v1", "Namespace");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->group, "");
    CU_ASSERT(!e->namespaced && e->has_status);
    e = kube_discovery_find(&d, "v1", "Event");
    CU_ASSERT(e && e->namespaced && !e->has_status);
    e = kube_discovery_find(&d, "work.karmada.io/v1alpha1", "Work");
    CU_ASSERT(e && strcmp(e->resource, "works") == 0);
    CU_ASSERT_PTR_NULL(kube_discovery_find(&d, "cluster.karmada.io/v1alpha1", "Cluster"));
    CU_ASSERT_PTR_NULL(kube_discovery_find(&d, "apps/v1", "Scale")); /* a subresource */

    char path[256];
    CU_ASSERT_EQUAL(kube_discovery_path(&d, "work.karmada.io/v1alpha2", "ResourceBinding", "ns1",
                                        "rb-1", path, sizeof(path)),
                    0);
    CU_ASSERT_STRING_EQUAL(path,
                           "/apis/work.karmada.io/v1alpha2/namespaces/ns1/resourcebindings/rb-1");
    CU_ASSERT_EQUAL(kube_discovery_path(&d, "work.karmada.io/v1alpha2", "ClusterResourceBinding",
                                        "ignored", NULL, path, sizeof(path)),
                    0);
    CU_ASSERT_STRING_EQUAL(path, "/apis/work.karmada.io/v1alpha2/clusterresourcebindings");
    CU_ASSERT_EQUAL(kube_discovery_path(&d, "v1", "Namespace", NULL, "default", path, sizeof(path)),
                    0);
    CU_ASSERT_STRING_EQUAL(path, "/api/v1/namespaces/default");
    CU_ASSERT_EQUAL(kube_discovery_path(&d, "v9", "Nope", NULL, NULL, path, sizeof(path)),
                    MUSTER_ENOENT);

    /* A second refresh replaces the table in one go. */
    t.done = 0;
    CU_ASSERT_EQUAL(kube_discovery_refresh(&d, on_refreshed, &t), 0);
    CU_ASSERT_PTR_NOT_NULL(kube_discovery_find(&d, "apps/v1", "Deployment")); /* old table */
    while (!t.done && uv_run(&loop, UV_RUN_ONCE))
        ;
    CU_ASSERT_PTR_NOT_NULL(kube_discovery_find(&d, "apps/v1", "Deployment"));

    CU_ASSERT_EQUAL(kube_discovery_close(&d), 0);
    kube_client_close(c, on_closed, &t);
    fake_server_close(&srv);
    uv_run(&loop, UV_RUN_DEFAULT);
    CU_ASSERT(t.closed);
    CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
    kube_config_close(&cfg);
}

static CU_TestInfo tests[] = {
    {"kinds mapped to resources, partial failure reported", test_discovery_maps_kinds},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/discovery", tests)
