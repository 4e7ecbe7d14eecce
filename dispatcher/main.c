/* musterd: the multi-cluster queue dispatcher. Flags follow Kubernetes components. */
#include "cluster-adapters/kube/selector.h"
#include "dispatcher/crashpoint.h"
#include "dispatcher/daemon.h"
#include "dispatcher/recovery.h"
#include "dispatcher/store.h"
#include "dispatcher/version.h"
#include "dispatcher/errors.h"

#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: musterd [flags]\n"
            "  --db PATH               SQLite database (default muster.db)\n"
            "  --demo                  run against a simulated Karmada hub (muster-sim, started as\n"
            "                          a child process), with sample queues and a stream of\n"
            "                          workloads (needs --scenario)\n"
            "  --demo-seconds N        stop the demo after N seconds (default: until Ctrl-C)\n"
            "  --demo-rate R           demo workloads created per second (default 1)\n"
            "  --scenario PATH         with --demo: the simulated hub's clusters and objects\n"
            "  --sim-binary PATH       with --demo: the muster-sim to run (default: the one beside\n"
            "                          musterd, else muster-sim on PATH)\n"
            "  --kubeconfig PATH       hub kubeconfig (else in-cluster, $KUBECONFIG, ~/.kube/config)\n"
            "  --listen ADDR:PORT      admin API address (default 127.0.0.1:8080; port 0 picks one)\n"
            "  --token-auth-file PATH  bearer tokens, CSV token,user,role (viewer|operator|admin);\n"
            "                          without it the API serves loopback addresses only\n"
            "  --tls-cert-file PATH    serve the admin API over HTTPS (HTTP/2 by ALPN) with this\n"
            "  --tls-private-key-file PATH  certificate and key\n"
            "  --client-ca-file PATH   accept client certificates signed by this CA (CN = user)\n"
            "  --scheduler-name NAME   the schedulerName muster assigns for (default muster)\n"
            "  --pod-scheduler-name NAME  schedulerName muster's OverridePolicy gives pods\n"
            "                          (default volcano)\n"
            "  --context NAME          kubeconfig context (default: its current-context)\n"
            "  --kube-api-qps Q        requests per second to the hub (default 200; -1: no limit)\n"
            "  --kube-api-burst N      burst of requests to the hub (default 400)\n"
            "  --cluster-lost-grace D  a member cluster NotReady this long is lost: gangs with a share\n"
            "                          there follow their queue's onClusterLoss (default 5m)\n"
            "  --grace-period S        on SIGTERM, seconds to finish requests in flight (default 10)\n"
            "  --reclaim on|off        lend the unused guarantees of reclaimable queues to other\n"
            "                          queues and take them back by preempting borrowers' gangs\n"
            "                          (default off: every guarantee is held, nothing preempted)\n"
            "  --reclaim-hold D        with --reclaim on: how long a preemption's victims keep out\n"
            "                          of the room freed for its beneficiary (default 30s; more\n"
            "                          than the members' status period, Karmada's is 10s)\n"
            "  --owner-annotation KEY  the workload template's annotation naming its owner, for\n"
            "                          queues' ownerLimits (default: owners are not read)\n"
            "  --webhook-tenancy on|off   the admission webhook denies a new ResourceBinding\n"
            "                          whose queue's namespaceSelector does not admit its\n"
            "                          namespace (default off: it is created and parked)\n"
            "  --leader-elect          dispatch only while holding a coordination.k8s.io Lease;\n"
            "                          until then serve the admin API read-only\n"
            "  --leader-elect-lease-duration D   (default 15s)\n"
            "  --leader-elect-renew-deadline D   (default 10s)\n"
            "  --leader-elect-retry-period D     (default 2s)\n"
            "  --leader-elect-resource-namespace NS  (default muster-system)\n"
            "  --leader-elect-resource-name NAME     (default musterd)\n"
            "  --version               print the version\n");
}

