/* Table responses (see table.h), cell by cell as apiextensions-apiserver's table convertor
 * fills them: the first JSONPath result, strings printed, dates as ages. */
#include "cluster-adapters/sim/table.h"

#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct column {
    const char *name, *type, *path;
};

struct printer {
    const char *group, *plural;
    struct column cols[6];
};

/* From the CRDs' additionalPrinterColumns (tests/fixtures/sim, tests/fixtures/reference/crds). */
static const struct printer printers[] = {
    {"work.karmada.io",
     "resourcebindings",
     {{"SCHEDULED", "string", ".status.conditions[?(@.type==\"Scheduled\")].status"},
      {"FULLYAPPLIED", "string", ".status.conditions[?(@.type==\"FullyApplied\")].status"},
      {"AGE", "date", ".metadata.creationTimestamp"}}},
    {"work.karmada.io",
     "clusterresourcebindings",
     {{"SCHEDULED", "string", ".status.conditions[?(@.type==\"Scheduled\")].status"},
      {"FULLYAPPLIED", "string", ".status.conditions[?(@.type==\"FullyApplied\")].status"},
      {"AGE", "date", ".metadata.creationTimestamp"}}},
    {"work.karmada.io",
     "works",
     {{"WORKLOAD-KIND", "string", ".spec.workload.manifests[*].kind"},
      {"APPLIED", "string", ".status.conditions[?(@.type==\"Applied\")].status"},
      {"AGE", "date", ".metadata.creationTimestamp"}}},
    {"scheduling.volcano.sh",
     "podgroups",
     {{"STATUS", "string", ".status.phase"},
      {"minMember", "integer", ".spec.minMember"},
      {"RUNNINGS", "integer", ".status.running"},
      {"AGE", "date", ".metadata.creationTimestamp"},
      {"QUEUE", "string", ".spec.queue"}}},
    {"batch.volcano.sh",
     "jobs",
     {{"STATUS", "string", ".status.state.phase"},
      {"minAvailable", "integer", ".status.minAvailable"},
      {"RUNNINGS", "integer", ".status.running"},
      {"AGE", "date", ".metadata.creationTimestamp"},
      {"QUEUE", "string", ".spec.queue"}}},
    {"scheduling.volcano.sh", "queues", {{"PARENT", "string", ".spec.parent"}}},
    {"policy.karmada.io",
     "propagationpolicies",
     {{"CONFLICT-RESOLUTION", "string", ".spec.conflictResolution"},
      {"PRIORITY", "string", ".spec.priority"},
      {"AGE", "date", ".metadata.creationTimestamp"}}},
};

static const struct printer *printer_for(const struct sim_resource *r)
{
    for (size_t i = 0; i < sizeof(printers) / sizeof(printers[0]); i++)
        if (strcmp(printers[i].group, r->group) == 0 && strcmp(printers[i].plural, r->plural) == 0)
            return &printers[i];
    return NULL;
}

int sim_table_supported(const struct sim_resource *r)
{
    return printer_for(r) != NULL;
}

/* Evaluates path from p against cur; returns the first match. */
static json_object *eval(json_object *cur, const char *p)
{
    if (!cur)
        return NULL;
    if (!*p)
        return cur;
    if (*p == '.') {
        p++;
        size_t n = strcspn(p, ".[");
        char key[128];
        if (n == 0 || n >= sizeof(key))
            return NULL;
        memcpy(key, p, n);
        key[n] = '\0';
        json_object *next = NULL;
        if (!json_object_is_type(cur, json_type_object) ||
            !json_object_object_get_ex(cur, key, &next))
            return NULL;
        return eval(next, p + n);
    }
    if (*p != '[' || !json_object_is_type(cur, json_type_array))
        return NULL;
    const char *close = strstr(p, "]");
    if (!close)
        return NULL;
    const char *rest = close + 1;
    size_t len = json_object_array_length(cur);
    if (strncmp(p, "[*]", 3) == 0) {
        for (size_t i = 0; i < len; i++) {
            json_object *v = eval(json_object_array_get_idx(cur, i), rest);
            if (v)
                return v;
        }
        return NULL;
    }
    if (strncmp(p, "[?(@.", 5) == 0) {
        /* [?(@.key=="value")] */
        const char *k = p + 5;
        const char *eq = strstr(k, "==\"");
        if (!eq || eq > close)
            return NULL;
        const char *v = eq + 3;
        const char *vend = strchr(v, '"');
        if (!vend || vend > close)
            return NULL;
        for (size_t i = 0; i < len; i++) {
            json_object *e = json_object_array_get_idx(cur, i);
            json_object *f = NULL;
            char key[128];
            size_t kn = (size_t)(eq - k);
            if (kn >= sizeof(key))
                return NULL;
            memcpy(key, k, kn);
            key[kn] = '\0';
            if (json_object_is_type(e, json_type_object) && json_object_object_get_ex(e, key, &f) &&
                json_object_is_type(f, json_type_string) &&
                strlen(json_object_get_string(f)) == (size_t)(vend - v) &&
                strncmp(json_object_get_string(f), v, (size_t)(vend - v)) == 0) {
                json_object *r = eval(e, rest);
                if (r)
                    return r;
            }
        }
        return NULL;
    }
    char *end = NULL;
    long idx = strtol(p + 1, &end, 10);
    if (end != close || idx < 0 || (size_t)idx >= len)
        return NULL;
    return eval(json_object_array_get_idx(cur, (size_t)idx), rest);
}

