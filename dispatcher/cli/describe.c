/* musterctl's binding and queue views (see describe.h). */
#include "dispatcher/cli/describe.h"

#include "dispatcher/cli/output.h"
#include "queue/errors.h"
#include "queue/tree.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define CLI_DNS_LABEL_MAX 63
#define CLI_DNS_SUBDOMAIN_MAX 253

/* Lower-case alphanumerics and '-' (and '.' between labels when dots), alphanumeric at both
 * ends of every label: what Kubernetes accepts as a namespace (dots 0) or an object name. */
static int dns_name(const char *s, size_t n, int dots)
{
    if (n == 0 || n > (dots ? CLI_DNS_SUBDOMAIN_MAX : CLI_DNS_LABEL_MAX))
        return 0;
    size_t label = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.' && dots) {
            if (label == 0 || s[i - 1] == '-')
                return 0;
            label = 0;
            continue;
        }
        int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if ((!alnum && c != '-') || (label == 0 && c == '-') || ++label > CLI_DNS_LABEL_MAX)
            return 0;
    }
    return s[n - 1] != '-' && s[n - 1] != '.';
}

int cli_name_check(enum cli_kind kind, const char *name, char *err, size_t errcap)
{
    size_t n = strlen(name);
    const char *what = NULL;
    if (kind == CLI_KIND_QUEUE && !queue_name_valid(name, n))
        what = "not a queue name (1-63 lower-case letters, digits, '-' and '.', each "
               "dot-separated part starting and ending with a letter or digit)";
    if (kind == CLI_KIND_CLUSTER && !dns_name(name, n, 1))
        what = "not a cluster name (a DNS subdomain)";
    if (kind == CLI_KIND_BINDING) {
        const char *slash = strchr(name, '/');
        if (!slash || !dns_name(name, (size_t)(slash - name), 0) ||
            !dns_name(slash + 1, strlen(slash + 1), 1))
            what = "not NAMESPACE/NAME (a namespace, '/', a binding's name)";
    }
    if (!what)
        return 0;
    snprintf(err, errcap, "%.128s: %s", name, what);
    return MUSTER_EINVAL;
}

static const char *str_of(struct json_object *o, const char *k)
{
    struct json_object *v;
    if (!o || !json_object_object_get_ex(o, k, &v) || !v)
        return NULL;
    return json_object_get_string(v);
}

/* A binding's clusters: names (with replicas when given) joined by commas; NULL when none. The
 * ledger keeps what the dispatcher recorded: strings, or objects with a name. */
static const char *clusters_text(struct json_object *o, char *buf, size_t cap)
{
    struct json_object *a;
    if (!o || !json_object_object_get_ex(o, "clusters", &a) ||
        !json_object_is_type(a, json_type_array) || json_object_array_length(a) == 0)
        return NULL;
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(a); i++) {
        struct json_object *e = json_object_array_get_idx(a, i);
        const char *name = json_object_is_type(e, json_type_string) ? json_object_get_string(e)
                                                                    : str_of(e, "name");
        const char *reps = json_object_is_type(e, json_type_object) ? str_of(e, "replicas") : NULL;
        int w = snprintf(buf + n, cap - n, "%s%s%s%s", n ? "," : "", name ? name : "?",
                         reps ? ":" : "", reps ? reps : "");
        if (w < 0 || (size_t)w >= cap - n)
            break;
        n += (size_t)w;
    }
    return buf;
}

int cli_bindings_table(struct json_object *items, int wide, FILE *f, FILE *err)
{
    static const char *const hdr[] = {"NAMESPACE", "NAME",     "QUEUE",   "STATE", "PRIORITY",
                                      "POSITION",  "CLUSTERS", "REQUEST", "REASON"};
    size_t n =
        items && json_object_is_type(items, json_type_array) ? json_object_array_length(items) : 0;
    if (n == 0) {
        fprintf(err, "No resources found.\n");
        return 0;
    }
    struct cli_table *t = cli_table_new(wide ? 9 : 6, hdr);
    int rc = t ? 0 : MUSTER_ENOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        struct json_object *b = json_object_array_get_idx(items, i);
        char cl[512], req[512];
        const char *pos = str_of(b, "position");
        const char *row[] = {str_of(b, "namespace"),
                             str_of(b, "name"),
                             str_of(b, "queue"),
                             str_of(b, "state"),
                             str_of(b, "priority"),
                             pos ? pos : "-",
                             clusters_text(b, cl, sizeof(cl)),
                             cli_map_text(b, "request", req, sizeof(req)),
                             str_of(b, "reason")};
        rc = cli_table_add(t, row);
    }
    if (!rc)
        cli_table_print(t, f);
    cli_table_free(t);
    return rc;
}

