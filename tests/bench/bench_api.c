/* Admin API benchmark: `GET /api/v1/queues?limit=1000` over the 1,030-queue fleet, served by
 * musterd's API (h2o on a libuv loop in its own thread, every response built from the live
 * engine), beside nginx serving the very same bytes as a static file. One client for both: wrk on
 * loopback with the same threads, connections and duration.
 *   api_get_queues_rps     requests/s of the API
 *   nginx_static_rps       requests/s of nginx, the yardstick
 *   api_vs_nginx_ratio     API / nginx
 *   api_get_queues_bytes   size of the response body both send */
#include "bench/bench.h"
#include "bench/fleet.h"

#include "dispatcher/api.h"
#include "dispatcher/recovery.h"
#include "cluster-adapters/kube/resources.h"
#include "dispatcher/store.h"
#include "dispatcher/errors.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#define PAGE 1000
#define LIST_PATH "/api/v1/queues"
#define LIST_QUERY "?limit=1000"
/* wrk's parameters, the same for both servers. */
#define WRK_THREADS "1"
#define WRK_CONNECTIONS "32"
#define WRK_DURATION "5s"
#define BODY_MAX (64u << 20)    /* bytes of the response body we keep */
#define WRK_OUT_MAX (64 * 1024) /* bytes of wrk's report we read */
#define NGINX_START_TRIES 200   /* × 25 ms */

/* What must be undone if the benchmark stops early: nginx and the temporary directory. */
static pid_t nginx_pid;
static char tmpdir[512];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void cleanup(void)
{
    if (nginx_pid > 0) {
        kill(nginx_pid, SIGTERM);
        waitpid(nginx_pid, NULL, 0);
        nginx_pid = 0;
    }
    if (tmpdir[0]) {
        nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        tmpdir[0] = '\0';
    }
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench api: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    cleanup();
    exit(1);
}

static void die_rc(const char *what, int rc, const char *msg)
{
    char m[512];
    snprintf(m, sizeof(m), "%s %s", muster_strerror(rc), msg ? msg : "");
    die("%s: %s", what, m);
}

/* Finds an executable in PATH, then in the sbin folders (nginx is in /usr/sbin, which a user's
 * PATH may lack). 0 and its path in out, or -1. */
static int find_exe(const char *name, char *out, size_t cap)
{
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin:/usr/local/sbin", path ? path : "/usr/bin");
    for (char *d = dirs; d;) {
        char *colon = strchr(d, ':');
        if (colon)
            *colon = '\0';
        int n = snprintf(out, cap, "%s/%s", d, name);
        if (*d && n > 0 && (size_t)n < cap && access(out, X_OK) == 0)
            return 0;
        d = colon ? colon + 1 : NULL;
    }
    return -1;
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        die("cannot write %s: %s", path, strerror(errno));
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0)
        die("cannot create %s: %s", path, strerror(errno));
}

/* ---- the store and the engine ---- */

static char *json_text(const struct queue_resnames *names, const struct queue_resvec *v)
{
    json_object *o = kube_resvec_json(names, v);
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return s;
}

/* Writes the fleet's queues to a new store at path, then loads them into a fresh tree, as
 * musterd does at start-up: the API mirrors the store's rows, so both must agree. */