/* "15s", "500ms", "2m", or plain seconds, as Kubernetes' duration flags take them. */
static int parse_duration_ms(const char *s, uint64_t *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0 || v != v)
        return -1;
    double mul = 1000;
    if (strcmp(end, "ms") == 0)
        mul = 1;
    else if (strcmp(end, "s") == 0 || *end == '\0')
        mul = 1000;
    else if (strcmp(end, "m") == 0)
        mul = 60000;
    else
        return -1;
    *out = (uint64_t)(v * mul);
    return 0;
}

/* Blocks of MMAP_THRESHOLD and more are mapped apart and unmapped when freed: glibc raises the
 * threshold to the largest block freed so far (up to 32 MiB), and a burst then leaves its
 * large transient arrays (a batch of 100,000 ledger writes, the rows for their commit, an id
 * map's or a table's old slots when it grows) as holes in the heap that stay resident beside
 * live objects (issue 22; docs/benchmarks.md, "Session 13"). Fixed, they go back to the system
 * when freed. MALLOC_MMAP_THRESHOLD_ in the environment still wins. */
#define MMAP_THRESHOLD (1 << 20)
static void malloc_tune(void)
{
#ifdef __GLIBC__
    if (!getenv("MALLOC_MMAP_THRESHOLD_"))
        (void)mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
#endif
}

