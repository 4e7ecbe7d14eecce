/* muster-sim as musterd --demo's child process (see demo_hub.h). */
#include "dispatcher/demo_hub.h"

#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"

#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define READY_PREFIX "muster-sim: listening on "

struct disp_demo_hub {
    uv_loop_t *loop;
    struct disp_demo_hub_options o;
    char binary[PATH_MAX];
    uv_process_t proc;
    uv_pipe_t out_pipe; /* the child's stdout: its URL, then whatever else it prints */
    uv_pipe_t in_pipe;  /* the child's stdin: closed when musterd goes, however it goes */
    uv_timer_t timer;   /* the start deadline, then the SIGKILL deadline */
    int open;           /* handles not yet closed; h is freed when none is left */
    int spawned, exited, ready, stop_requested, gone_reported, finishing;
    char rbuf[4096];
    char line[1024];
    size_t linelen;
    void (*done)(void *ud);
    void *done_ud;
};

static void on_closed(uv_handle_t *handle)
{
    struct disp_demo_hub *h = handle->data;
    if (--h->open > 0)
        return;
    void (*done)(void *) = h->done;
    void *ud = h->done_ud;
    muster_free(h);
    if (done)
        done(ud);
}

static void close_once(struct disp_demo_hub *h, uv_handle_t *handle)
{
    (void)h;
    if (!uv_is_closing(handle))
        uv_close(handle, on_closed);
}

/* Once stopping was asked for and the child is gone (or never ran): close what is left. The
 * process handle is closed by on_exit, or here when the spawn failed. */
static void finish(struct disp_demo_hub *h)
{
    if (h->finishing)
        return;
    h->finishing = 1;
    uv_timer_stop(&h->timer);
    close_once(h, (uv_handle_t *)&h->timer);
    close_once(h, (uv_handle_t *)&h->out_pipe);
    close_once(h, (uv_handle_t *)&h->in_pipe);
    if (!h->spawned)
        close_once(h, (uv_handle_t *)&h->proc);
}

static void gone(struct disp_demo_hub *h, const char *why)
{
    if (h->gone_reported || h->stop_requested)
        return;
    h->gone_reported = 1;
    if (h->o.on_gone)
        h->o.on_gone(h->o.ud, why);
}

static void on_exit_cb(uv_process_t *proc, int64_t status, int signo)
{
    struct disp_demo_hub *h = proc->data;
    h->exited = 1;
    close_once(h, (uv_handle_t *)proc);
    close_once(h, (uv_handle_t *)&h->in_pipe);
    char why[128];
    if (signo)
        snprintf(why, sizeof why, "was killed by signal %d (%s)", signo, strsignal(signo));
    else
        snprintf(why, sizeof why, "exited with status %lld", (long long)status);
    /* An exit musterd did not ask for is the demo's end: the caller reports it. */
    gone(h, why);
    if (h->stop_requested)
        finish(h);
}

static void handle_line(struct disp_demo_hub *h)
{
    h->line[h->linelen] = '\0';
    h->linelen = 0;
    size_t plen = strlen(READY_PREFIX);
    if (!h->ready && strncmp(h->line, READY_PREFIX, plen) == 0) {
        const char *url = h->line + plen;
        if (strncmp(url, "http://", 7) != 0) {
            /* musterd starts it without TLS flags, so anything else is not the sim we know */
            gone(h, "printed an address that is not http://");
            return;
        }
        h->ready = 1;
        uv_timer_stop(&h->timer);
        if (!h->stop_requested && h->o.on_ready)
            h->o.on_ready(h->o.ud, url);
        return;
    }
    FILE *out = h->o.out ? h->o.out : stdout;
    fprintf(out, "%s\n", h->line);
    fflush(out);
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    struct disp_demo_hub *h = handle->data;
    (void)suggested;
    *buf = uv_buf_init(h->rbuf, sizeof h->rbuf);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    struct disp_demo_hub *h = stream->data;
    if (nread < 0) {
        /* EOF: the child closed its stdout (it is exiting); on_exit_cb says how it ended. */
        if (h->linelen)
            handle_line(h);
        uv_read_stop(stream);
        return;
    }
    for (ssize_t i = 0; i < nread; i++) {
        char c = buf->base[i];
        if (c == '\n') {
            handle_line(h);
            continue;
        }
        /* a longer line is cut; none of the sim's is near this */
        if (h->linelen < sizeof h->line - 1)
            h->line[h->linelen++] = c;
    }
}

static void on_start_timeout(uv_timer_t *t)
{
    struct disp_demo_hub *h = t->data;
    char why[128];
    snprintf(why, sizeof why, "did not print its address within %llu ms",
             (unsigned long long)(h->o.start_timeout_ms ? h->o.start_timeout_ms
                                                        : DISP_DEMO_HUB_START_TIMEOUT_MS));
    if (!h->ready)
        gone(h, why);
}