/* Milliseconds since the epoch as RFC 3339 UTC into buf; "<none>" when absent. */
static const char *when(struct json_object *o, const char *k, char *buf, size_t cap)
{
    struct json_object *v;
    if (!o || !json_object_object_get_ex(o, k, &v) || !v)
        return "<none>";
    time_t t = (time_t)(json_object_get_int64(v) / 1000);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return "<none>";
    return buf;
}

static void line(FILE *f, const char *label, const char *v)
{
    fprintf(f, "%-14s%s\n", label, v ? v : "<none>");
}

void cli_describe_binding(struct json_object *b, FILE *f)
{
    char name[600], buf[1024], t[32];
    const char *ns = str_of(b, "namespace"), *nm = str_of(b, "name");
    snprintf(name, sizeof(name), "%s/%s", ns ? ns : "", nm ? nm : "");
    line(f, "Name:", name);
    line(f, "UID:", str_of(b, "uid"));
    line(f, "Queue:", str_of(b, "queue"));
    line(f, "State:", str_of(b, "state"));
    line(f, "Priority:", str_of(b, "priority"));
    line(f, "Position:", str_of(b, "position") ? str_of(b, "position") : "-");
    line(f, "Request:", cli_map_text(b, "request", buf, sizeof(buf)));
    line(f, "Clusters:", clusters_text(b, buf, sizeof(buf)));
    line(f, "Created:", when(b, "createdAtMs", t, sizeof(t)));
    line(f, "Admitted:", when(b, "admittedAtMs", t, sizeof(t)));
    line(f, "Updated:", when(b, "updatedAtMs", t, sizeof(t)));
    line(f, "Reason:", str_of(b, "reason"));
    struct json_object *h;
    if (!json_object_object_get_ex(b, "history", &h) || !json_object_is_type(h, json_type_array) ||
        json_object_array_length(h) == 0) {
        line(f, "History:", NULL);
        return;
    }
    fprintf(f, "History:\n");
    static const char *const hdr[] = {"  ID", "STATE", "QUEUE", "CLUSTERS", "UPDATED", "REASON"};
    struct cli_table *tab = cli_table_new(6, hdr);
    for (size_t i = 0; tab && i < json_object_array_length(h); i++) {
        struct json_object *e = json_object_array_get_idx(h, i);
        char id[32], cl[512], up[32];
        const char *idv = str_of(e, "id");
        snprintf(id, sizeof(id), "  %s", idv ? idv : "?");
        const char *row[] = {id,
                             str_of(e, "state"),
                             str_of(e, "queue"),
                             clusters_text(e, cl, sizeof(cl)),
                             when(e, "updatedAtMs", up, sizeof(up)),
                             str_of(e, "reason")};
        if (cli_table_add(tab, row))
            break;
    }
    if (tab)
        cli_table_print(tab, f);
    cli_table_free(tab);
}

static int map_nonempty(struct json_object *o, const char *k)
{
    struct json_object *m;
    return o && json_object_object_get_ex(o, k, &m) && json_object_is_type(m, json_type_object) &&
           json_object_object_length(m) > 0;
}

const char *cli_queue_reclaim_mark(struct json_object *q)
{
    struct json_object *st = NULL;
    json_object_object_get_ex(q, "status", &st);
    int b = map_nonempty(st, "borrowed"), l = map_nonempty(st, "lent");
    return b && l ? "borrows,lends" : b ? "borrows" : l ? "lends" : "-";
}

const char *cli_queue_preemption(struct json_object *q, enum cli_preempt_field which)
{
    static const char *const keys[] = {
        [CLI_PREEMPT_WITHIN_QUEUE] = "withinQueue",
        [CLI_PREEMPT_MIN_RUNTIME] = "minRuntime",
        [CLI_PREEMPT_MAX_PER_MINUTE] = "maxPerMinute",
        [CLI_PREEMPT_COOLDOWN] = "cooldown",
    };
    static const char *const dflt[] = {
        [CLI_PREEMPT_WITHIN_QUEUE] = "Never",
        [CLI_PREEMPT_MIN_RUNTIME] = "0s",
        [CLI_PREEMPT_MAX_PER_MINUTE] = "0",
        [CLI_PREEMPT_COOLDOWN] = "0s",
    };
    if ((unsigned)which > CLI_PREEMPT_COOLDOWN)
        return NULL;
    struct json_object *p = NULL;
    json_object_object_get_ex(q, "preemption", &p);
    const char *v = str_of(p, keys[which]);
    return v ? v : dflt[which];
}