int main(int argc, char **argv)
{
    malloc_tune();
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},
        {"demo", no_argument, NULL, 'D'},
        {"demo-seconds", required_argument, NULL, 's'},
        {"scenario", required_argument, NULL, 'S'},
        {"sim-binary", required_argument, NULL, 'B'},
        {"kubeconfig", required_argument, NULL, 'k'},
        {"listen", required_argument, NULL, 'l'},
        {"token-auth-file", required_argument, NULL, 't'},
        {"tls-cert-file", required_argument, NULL, 'c'},
        {"tls-private-key-file", required_argument, NULL, 'K'},
        {"client-ca-file", required_argument, NULL, 'C'},
        {"scheduler-name", required_argument, NULL, 'n'},
        {"pod-scheduler-name", required_argument, NULL, 'p'},
        {"context", required_argument, NULL, 'x'},
        {"kube-api-qps", required_argument, NULL, 'q'},
        {"kube-api-burst", required_argument, NULL, 'b'},
        {"grace-period", required_argument, NULL, 'g'},
        {"demo-rate", required_argument, NULL, 'r'},
        {"leader-elect", no_argument, NULL, 'L'},
        {"reclaim", required_argument, NULL, 'R'},
        {"webhook-tenancy", required_argument, NULL, 'W'},
        {"owner-annotation", required_argument, NULL, 'O'},
        {"cluster-lost-grace", required_argument, NULL, 'G'},
        {"reclaim-hold", required_argument, NULL, 'H'},
        {"leader-elect-lease-duration", required_argument, NULL, '1'},
        {"leader-elect-renew-deadline", required_argument, NULL, '2'},
        {"leader-elect-retry-period", required_argument, NULL, '3'},
        {"leader-elect-resource-namespace", required_argument, NULL, '4'},
        {"leader-elect-resource-name", required_argument, NULL, '5'},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db = "muster.db";
    const char *listen = "127.0.0.1:8080", *token_file = NULL, *scenario = NULL;
    const char *sim_binary = NULL;
    const char *tls_cert = NULL, *tls_key = NULL, *client_ca = NULL;
    int demo = 0;
    double seconds = 0, rate = 0, qps = 0, grace = 10;
    long burst = 0;
    const char *kubeconfig = NULL, *context = NULL, *scheduler = NULL, *pod_scheduler = NULL;
    int leader_elect = 0, reclaim = 0, webhook_tenancy = 0;
    const char *owner_annotation = NULL;
    uint64_t lease_ms[3] = {0, 0, 0};
    uint64_t lost_grace_ms = 0, reclaim_hold_ms = 0;
    const char *lease_ns = NULL, *lease_name = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            db = optarg;
            break;
        case 'D':
            demo = 1;
            break;
        case 's': {
            char *end;
            seconds = strtod(optarg, &end);
            if (*end || seconds < 0) {
                fprintf(stderr, "musterd: --demo-seconds: not a number of seconds: %s\n",
                        optarg);
                return 2;
            }
            break;
        }
        case 'l':
            listen = optarg;
            break;
        case 'S':
            scenario = optarg;
            break;
        case 'B':
            sim_binary = optarg;
            break;
        case 'c':
            tls_cert = optarg;
            break;
        case 'K':
            tls_key = optarg;
            break;
        case 'C':
            client_ca = optarg;
            break;
        case 't':
            token_file = optarg;
            break;
        case 'k':
            kubeconfig = optarg;
            break;
        case 'x':
            context = optarg;
            break;
        case 'n':
            scheduler = optarg;
            break;
        case 'p':
            pod_scheduler = optarg;
            break;
        case 'q':
        case 'r':
        case 'g': {
            char *end;
            double v = strtod(optarg, &end);
            if (*end || (c != 'q' && v < 0) || v != v) {
                fprintf(stderr, "musterd: --%s: not a number: %s\n",
                        c == 'q' ? "kube-api-qps" : c == 'r' ? "demo-rate" : "grace-period",
                        optarg);
                return 2;
            }
            *(c == 'q' ? &qps : c == 'r' ? &rate : &grace) = v;
            break;
        }
        case 'L':
            leader_elect = 1;
            break;
        case 'R':
            if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0) {
                fprintf(stderr, "musterd: --reclaim: expected on or off, got %s\n", optarg);
                return 2;
            }
            reclaim = strcmp(optarg, "on") == 0;
            break;
        case 'O':
            if (!kube_label_key_valid(optarg)) {
                fprintf(stderr,
                        "musterd: --owner-annotation: %s is not an annotation key (an optional "
                        "DNS prefix and '/', then at most 63 of [A-Za-z0-9-_.])\n",
                        optarg);
                return 2;
            }
            owner_annotation = optarg;
            break;
        case 'W':
            if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0) {
                fprintf(stderr, "musterd: --webhook-tenancy: expected on or off, got %s\n",
                        optarg);
                return 2;
            }
            webhook_tenancy = strcmp(optarg, "on") == 0;
            break;
        case 'G':
            if (parse_duration_ms(optarg, &lost_grace_ms) || lost_grace_ms == 0) {
                fprintf(stderr,
                        "musterd: --cluster-lost-grace: not a positive duration (e.g. 5m, 30s): "
                        "%s\n",
                        optarg);
                return 2;
            }
            break;
        case 'H':
            /* Zero would let a victim back into its beneficiary's room at once; a victim kept
             * out of line for more than an hour is a typo rather than a choice. */
            if (parse_duration_ms(optarg, &reclaim_hold_ms) || reclaim_hold_ms == 0 ||
                reclaim_hold_ms > 3600000) {
                fprintf(stderr,
                        "musterd: --reclaim-hold: not a duration from 1ms to 1h (e.g. 30s): %s\n",
                        optarg);
                return 2;
            }
            break;
        case '1':
        case '2':
        case '3':
            if (parse_duration_ms(optarg, &lease_ms[c - '1'])) {
                static const char *const which[] = {"--leader-elect-lease-duration",
                                                    "--leader-elect-renew-deadline",
                                                    "--leader-elect-retry-period"};
                fprintf(stderr, "musterd: %s: not a duration (e.g. 15s, 500ms): %s\n",
                        which[c - '1'], optarg);
                return 2;
            }
            break;
        case '4':
            lease_ns = optarg;
            break;
        case '5':
            lease_name = optarg;
            break;
        case 'b': {
            char *end;
            burst = strtol(optarg, &end, 10);
            if (*end || burst <= 0 || burst > 1000000) {
                fprintf(stderr, "musterd: --kube-api-burst: not a positive number: %s\n", optarg);
                return 2;
            }
            break;
        }
        case 'V':
            printf("musterd %s\n", disp_version());
            return 0;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "musterd: unexpected argument: %s\n", argv[optind]);
        return 2;
    }
    if (disp_crashpoint_init())
        return 2;
    if (demo && !scenario) {
        fprintf(stderr, "musterd: --demo needs --scenario (e.g. deploy/scenarios/demo.yaml)\n");
        return 2;
    }

    /* ADDR:PORT, with IPv6 addresses in brackets: [::1]:8080 */
    char host[64];
    const char *colon = strrchr(listen, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : -1;
    size_t hlen = colon ? (size_t)(colon - listen) : 0;
    if (hlen >= 2 && listen[0] == '[' && listen[hlen - 1] == ']') {
        listen++;
        hlen -= 2;
    }
    if (!colon || !end || *end || port < 0 || port > 65535 || hlen == 0 || hlen >= sizeof(host)) {
        fprintf(stderr, "musterd: --listen: expected ADDR:PORT, got %s\n", listen);
        return 2;
    }
    memcpy(host, listen, hlen);
    host[hlen] = '\0';
    struct api_options api = {.host = host,
                              .port = (int)port,
                              .token_file = token_file,
                              .tls_cert_file = tls_cert,
                              .tls_private_key_file = tls_key,
                              .client_ca_file = client_ca};

    struct store *s;
    char err[512];
    int rc = store_open(db, NULL, &s, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "musterd: %s: %s\n", db, err);
        return 1;
    }
    struct queue_tree *t = queue_tree_new();
    if (t)
        queue_tree_set_lending(t, reclaim);
    struct disp_load_stats ls;
    rc = t ? disp_load(s, t, &ls, err, sizeof(err)) : MUSTER_ENOMEM;
    if (rc) {
        fprintf(stderr, "musterd: %s: %s\n", db, t ? err : "out of memory");
        queue_tree_free(t);
        store_close(s);
        return 1;
    }
    printf("musterd %s: database %s: %zu queues, %zu pending, %zu admitted\n", disp_version(), db,
           ls.queues, ls.pending, ls.admitted);
    printf("reclaim: %s\n", reclaim ? "on: unused guarantees of reclaimable queues are lent"
                                     : "off: every guarantee is held for its queue");
    if (!token_file)
        printf("no --token-auth-file: the admin API accepts anyone and listens on loopback only\n");
    fflush(stdout);
    struct daemon_options o = {.kubeconfig = kubeconfig,
                               .context = context,
                               .kube_qps = qps,
                               .kube_burst = (int)burst,
                               .api = &api,
                               .ctl = {.scheduler_name = scheduler,
                                       .pod_scheduler = pod_scheduler,
                                       .cluster_lost_grace_ms = lost_grace_ms,
                                       .webhook_tenancy = webhook_tenancy,
                                       .owner_annotation = owner_annotation,
                                       .reclaim_hold_ms = reclaim_hold_ms},
                               .grace_ms = (uint64_t)(grace * 1000),
                               .demo = demo,
                               .scenario = scenario,
                               .sim_binary = sim_binary,
                               .demo_seconds = seconds,
                               .demo_rate = rate,
                               .leader_elect = leader_elect,
                               .reclaim = reclaim,
                               .lease_duration_ms = lease_ms[0],
                               .renew_deadline_ms = lease_ms[1],
                               .retry_period_ms = lease_ms[2],
                               .lease_namespace = lease_ns,
                               .lease_name = lease_name};
    rc = daemon_run(s, &t, &o);
    queue_tree_free(t);
    store_close(s);
    if (rc) {
        fprintf(stderr, "musterd: %s\n", muster_strerror(rc));
        return 1;
    }
    return 0;
}