static void on_kill_timeout(uv_timer_t *t)
{
    struct disp_demo_hub *h = t->data;
    if (h->exited)
        return;
    fprintf(stderr, "musterd: the simulated hub (%s, pid %d) still running %llu ms after SIGTERM: "
                    "SIGKILL\n",
            h->binary, h->proc.pid,
            (unsigned long long)(h->o.stop_timeout_ms ? h->o.stop_timeout_ms
                                                      : DISP_DEMO_HUB_STOP_TIMEOUT_MS));
    uv_process_kill(&h->proc, SIGKILL);
}

/* The binary: the flag's, else muster-sim beside this executable (the build directory, or
 * /usr/local/bin in the image: the two are built and installed together), else a bare name
 * that uv_spawn looks up on PATH. */
static void resolve_binary(char *buf, size_t cap, const char *flag)
{
    if (flag) {
        snprintf(buf, cap, "%s", flag);
        return;
    }
    char exe[PATH_MAX];
    size_t n = sizeof exe;
    if (uv_exepath(exe, &n) == 0) {
        const char *slash = strrchr(exe, '/');
        if (slash) {
            int len = snprintf(buf, cap, "%.*s/%s", (int)(slash - exe), exe,
                               DISP_DEMO_HUB_BINARY);
            if (len > 0 && (size_t)len < cap && access(buf, X_OK) == 0)
                return;
        }
    }
    snprintf(buf, cap, "%s", DISP_DEMO_HUB_BINARY);
}

int disp_demo_hub_start(uv_loop_t *loop, const struct disp_demo_hub_options *o,
                        struct disp_demo_hub **out, char *err, size_t errcap)
{
    struct disp_demo_hub *h = muster_calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errcap, "out of memory");
        return MUSTER_ENOMEM;
    }
    h->loop = loop;
    h->o = *o;
    resolve_binary(h->binary, sizeof h->binary, o->binary);
    uv_pipe_init(loop, &h->out_pipe, 0);
    uv_pipe_init(loop, &h->in_pipe, 0);
    uv_timer_init(loop, &h->timer);
    h->out_pipe.data = h->in_pipe.data = h->timer.data = h->proc.data = h;
    h->open = 4; /* the process handle counts too: uv_spawn initialises it even when it fails */

    char *args[8];
    int na = 0;
    args[na++] = h->binary;
    args[na++] = "--listen";
    args[na++] = "127.0.0.1:0";
    if (o->scenario) {
        args[na++] = "--scenario";
        args[na++] = (char *)o->scenario;
    }
    args[na++] = "--stop-on-stdin-eof";
    args[na++] = "true";
    args[na] = NULL;
    uv_stdio_container_t stdio[3] = {
        {.flags = UV_CREATE_PIPE | UV_READABLE_PIPE, .data.stream = (uv_stream_t *)&h->in_pipe},
        {.flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE, .data.stream = (uv_stream_t *)&h->out_pipe},
        {.flags = UV_INHERIT_FD, .data.fd = 2}, /* its messages go where musterd's do */
    };
    uv_process_options_t po = {.exit_cb = on_exit_cb,
                               .file = h->binary,
                               .args = args,
                               .stdio_count = 3,
                               .stdio = stdio,
                               /* its own session: the terminal's Ctrl-C reaches musterd only,
                                * which stops the hub last, after the controller is done */
                               .flags = UV_PROCESS_DETACHED};
    int rc = uv_spawn(loop, &h->proc, &po);
    if (rc) {
        snprintf(err, errcap,
                 "cannot run %s: %s (build it with musterd, put it on PATH, or name it with "
                 "--sim-binary)",
                 h->binary, uv_strerror(rc));
        h->stop_requested = 1;
        finish(h);
        return rc == UV_ENOENT || rc == UV_EACCES ? MUSTER_ECONFIG : MUSTER_EIO;
    }
    h->spawned = 1;
    uv_read_start((uv_stream_t *)&h->out_pipe, on_alloc, on_read);
    uv_timer_start(&h->timer, on_start_timeout,
                   o->start_timeout_ms ? o->start_timeout_ms : DISP_DEMO_HUB_START_TIMEOUT_MS, 0);
    *out = h;
    return 0;
}

int disp_demo_hub_pid(const struct disp_demo_hub *h)
{
    return h ? h->proc.pid : 0;
}

const char *disp_demo_hub_binary(const struct disp_demo_hub *h)
{
    return h ? h->binary : "";
}

void disp_demo_hub_stop(struct disp_demo_hub *h, void (*done)(void *ud), void *ud)
{
    if (!h || h->stop_requested)
        return;
    h->stop_requested = 1;
    h->done = done;
    h->done_ud = ud;
    if (h->exited) {
        finish(h);
        return;
    }
    uv_process_kill(&h->proc, SIGTERM);
    close_once(h, (uv_handle_t *)&h->in_pipe);
    uv_timer_stop(&h->timer);
    uv_timer_start(&h->timer, on_kill_timeout,
                   h->o.stop_timeout_ms ? h->o.stop_timeout_ms : DISP_DEMO_HUB_STOP_TIMEOUT_MS, 0);
}