static void fleet_store(const char *path, struct store **out_store, struct queue_tree **out_tree)
{
    struct queue_tree *scratch = queue_tree_new();
    struct fleet f;
    fleet_build(&f, scratch);
    struct queue_resnames *names = queue_tree_resnames(scratch);
    struct store_options opt = {.sync = STORE_SYNC_NORMAL};
    struct store *s;
    char err[256];
    int rc = store_open(path, &opt, &s, err, sizeof(err));
    if (rc)
        die_rc("open", rc, err);
    if ((rc = store_begin(s)))
        die_rc("begin", rc, store_errmsg(s));
    for (int i = 0; i < f.nqueues; i++) {
        const struct queue_spec *sp = &f.queues[i].spec;
        char *g = json_text(names, &sp->guarantee), *d = json_text(names, &sp->deserved),
             *c = json_text(names, &sp->capability);
        struct store_queue q = {.name = sp->name,
                                .parent = sp->parent,
                                .weight = sp->weight,
                                .priority = sp->priority,
                                .state = queue_state_name(sp->state),
                                .queueing_strategy = queue_strategy_name(sp->strategy),
                                .guarantee = g,
                                .deserved = d,
                                .capability = c,
                                .gang_timeout_ms = 300000,
                                .resource_version = 1,
                                .created_at = 1700000000000LL,
                                .updated_at = 1700000000000LL};
        if ((rc = store_queue_put(s, &q)))
            die_rc("queue", rc, store_errmsg(s));
        free(g);
        free(d);
        free(c);
    }
    if ((rc = store_commit(s)))
        die_rc("commit", rc, store_errmsg(s));
    fleet_free(&f);
    queue_tree_free(scratch);

    struct queue_tree *t = queue_tree_new();
    if ((rc = disp_load(s, t, NULL, err, sizeof(err))))
        die_rc("load", rc, err);
    *out_store = s;
    *out_tree = t;
}

/* ---- the API on its own loop thread ---- */

struct apithread {
    uv_loop_t loop;
    uv_async_t stop;
    uv_thread_t thread;
    struct api_ctx ctx;
    struct api_server *api;
    int closed;
};

static void on_api_closed(void *ud)
{
    struct apithread *a = ud;
    a->closed = 1;
}

static void on_stop(uv_async_t *h)
{
    struct apithread *a = h->data;
    api_server_close(a->api, on_api_closed, a);
    uv_close((uv_handle_t *)&a->stop, NULL);
}

static void api_main(void *arg)
{
    struct apithread *a = arg;
    uv_run(&a->loop, UV_RUN_DEFAULT);
}

/* Starts the API on a new loop before that loop's thread exists, so the store and the tree are
 * used by one thread at a time: here until uv_thread_create, then by the loop thread alone. */
static void api_start(struct apithread *a, struct store *s, struct queue_tree *t)
{
    memset(a, 0, sizeof(*a));
    if (uv_loop_init(&a->loop) || uv_async_init(&a->loop, &a->stop, on_stop))
        die("cannot start a loop");
    a->stop.data = a;
    a->ctx = (struct api_ctx){.store = s, .tree = t};
    /* No token file: loopback only. The rate limit is per client address and wrk's 32
     * connections all come from 127.0.0.1, so it is lifted out of the way. */
    struct api_options opt = {.host = "127.0.0.1",
                              .port = 0,
                              .idle_timeout_ms = 2000,
                              .rate_per_s = UINT32_MAX,
                              .rate_burst = UINT32_MAX};
    char err[256];
    int rc = api_server_start(&a->loop, &opt, &a->ctx, &a->api, err, sizeof(err));
    if (rc)
        die_rc("api_server_start", rc, err);
    if (uv_thread_create(&a->thread, api_main, a))
        die("cannot start the API thread");
}

static void api_stop(struct apithread *a)
{
    uv_async_send(&a->stop);
    uv_thread_join(&a->thread);
    if (!a->closed || uv_loop_close(&a->loop) != 0)
        die("the API left a handle on its loop");
}

/* ---- clients ---- */

struct buf {
    char *data;
    size_t len;
};

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    struct buf *b = ud;
    size_t add = size * n;
    if (b->len + add > BODY_MAX)
        return 0;
    char *d = realloc(b->data, b->len + add + 1);
    if (!d)
        return 0;
    memcpy(d + b->len, p, add);
    b->len += add;
    d[b->len] = '\0';
    b->data = d;
    return add;
}

/* GET url; 0 and the body in *out (caller frees out->data) on a 200, else -1. */
static int http_get(const char *url, struct buf *out)
{
    CURL *e = curl_easy_init();
    if (!e)
        return -1;
    *out = (struct buf){NULL, 0};
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 10000L);
    long code = 0;
    CURLcode cc = curl_easy_perform(e);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(e);
    if (cc != CURLE_OK || code != 200) {
        free(out->data);
        *out = (struct buf){NULL, 0};
        return -1;
    }
    return 0;
}

