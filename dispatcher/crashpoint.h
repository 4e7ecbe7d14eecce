/* Deterministic kill points for the crash tests: musterd exits at once, as SIGKILL would leave
 * it, when it reaches the step boundary named by MUSTER_CRASH_AT (docs/dispatcher.md, "Crash
 * points"; docs/testing.md). Unarmed, a call costs one load and one branch. */
#ifndef MUSTER_DISPATCHER_CRASHPOINT_H
#define MUSTER_DISPATCHER_CRASHPOINT_H

/* The environment variable, "<name>[:<n>]": exit at the n-th passage of name (default 1). */
#define DISP_CRASHPOINT_ENV "MUSTER_CRASH_AT"
/* What musterd exits with at a crash point: the status a shell reports for SIGKILL. */
#define DISP_CRASHPOINT_STATUS 137
#define DISP_CRASHPOINT_NAME_MAX 63

/* The armed name, or NULL (the common case): set once by disp_crashpoint_init. */
extern const char *disp__crashpoint_armed;
/* disp_crashpoint's slow path, only while armed: counts a passage of the armed name (NULL and
 * other names are ignored) and exits at the wanted one. */
void disp__crashpoint_pass(const char *name);

/* Reads MUSTER_CRASH_AT once, at start-up, before the loop runs (not thread-safe; nothing else
 * runs then). 0 when unset or armed; MUSTER_EINVAL with a message on stderr when the value is
 * malformed (an empty name, a name over DISP_CRASHPOINT_NAME_MAX bytes, n not a positive
 * integer): a test that meant to kill must not run unarmed. */
int disp_crashpoint_init(void);

/* The boundary name has been passed: when it is the armed one for the n-th time, a line naming
 * it goes to stderr and the process ends with _exit(DISP_CRASHPOINT_STATUS): no atexit handler,
 * no flush of stdio buffers, no SQLite close, no request finished: what a kill leaves. */
static inline void disp_crashpoint(const char *name)
{
    if (disp__crashpoint_armed)
        disp__crashpoint_pass(name);
}

#endif
