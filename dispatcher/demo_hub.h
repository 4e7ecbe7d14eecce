/* The demo's hub: `musterd --demo` runs muster-sim as a child process on musterd's loop and
 * talks to it over HTTP like to any karmada-apiserver, so the production binary carries no
 * simulator (docs/decisions.md, "musterd"). The child is started with `--listen 127.0.0.1:0
 * --scenario FILE --stop-on-stdin-eof true`; its first stdout line "muster-sim: listening on URL"
 * says where it serves. It runs in its own session, so a Ctrl-C at the terminal reaches musterd
 * only and musterd stops it last, after the controller has finished with it; its standard input
 * is a pipe from musterd, so if musterd is killed outright the child sees end of file and stops
 * too. Nothing here blocks the loop. */
#ifndef MUSTER_DISPATCHER_DEMO_HUB_H
#define MUSTER_DISPATCHER_DEMO_HUB_H

#include <stdint.h>
#include <stdio.h>
#include <uv.h>

#define DISP_DEMO_HUB_BINARY "muster-sim"
#define DISP_DEMO_HUB_START_TIMEOUT_MS 30000 /* until its URL is printed */
#define DISP_DEMO_HUB_STOP_TIMEOUT_MS 5000   /* from SIGTERM to SIGKILL */

struct disp_demo_hub;

struct disp_demo_hub_options {
    /* The muster-sim to run. NULL: the one beside the running musterd (the build directory,
     * /usr/local/bin in the image), else the first on PATH. A name without '/' is looked up on
     * PATH. */
    const char *binary;
    const char *scenario; /* --scenario FILE, passed through */
    FILE *out;            /* the child's other stdout lines are copied here (default stdout) */
    uint64_t start_timeout_ms, stop_timeout_ms; /* 0: the defaults above */
    /* The child printed its URL (http://127.0.0.1:PORT). Called at most once. */
    void (*on_ready)(void *ud, const char *url);
    /* The hub is gone without having been asked to stop: the child exited or was killed, or did
     * not print its URL in time (then it is still running until disp_demo_hub_stop). why reads
     * "exited with status 1", "was killed by signal 9", ... Called at most once, never after
     * disp_demo_hub_stop. */
    void (*on_gone)(void *ud, const char *why);
    void *ud;
};

/* Spawns the child. Returns 0, or a MUSTER_* code with err saying what failed (the binary was
 * not found, say); on failure nothing is left to stop. */
int disp_demo_hub_start(uv_loop_t *loop, const struct disp_demo_hub_options *o,
                        struct disp_demo_hub **out, char *err, size_t errcap);

/* The child's process id and the binary that was run (for the start-up line). */
int disp_demo_hub_pid(const struct disp_demo_hub *h);
const char *disp_demo_hub_binary(const struct disp_demo_hub *h);

/* Stops the child: SIGTERM, then SIGKILL if it has not exited within stop_timeout_ms. done(ud)
 * runs once it has exited and every handle is closed; h is freed then. NULL is a no-op. */
void disp_demo_hub_stop(struct disp_demo_hub *h, void (*done)(void *ud), void *ud);

#endif
