/* muster-sim: a simulated Karmada hub speaking the Kubernetes REST protocol (see docs/sim.md). */
#include "cluster-adapters/sim/hub.h"
#include "cluster-adapters/sim/karmada.h"
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/file.h"
#include "queue/mem.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

struct app {
    uv_loop_t loop;
    uv_signal_t sigint, sigterm;
    uv_pipe_t in; /* --stop-on-stdin-eof: standard input, watched for its end */
    int watch_stdin;
    struct sim_hub *hub;
    int stopping;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: muster-sim --listen HOST:PORT [options]\n"
               "  --listen HOST:PORT            address to serve on (PORT 0: any free port)\n"
               "  --scenario FILE               clusters and nodes to simulate (YAML)\n"
               "  --history N                   watch events kept for replay (default 102400)\n"
               "  --bookmark-interval SECONDS   BOOKMARK period for watches that allow them (60)\n"
               "  --max-body BYTES              request body cap (3145728)\n"
               "  --token-file FILE             require this bearer token\n"
               "  --tls-cert FILE --tls-key FILE  serve HTTPS (HTTP/2 or HTTP/1.1)\n"
               "  --client-ca FILE              require client certificates signed by this CA\n"
               "  --fault-error-rate R          answer a share R of API requests 500 or 429\n"
               "  --fault-latency-ms MS         delay every request\n"
               "  --fault-drop-watch-after N    end each watch after N events\n"
               "  --seed N                      fault-injection seed\n"
               "  --event-log FILE              append every change as a JSON line\n"
               "  --event-log-objects 1         with --event-log: each line carries the object\n"
               "  --access-log FILE             append one line per request\n"
               "  --validate-writes DIR         check client writes against the CRDs in DIR\n"
               "  --feature-gates LIST          Karmada feature gates, e.g.\n"
               "                                MultiplePodTemplatesScheduling=true,Failover=true\n"
               "                                (each off by default, as in Karmada)\n"
               "  --enable-no-execute-taint-eviction BOOL  with Failover: the taint manager\n"
               "                                evicts (false)\n"
               "  --no-execute-taint-eviction-purge-mode MODE  Gracefully (default), Directly\n"
               "  --graceful-eviction-timeout SECONDS  eviction tasks expire (600)\n"
               "  --override-cache-lag-ms MS    OverridePolicy informer lag for renders (0)\n"
               "  --no-podgroup-crd             the hub lacks Volcano's PodGroup CRD\n"
               "  --stop-on-stdin-eof BOOL      stop as on SIGTERM when standard input (a pipe)\n"
               "                                ends: musterd --demo's child goes with it (false)\n");
}

static int parse_long(const char *flag, const char *s, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "muster-sim: %s: %s is not an integer in [%ld, %ld]\n", flag, s, min, max);
        return MUSTER_EINVAL;
    }
    *out = v;
    return 0;
}

/* "Gate=bool,Gate=bool" as Karmada's --feature-gates; only the gates the sim implements. */
static int parse_gates(const char *s, struct sim_karmada_options *o)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", s);
    char *p = buf;
    while (p && *p) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        char *eq = strchr(p, '=');
        if (!eq || (strcmp(eq + 1, "true") != 0 && strcmp(eq + 1, "false") != 0)) {
            fprintf(stderr, "muster-sim: --feature-gates: %s: expected Gate=true|false\n", p);
            return MUSTER_EINVAL;
        }
        *eq = '\0';
        if (strcmp(p, "MultiplePodTemplatesScheduling") == 0) {
            o->multiple_pod_templates = strcmp(eq + 1, "true") == 0;
        } else if (strcmp(p, "Failover") == 0) {
            o->failover = strcmp(eq + 1, "true") == 0;
        } else {
            fprintf(stderr, "muster-sim: --feature-gates: %s is not a gate the sim knows\n", p);
            return MUSTER_EINVAL;
        }
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* The token of --token-file into buf (cap bytes), trailing blanks cut; never printed. */
static int read_token(const char *path, char *buf, size_t cap)
{
    char *data, why[128];
    size_t n;
    int rc = kube_file_read(path, cap - 1, &data, &n, why, sizeof(why));
    if (rc) {
        fprintf(stderr, "muster-sim: --token-file %s: %s\n", path, why);
        return rc == MUSTER_ENOMEM ? rc : MUSTER_EIO;
    }
    memcpy(buf, data, n);
    memset(data, 0, n);
    muster_free(data);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
        n--;
    buf[n] = '\0';
    if (n == 0) {
        fprintf(stderr, "muster-sim: --token-file %s: empty\n", path);
        return MUSTER_EINVAL;
    }
    return 0;
}