const char *cli_queue_preempted(struct json_object *q, char *buf, size_t cap)
{
    struct json_object *st = NULL, *p = NULL;
    json_object_object_get_ex(q, "status", &st);
    if (st)
        json_object_object_get_ex(st, "preemptions", &p);
    const char *m = str_of(p, "made"), *s = str_of(p, "suffered");
    snprintf(buf, cap, "%s/%s", m ? m : "0", s ? s : "0");
    return buf;
}

/* Appends fmt to buf at *n (cut at cap, kept NUL-terminated). */
__attribute__((format(printf, 4, 5))) static void put(char *buf, size_t cap, size_t *n,
                                                      const char *fmt, ...)
{
    if (*n >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    *n = w < 0 ? cap : *n + (size_t)w;
}

const char *cli_queue_selector_text(struct json_object *q, char *buf, size_t cap)
{
    struct json_object *sel = NULL, *ml = NULL, *me = NULL;
    if (!json_object_object_get_ex(q, "namespaceSelector", &sel) || !sel)
        return NULL;
    size_t n = 0;
    buf[0] = '\0';
    if (json_object_object_get_ex(sel, "matchLabels", &ml) && ml) {
        json_object_object_foreach(ml, k, v)
        {
            put(buf, cap, &n, "%s%s=%s", n ? "," : "", k, json_object_get_string(v));
        }
    }
    size_t ne = json_object_object_get_ex(sel, "matchExpressions", &me) &&
                        json_object_is_type(me, json_type_array)
                    ? json_object_array_length(me)
                    : 0;
    for (size_t i = 0; i < ne; i++) {
        struct json_object *e = json_object_array_get_idx(me, i), *vals = NULL;
        const char *key = str_of(e, "key"), *op = str_of(e, "operator");
        if (!key || !op)
            continue;
        /* as kubectl prints a selector: k in (a,b), k notin (a), k, !k */
        if (strcmp(op, "Exists") == 0 || strcmp(op, "DoesNotExist") == 0) {
            put(buf, cap, &n, "%s%s%s", n ? "," : "", op[0] == 'D' ? "!" : "", key);
            continue;
        }
        put(buf, cap, &n, "%s%s %s (", n ? "," : "", key, op[0] == 'I' ? "in" : "notin");
        json_object_object_get_ex(e, "values", &vals);
        size_t nv =
            vals && json_object_is_type(vals, json_type_array) ? json_object_array_length(vals) : 0;
        for (size_t j = 0; j < nv; j++)
            put(buf, cap, &n, "%s%s", j ? "," : "",
                json_object_get_string(json_object_array_get_idx(vals, j)));
        put(buf, cap, &n, ")");
    }
    return n ? buf : "<all>"; /* {} selects every namespace */
}

/* A limits object of q (namespaceLimits, ownerLimits) as "gangs=2,nvidia.com/gpu=8". */
static const char *limits_text(struct json_object *q, const char *field, char *buf, size_t cap)
{
    struct json_object *l = NULL, *g = NULL, *r = NULL;
    if (!json_object_object_get_ex(q, field, &l) || !l)
        return NULL;
    size_t n = 0;
    buf[0] = '\0';
    if (json_object_object_get_ex(l, "gangs", &g) && g)
        put(buf, cap, &n, "gangs=%s", json_object_get_string(g));
    if (json_object_object_get_ex(l, "resources", &r) && r) {
        json_object_object_foreach(r, k, v)
        {
            put(buf, cap, &n, "%s%s=%s", n ? "," : "", k, json_object_get_string(v));
        }
    }
    return n ? buf : NULL;
}

const char *cli_queue_ns_limits_text(struct json_object *q, char *buf, size_t cap)
{
    return limits_text(q, "namespaceLimits", buf, cap);
}

const char *cli_queue_owner_limits_text(struct json_object *q, char *buf, size_t cap)
{
    return limits_text(q, "ownerLimits", buf, cap);
}

const char *cli_queue_local_queues_text(struct json_object *q, char *buf, size_t cap)
{
    struct json_object *l = NULL;
    if (!json_object_object_get_ex(q, "localQueues", &l) ||
        !json_object_is_type(l, json_type_array))
        return NULL;
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(l); i++)
        put(buf, cap, &n, "%s%s", i ? "," : "",
            json_object_get_string(json_object_array_get_idx(l, i)));
    return n ? buf : NULL;
}

