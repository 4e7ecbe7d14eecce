/* The status dashboard's files (dispatcher/dashboard/: plain HTML, CSS and JavaScript), embedded
 * into the binary at build time by cmake/embed_dashboard.cmake and served by the admin API at /
 * and /dashboard/{file} (docs/dashboard.md). */
#ifndef MUSTER_DISPATCHER_DASHBOARD_H
#define MUSTER_DISPATCHER_DASHBOARD_H

#include <stddef.h>

struct disp_dashboard_file {
    const char *name; /* the file name, no directory: "index.html", "app.js" */
    const char *data; /* NUL-terminated, for convenience; len excludes the NUL */
    size_t len;
    const char *etag; /* a quoted strong validator from the content's hash */
};

extern const struct disp_dashboard_file disp_dashboard_files[];
extern const size_t disp_dashboard_nfiles;

#endif