/* Runs argv[0] (a path) with stdout and stderr into out (NUL-terminated, cut at cap - 1);
 * returns its exit status, or -1 if it did not exit normally. */
static int run_capture(char *const argv[], char *out, size_t cap)
{
    int fd[2];
    if (pipe(fd) != 0)
        die("pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t n;
    char sink[4096];
    while ((n = read(fd[0], len + 1 < cap ? out + len : sink,
                     len + 1 < cap ? cap - 1 - len : sizeof(sink))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (len + 1 < cap)
            len += (size_t)n;
    }
    out[len] = '\0';
    close(fd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* One wrk run against url; returns its Requests/sec. A failed run, a report without the rate or
 * one counting non-2xx answers ends the benchmark with the report on stderr. */
static double wrk_rps(const char *wrk, const char *url)
{
    char *argv[] = {(char *)wrk,       "-t" WRK_THREADS, "-c" WRK_CONNECTIONS,
                    "-d" WRK_DURATION, (char *)url,      NULL};
    static char out[WRK_OUT_MAX];
    int rc = run_capture(argv, out, sizeof(out));
    const char *r = strstr(out, "Requests/sec:");
    if (rc != 0 || !r)
        die("wrk failed on %s:\n%s", url, out);
    if (strstr(out, "Non-2xx"))
        die("wrk got answers other than 2xx from %s:\n%s", url, out);
    if (strstr(out, "Socket errors"))
        fprintf(stderr, "bench api: wrk on %s:\n%s", url, out);
    if (getenv("MUSTER_BENCH_VERBOSE"))
        fprintf(stderr, "bench api: wrk on %s:\n%s", url, out);
    char *end;
    double rps = strtod(r + strlen("Requests/sec:"), &end);
    if (end == r + strlen("Requests/sec:") || rps <= 0)
        die("wrk reported no requests on %s:\n%s", url, out);
    return rps;
}

/* ---- nginx ---- */

/* A port on 127.0.0.1 free at the time of asking (bound to port 0, then released). */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(sa);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0)
        die("cannot find a free port: %s", strerror(errno));
    close(fd);
    return ntohs(sa.sin_port);
}

/* Writes DIR/nginx.conf: one worker, everything it writes inside DIR, no access log, the body
 * at www/api/v1/queues served as application/json. Keep-alive requests are not capped (nginx
 * closes a connection after 1,000 by default; h2o does not) so both serve the same traffic. */
static void nginx_config(const char *dir, int port)
{
    char path[600], conf[4096];
    snprintf(path, sizeof(path), "%s/nginx.conf", dir);
    int n = snprintf(conf, sizeof(conf),
                     "worker_processes 1;\n"
                     "%s"
                     "error_log %s/error.log warn;\n"
                     "pid %s/nginx.pid;\n"
                     "events { worker_connections 1024; }\n"
                     "http {\n"
                     "  access_log off;\n"
                     "  client_body_temp_path %s/body;\n"
                     "  proxy_temp_path %s/proxy;\n"
                     "  fastcgi_temp_path %s/fastcgi;\n"
                     "  uwsgi_temp_path %s/uwsgi;\n"
                     "  scgi_temp_path %s/scgi;\n"
                     "  types { }\n"
                     "  default_type application/json;\n"
                     "  keepalive_requests 1000000;\n"
                     "  server {\n"
                     "    listen 127.0.0.1:%d;\n"
                     "    root %s/www;\n"
                     "  }\n"
                     "}\n",
                     /* As root, the worker would become nobody, which may not read DIR. */
                     geteuid() == 0 ? "user root;\n" : "", dir, dir, dir, dir, dir, dir, dir, port,
                     dir);
    if (n < 0 || (size_t)n >= sizeof(conf))
        die("nginx.conf too long for %s", dir);
    write_file(path, conf, (size_t)n);
}

/* Starts nginx in the foreground as a child and waits until url serves exactly body. */
static void nginx_start(const char *nginx, const char *dir, const char *url, const struct buf *body)
{
    char conf[600];
    snprintf(conf, sizeof(conf), "%s/nginx.conf", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* never outlives the benchmark */
        execl(nginx, nginx, "-p", dir, "-c", conf, "-g", "daemon off;", (char *)NULL);
        _exit(127);
    }
    nginx_pid = pid;
    for (int i = 0; i < NGINX_START_TRIES; i++) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            nginx_pid = 0;
            char log[600], text[4096] = "";
            snprintf(log, sizeof(log), "%s/error.log", dir);
            FILE *f = fopen(log, "r");
            if (f) {
                text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
                fclose(f);
            }
            die("nginx exited at start-up; its error log:\n%s", text);
        }
        struct buf got;
        if (http_get(url, &got) == 0) {
            int same = got.len == body->len && memcmp(got.data, body->data, got.len) == 0;
            free(got.data);
            if (!same)
                die("nginx at %s does not serve the API's body", url);
            return;
        }
        nanosleep(&(struct timespec){0, 25 * 1000 * 1000}, NULL);
    }
    die("nginx did not answer at %s", url);
}