static void on_server_done(void *data)
{
    struct app *app = data;
    uv_close((uv_handle_t *)&app->sigint, NULL);
    uv_close((uv_handle_t *)&app->sigterm, NULL);
    if (app->watch_stdin && !uv_is_closing((uv_handle_t *)&app->in))
        uv_close((uv_handle_t *)&app->in, NULL);
}

static void stop(struct app *app, const char *why)
{
    if (app->stopping)
        return;
    app->stopping = 1;
    fprintf(stderr, "muster-sim: %s, shutting down\n", why);
    sim_hub_shutdown(app->hub, on_server_done, app);
}

static void on_signal(uv_signal_t *h, int signum)
{
    stop(h->data, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

static void on_stdin_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    static char scratch[256]; /* what the parent writes is not read, only the end */
    (void)h, (void)suggested;
    *buf = uv_buf_init(scratch, sizeof scratch);
}

/* The end of standard input: the process that started us (musterd --demo) is gone, even if it
 * was killed outright and could not send SIGTERM, so stop rather than outlive it. */
static void on_stdin(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    (void)buf;
    if (nread >= 0)
        return;
    uv_read_stop(s);
    stop(s->data, "end of standard input");
}

static void walk_report(uv_handle_t *h, void *arg)
{
    fprintf(stderr, "muster-sim: handle still open at exit: %s\n", uv_handle_type_name(h->type));
    (*(int *)arg)++;
}

int main(int argc, char **argv)
{
    /* The hub allocates and frees many small JSON objects per request on a heap that only
     * grows: without these glibc hands the top of the heap back to the kernel after bursts of
     * frees and the next burst pays a page fault (and a zeroed page) per page again. */
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
    mallopt(M_TOP_PAD, 64 * 1024 * 1024);
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    struct sim_server_config cfg = {0};
    const char *listen = NULL, *scenario = NULL, *token_file = NULL, *event_log = NULL;
    long history = 0, log_objects = 0; /* 0: the hub's default */
    int app_watch_stdin = 0;
    struct sim_karmada_options kopts = {0};
    char token[512];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n = 0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--no-podgroup-crd") == 0) {
            kopts.no_podgroup_crd = 1; /* a switch: the only flag without a value */
            continue;
        }
        if (!v) {
            fprintf(stderr, "muster-sim: %s needs a value (or is unknown)\n", a);
            usage(stderr);
            return 2;
        }
        i++;
        if (strcmp(a, "--listen") == 0) {
            listen = v;
        } else if (strcmp(a, "--scenario") == 0) {
            scenario = v;
        } else if (strcmp(a, "--event-log") == 0) {
            event_log = v;
        } else if (strcmp(a, "--validate-writes") == 0) {
            cfg.validate_dir = v;
        } else if (strcmp(a, "--event-log-objects") == 0) {
            if (parse_long(a, v, 0, 1, &log_objects) < 0)
                return 2;
        } else if (strcmp(a, "--feature-gates") == 0) {
            if (parse_gates(v, &kopts) < 0)
                return 2;
        } else if (strcmp(a, "--enable-no-execute-taint-eviction") == 0) {
            if (strcmp(v, "true") != 0 && strcmp(v, "false") != 0) {
                fprintf(stderr, "muster-sim: %s: expected true or false\n", a);
                return 2;
            }
            kopts.taint_eviction = strcmp(v, "true") == 0;
        } else if (strcmp(a, "--no-execute-taint-eviction-purge-mode") == 0) {
            if (strcmp(v, "Gracefully") != 0 && strcmp(v, "Directly") != 0) {
                fprintf(stderr, "muster-sim: %s: %s: Invalid mode (Gracefully or Directly)\n", a,
                        v);
                return 2;
            }
            kopts.taint_purge_directly = strcmp(v, "Directly") == 0;
        } else if (strcmp(a, "--graceful-eviction-timeout") == 0) {
            if (parse_long(a, v, 1, 86400 * 365, &n) < 0)
                return 2;
            kopts.graceful_eviction_timeout_s = n;
        } else if (strcmp(a, "--override-cache-lag-ms") == 0) {
            if (parse_long(a, v, 0, 3600000, &n) < 0)
                return 2;
            kopts.override_lag_ms = n;
        } else if (strcmp(a, "--stop-on-stdin-eof") == 0) {
            if (strcmp(v, "true") != 0 && strcmp(v, "false") != 0) {
                fprintf(stderr, "muster-sim: %s: expected true or false\n", a);
                return 2;
            }
            app_watch_stdin = strcmp(v, "true") == 0;
        } else if (strcmp(a, "--access-log") == 0) {
            cfg.access_log = v;
        } else if (strcmp(a, "--token-file") == 0) {
            token_file = v;
        } else if (strcmp(a, "--tls-cert") == 0) {
            cfg.tls_cert = v;
        } else if (strcmp(a, "--tls-key") == 0) {
            cfg.tls_key = v;
        } else if (strcmp(a, "--client-ca") == 0) {
            cfg.client_ca = v;
        } else if (strcmp(a, "--history") == 0) {
            if (parse_long(a, v, 1, 100000000, &history) < 0)
                return 2;
        } else if (strcmp(a, "--bookmark-interval") == 0) {
            if (parse_long(a, v, 1, 86400, &n) < 0)
                return 2;
            cfg.bookmark_interval_ms = (unsigned)n * 1000;
        } else if (strcmp(a, "--max-body") == 0) {
            if (parse_long(a, v, 1024, 1L << 30, &n) < 0)
                return 2;
            cfg.max_body = (size_t)n;
        } else if (strcmp(a, "--fault-error-rate") == 0) {
            char *end = NULL;
            errno = 0;
            cfg.fault_error_rate = strtod(v, &end);
            if (errno || end == v || *end || cfg.fault_error_rate < 0 || cfg.fault_error_rate > 1) {
                fprintf(stderr, "muster-sim: --fault-error-rate: %s is not in [0, 1]\n", v);
                return 2;
            }
        } else if (strcmp(a, "--fault-latency-ms") == 0) {
            if (parse_long(a, v, 0, 600000, &n) < 0)
                return 2;
            cfg.fault_latency_ms = (unsigned)n;
        } else if (strcmp(a, "--fault-drop-watch-after") == 0) {
            if (parse_long(a, v, 0, 1L << 40, &n) < 0)
                return 2;
            cfg.fault_drop_watch_after = n;
        } else if (strcmp(a, "--seed") == 0) {
            if (parse_long(a, v, 0, 4294967295L, &n) < 0)
                return 2;
            cfg.seed = (unsigned)n;
        } else {
            fprintf(stderr, "muster-sim: unknown flag %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!listen) {
        fprintf(stderr, "muster-sim: --listen HOST:PORT is required\n");
        usage(stderr);
        return 2;
    }
    char host[256];
    const char *colon = strrchr(listen, ':');
    long port = 0;
    if (!colon || (size_t)(colon - listen) >= sizeof(host) || colon == listen) {
        fprintf(stderr, "muster-sim: --listen %s: expected HOST:PORT\n", listen);
        return 2;
    }
    memcpy(host, listen, (size_t)(colon - listen));
    host[colon - listen] = '\0';
    /* [::1]:8080 */
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    if (parse_long("--listen", colon + 1, 0, 65535, &port) < 0)
        return 2;
    cfg.host = host;
    cfg.port = (int)port;
    if (token_file) {
        if (read_token(token_file, token, sizeof(token)) < 0)
            return 2;
        cfg.token = token;
    }
    signal(SIGPIPE, SIG_IGN);
    struct app app;
    memset(&app, 0, sizeof(app));
    uv_loop_init(&app.loop);
    struct sim_hub_config hcfg = {.server = cfg,
                                  .history = (size_t)history,
                                  .scenario = scenario,
                                  .event_log = event_log,
                                  .event_log_objects = (int)log_objects,
                                  .karmada = kopts};
    char err[512] = "";
    int rc = sim_hub_start(&app.loop, &hcfg, &app.hub, err, sizeof(err));
    int status = 0;
    if (rc < 0) {
        fprintf(stderr, "muster-sim: %s\n", err[0] ? err : kube_strerror(rc));
        status = 1;
    } else {
        uv_signal_init(&app.loop, &app.sigint);
        uv_signal_init(&app.loop, &app.sigterm);
        app.sigint.data = app.sigterm.data = &app;
        uv_signal_start(&app.sigint, on_signal, SIGINT);
        uv_signal_start(&app.sigterm, on_signal, SIGTERM);
        if (app_watch_stdin) {
            uv_pipe_init(&app.loop, &app.in, 0);
            app.in.data = &app;
            app.watch_stdin = 1;
            rc = uv_pipe_open(&app.in, 0);
            if (!rc)
                rc = uv_read_start((uv_stream_t *)&app.in, on_stdin_alloc, on_stdin);
            if (rc) {
                fprintf(stderr, "muster-sim: --stop-on-stdin-eof: standard input: %s\n",
                        uv_strerror(rc));
                status = 1;
                stop(&app, "cannot watch standard input");
            }
        }
        /* Tests and musterd --demo read this line to learn the port when they asked for 0. */
        if (!app.stopping)
            printf("muster-sim: listening on %s://%s:%d\n", cfg.tls_cert ? "https" : "http", host,
                   sim_hub_port(app.hub));
        fflush(stdout);
    }
    uv_run(&app.loop, UV_RUN_DEFAULT);
    int open = 0;
    uv_walk(&app.loop, walk_report, &open);
    if (uv_loop_close(&app.loop) != 0 || open) {
        fprintf(stderr, "muster-sim: the event loop did not close cleanly\n");
        status = 1;
    }
    sim_hub_free(app.hub);
    return status;
}