json_object *sim_jsonpath_first(json_object *obj, const char *path)
{
    return eval(obj, path);
}

void sim_human_duration(long long s, char *buf, size_t cap)
{
    if (s < -1) {
        snprintf(buf, cap, "<invalid>");
        return;
    }
    if (s < 0)
        s = 0;
    long long m = s / 60, h = s / 3600, d = h / 24, y = d / 365;
    if (s < 120)
        snprintf(buf, cap, "%llds", s);
    else if (m < 10 && s % 60)
        snprintf(buf, cap, "%lldm%llds", m, s % 60);
    else if (h < 3)
        snprintf(buf, cap, "%lldm", m);
    else if (h < 8 && m % 60)
        snprintf(buf, cap, "%lldh%lldm", h, m % 60);
    else if (h < 48)
        snprintf(buf, cap, "%lldh", h);
    else if (h < 24 * 8 && h % 24)
        snprintf(buf, cap, "%lldd%lldh", d, h % 24);
    else if (d < 365 * 2)
        snprintf(buf, cap, "%lldd", d);
    else if (d < 365 * 8 && d % 365)
        snprintf(buf, cap, "%lldy%lldd", y, d % 365);
    else
        snprintf(buf, cap, "%lldy", y);
}

static json_object *cell(const struct column *c, json_object *obj, time_t now)
{
    json_object *v = sim_jsonpath_first(obj, c->path);
    if (!v)
        return NULL;
    if (strcmp(c->type, "date") == 0) {
        time_t t = sim_parse_time(json_object_get_string(v));
        if (t == (time_t)-1)
            return NULL;
        char buf[32];
        sim_human_duration((long long)(now - t), buf, sizeof(buf));
        return json_object_new_string(buf);
    }
    if (strcmp(c->type, "string") == 0)
        return json_object_new_string(json_object_get_string(v));
    return json_object_get(v);
}

static json_object *column_def(const char *name, const char *type, const char *format,
                               const char *description)
{
    json_object *d = json_object_new_object();
    json_object_object_add(d, "name", json_object_new_string(name));
    json_object_object_add(d, "type", json_object_new_string(type));
    json_object_object_add(d, "format", json_object_new_string(format));
    json_object_object_add(d, "description", json_object_new_string(description));
    json_object_object_add(d, "priority", json_object_new_int(0));
    return d;
}

json_object *sim_table_new(const struct sim_resource *r, json_object *items, json_object *list_meta,
                           time_t now)
{
    const struct printer *pr = printer_for(r);
    json_object *t = json_object_new_object();
    json_object_object_add(t, "kind", json_object_new_string("Table"));
    json_object_object_add(t, "apiVersion", json_object_new_string("meta.k8s.io/v1"));
    json_object *meta = NULL;
    if (list_meta)
        json_object_deep_copy(list_meta, &meta, NULL);
    json_object_object_add(t, "metadata", meta ? meta : json_object_new_object());
    json_object *defs = json_object_new_array();
    json_object_array_add(
        defs, column_def("Name", "string", "name", "Name must be unique within a namespace."));
    for (size_t i = 0; pr && i < 6 && pr->cols[i].name; i++)
        json_object_array_add(defs, column_def(pr->cols[i].name, pr->cols[i].type, "", ""));
    json_object_object_add(t, "columnDefinitions", defs);
    json_object *rows = json_object_new_array();
    for (size_t j = 0; j < json_object_array_length(items); j++) {
        json_object *o = json_object_array_get_idx(items, j);
        json_object *cells = json_object_new_array();
        json_object *name = sim_jsonpath_first(o, ".metadata.name");
        json_object_array_add(cells, json_object_get(name));
        for (size_t i = 0; pr && i < 6 && pr->cols[i].name; i++)
            json_object_array_add(cells, cell(&pr->cols[i], o, now));
        json_object *row = json_object_new_object();
        json_object_object_add(row, "cells", cells);
        json_object *pom = json_object_new_object();
        json_object_object_add(pom, "kind", json_object_new_string("PartialObjectMetadata"));
        json_object_object_add(pom, "apiVersion", json_object_new_string("meta.k8s.io/v1"));
        json_object_object_add(pom, "metadata",
                               json_object_get(sim_jsonpath_first(o, ".metadata")));
        json_object_object_add(row, "object", pom);
        json_object_array_add(rows, row);
    }
    json_object_object_add(t, "rows", rows);
    return t;
}