static void nginx_stop(void)
{
    kill(nginx_pid, SIGTERM);
    int status = 0;
    while (waitpid(nginx_pid, &status, 0) < 0 && errno == EINTR)
        ;
    nginx_pid = 0;
}

/* ---- the benchmark ---- */

void bench_api(void)
{
    char wrk[512], nginx[512];
    if (find_exe("wrk", wrk, sizeof(wrk)) != 0)
        die("wrk not found in PATH; install it with `deploy/install-deps.sh bench` (Debian "
            "package wrk)");
    if (find_exe("nginx", nginx, sizeof(nginx)) != 0)
        die("nginx not found in PATH or /usr/sbin; install it with `deploy/install-deps.sh "
            "bench` (Debian package nginx-light)");

    const char *base = getenv("MUSTER_BENCH_DIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/muster-bench-api-XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "bench api: mkdtemp %s: %s\n", tmpdir, strerror(errno));
        exit(1);
    }
    char db[600], path[700];
    snprintf(db, sizeof(db), "%s/muster.db", tmpdir);
    struct store *store;
    struct queue_tree *tree;
    fleet_store(db, &store, &tree);

    curl_global_init(CURL_GLOBAL_DEFAULT);
    struct apithread a;
    api_start(&a, store, tree);
    char api_url[128];
    snprintf(api_url, sizeof(api_url), "http://127.0.0.1:%d" LIST_PATH LIST_QUERY,
             api_server_port(a.api));

    /* The response the benchmark measures, saved where nginx serves it from. */
    struct buf body;
    if (http_get(api_url, &body) != 0)
        die("GET %s failed", api_url);
    json_object *doc = json_tokener_parse(body.data);
    json_object *items = NULL;
    if (!doc || !json_object_object_get_ex(doc, "items", &items) ||
        !json_object_is_type(items, json_type_array) || json_object_array_length(items) != PAGE)
        die("GET %s did not list %d queues", api_url, PAGE);
    json_object_put(doc);
    const char *dirs[] = {"www", "www/api", "www/api/v1"};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", tmpdir, dirs[i]);
        make_dir(path);
    }
    snprintf(path, sizeof(path), "%s/www" LIST_PATH, tmpdir);
    write_file(path, body.data, body.len);

    int port = free_port();
    nginx_config(tmpdir, port);
    char nginx_url[128];
    /* The query string is ignored by nginx's static handler; kept so both URLs differ only in
     * the port. */
    snprintf(nginx_url, sizeof(nginx_url), "http://127.0.0.1:%d" LIST_PATH LIST_QUERY, port);
    nginx_start(nginx, tmpdir, nginx_url, &body);

    double api_rps = wrk_rps(wrk, api_url);
    double nginx_rps = wrk_rps(wrk, nginx_url);
    printf("BENCH api_get_queues_bytes %zu bytes\n", body.len);
    printf("BENCH api_get_queues_rps %.0f requests/s\n", api_rps);
    printf("BENCH nginx_static_rps %.0f requests/s\n", nginx_rps);
    printf("BENCH api_vs_nginx_ratio %.3f ratio\n", api_rps / nginx_rps);

    nginx_stop();
    api_stop(&a);
    store_close(store);
    queue_tree_free(tree);
    free(body.data);
    cleanup();
}