void cli_describe_queue(struct json_object *q, FILE *f)
{
    char buf[1024], t[32], num[64];
    struct json_object *md = NULL, *st = NULL, *v;
    json_object_object_get_ex(q, "metadata", &md);
    json_object_object_get_ex(q, "status", &st);
    line(f, "Name:", str_of(q, "name"));
    line(f, "Parent:", str_of(q, "parent") ? str_of(q, "parent") : "-");
    line(f, "Weight:", str_of(q, "weight"));
    line(f, "Priority:", str_of(q, "priority"));
    line(f, "State:", str_of(q, "state"));
    line(f, "Strategy:", str_of(q, "queueingStrategy"));
    const char *gang = str_of(q, "gangTimeoutSeconds");
    if (gang) {
        snprintf(num, sizeof(num), "%ss", gang);
        line(f, "Gang timeout:", num);
    }
    if (str_of(q, "onClusterLoss"))
        line(f, "On cluster loss:", str_of(q, "onClusterLoss"));
    line(f, "Guarantee:", cli_map_text(q, "guarantee", buf, sizeof(buf)));
    line(f, "Deserved:", cli_map_text(q, "deserved", buf, sizeof(buf)));
    line(f, "Capability:", cli_map_text(q, "capability", buf, sizeof(buf)));
    line(f, "Reclaimable:", str_of(q, "reclaimable") ? str_of(q, "reclaimable") : "true");
    snprintf(buf, sizeof(buf), "withinQueue=%s, minRuntime=%s, maxPerMinute=%s, cooldown=%s",
             cli_queue_preemption(q, CLI_PREEMPT_WITHIN_QUEUE),
             cli_queue_preemption(q, CLI_PREEMPT_MIN_RUNTIME),
             cli_queue_preemption(q, CLI_PREEMPT_MAX_PER_MINUTE),
             cli_queue_preemption(q, CLI_PREEMPT_COOLDOWN));
    line(f, "Preemption:", buf);
    line(f, "Namespaces:", cli_queue_selector_text(q, buf, sizeof(buf)) ? buf : "(its parent's)");
    line(f, "Namespace limits:", cli_queue_ns_limits_text(q, buf, sizeof(buf)));
    line(f, "Owner limits:", cli_queue_owner_limits_text(q, buf, sizeof(buf)));
    line(f, "Local queues:", cli_queue_local_queues_text(q, buf, sizeof(buf)));
    line(f, "Version:", str_of(md, "resourceVersion"));
    line(f, "Created:", when(md, "createdAtMs", t, sizeof(t)));
    line(f, "Updated:", when(md, "updatedAtMs", t, sizeof(t)));
    if (!st)
        return;
    fprintf(f, "Status:\n");
    line(f, "  Allocated:", cli_map_text(st, "allocated", buf, sizeof(buf)));
    line(f, "  Reserved:", cli_map_text(st, "reserved", buf, sizeof(buf)));
    line(f, "  Borrowed:", cli_map_text(st, "borrowed", buf, sizeof(buf)));
    line(f, "  Lent:", cli_map_text(st, "lent", buf, sizeof(buf)));
    struct json_object *pre = NULL;
    json_object_object_get_ex(st, "preemptions", &pre);
    const char *made = str_of(pre, "made"), *suffered = str_of(pre, "suffered");
    snprintf(buf, sizeof(buf), "made %s, suffered %s", made ? made : "0",
             suffered ? suffered : "0");
    line(f, "  Preempted:", buf);
    line(f, "  Pending:", str_of(st, "pending"));
    line(f, "  Admitted:", str_of(st, "admitted"));
    if (json_object_object_get_ex(st, "share", &v) && v) {
        snprintf(num, sizeof(num), "%.3f", json_object_get_double(v));
        line(f, "  Share:", num);
    } else {
        line(f, "  Share:", "-");
    }
}
