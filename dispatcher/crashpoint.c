/* Deterministic kill points (see crashpoint.h). */
#include "dispatcher/crashpoint.h"

#include "queue/errors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *disp__crashpoint_armed;
static char armed[DISP_CRASHPOINT_NAME_MAX + 1];
static long passage_wanted, passages;

int disp_crashpoint_init(void)
{
    const char *v = getenv(DISP_CRASHPOINT_ENV);
    disp__crashpoint_armed = NULL;
    passages = 0;
    if (!v || !*v)
        return 0;
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : strlen(v);
    long want = 1;
    if (colon) {
        char *end;
        errno = 0;
        want = strtol(colon + 1, &end, 10);
        if (errno || end == colon + 1 || *end || want < 1)
            want = 0;
    }
    if (n == 0 || n > DISP_CRASHPOINT_NAME_MAX || want < 1) {
        fprintf(stderr,
                "musterd: %s=%s: expected NAME or NAME:N (N a positive integer, NAME at most %d "
                "bytes; the names are in docs/dispatcher.md)\n",
                DISP_CRASHPOINT_ENV, v, DISP_CRASHPOINT_NAME_MAX);
        return MUSTER_EINVAL;
    }
    memcpy(armed, v, n);
    armed[n] = '\0';
    passage_wanted = want;
    disp__crashpoint_armed = armed;
    fprintf(stderr, "musterd: crash point armed: %s, passage %ld\n", armed, want);
    return 0;
}

void disp__crashpoint_pass(const char *name)
{
    if (!name || strcmp(name, armed) != 0 || ++passages < passage_wanted)
        return;
    /* stderr is unbuffered: the line is out before the exit. */
    fprintf(stderr, "musterd: crash point %s reached (passage %ld): exiting with %d\n", armed,
            passages, DISP_CRASHPOINT_STATUS);
    _exit(DISP_CRASHPOINT_STATUS);
}
