/* YAML to json-c for scenario files, on libyaml's event parser (see scenario.h). */
#include "cluster-adapters/sim/scenario.h"

#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/file.h"
#include "queue/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Deep enough for any scenario; deeper input is rejected rather than recursed into. */
#define SCENARIO_MAX_DEPTH 64

static json_object *plain_scalar(const char *v, size_t len)
{
    if (len == 0 || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 || strcmp(v, "Null") == 0)
        return NULL;
    if (strcmp(v, "true") == 0 || strcmp(v, "True") == 0)
        return json_object_new_boolean(1);
    if (strcmp(v, "false") == 0 || strcmp(v, "False") == 0)
        return json_object_new_boolean(0);
    char *end = NULL;
    errno = 0;
    long long i = strtoll(v, &end, 10);
    if (!errno && end == v + len)
        return json_object_new_int64(i);
    errno = 0;
    double d = strtod(v, &end);
    if (!errno && end == v + len && strchr("0123456789+-.", v[0]))
        return json_object_new_double(d);
    return json_object_new_string_len(v, (int)len);
}

struct ctx {
    yaml_parser_t parser;
    const char *name;
    char *err;
    size_t errcap;
};

static int next_event(struct ctx *c, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&c->parser, ev)) {
        snprintf(c->err, c->errcap, "%s:%zu: %s", c->name, c->parser.problem_mark.line + 1,
                 c->parser.problem ? c->parser.problem : "invalid YAML");
        return MUSTER_EINVAL;
    }
    return 0;
}

/* Converts the node that starts with ev (already read) into *out. */
static int node(struct ctx *c, yaml_event_t *ev, int depth, json_object **out)
{
    if (depth > SCENARIO_MAX_DEPTH) {
        snprintf(c->err, c->errcap, "%s:%zu: nested deeper than %d levels", c->name,
                 ev->start_mark.line + 1, SCENARIO_MAX_DEPTH);
        return MUSTER_EINVAL;
    }
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        const char *v = (const char *)ev->data.scalar.value;
        size_t len = ev->data.scalar.length;
        *out = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE
                   ? plain_scalar(v, len)
                   : json_object_new_string_len(v, (int)len);
        return 0;
    }
    case YAML_ALIAS_EVENT:
        snprintf(c->err, c->errcap, "%s:%zu: YAML aliases are not supported in scenarios", c->name,
                 ev->start_mark.line + 1);
        return MUSTER_EINVAL;
    case YAML_SEQUENCE_START_EVENT: {
        json_object *arr = json_object_new_array();
        for (;;) {
            yaml_event_t item;
            int rc = next_event(c, &item);
            if (rc < 0) {
                json_object_put(arr);
                return rc;
            }
            if (item.type == YAML_SEQUENCE_END_EVENT) {
                yaml_event_delete(&item);
                break;
            }
            json_object *v = NULL;
            rc = node(c, &item, depth + 1, &v);
            yaml_event_delete(&item);
            if (rc < 0) {
                json_object_put(arr);
                return rc;
            }
            json_object_array_add(arr, v);
        }
        *out = arr;
        return 0;
    }
    case YAML_MAPPING_START_EVENT: {
        json_object *obj = json_object_new_object();
        for (;;) {
            yaml_event_t k;
            int rc = next_event(c, &k);
            if (rc < 0) {
                json_object_put(obj);
                return rc;
            }
            if (k.type == YAML_MAPPING_END_EVENT) {
                yaml_event_delete(&k);
                break;
            }
            if (k.type != YAML_SCALAR_EVENT) {
                snprintf(c->err, c->errcap, "%s:%zu: mapping keys must be scalars", c->name,
                         k.start_mark.line + 1);
                yaml_event_delete(&k);
                json_object_put(obj);
                return MUSTER_EINVAL;
            }
            char *key = muster_strdup((const char *)k.data.scalar.value);
            yaml_event_delete(&k);
            yaml_event_t v;
            json_object *val = NULL;
            rc = key ? next_event(c, &v) : MUSTER_ENOMEM;
            if (rc == 0) {
                rc = node(c, &v, depth + 1, &val);
                yaml_event_delete(&v);
            }
            if (rc < 0) {
                muster_free(key);
                json_object_put(obj);
                return rc;
            }
            json_object_object_add(obj, key, val);
            muster_free(key);
        }
        *out = obj;
        return 0;
    }
    default:
        snprintf(c->err, c->errcap, "%s:%zu: unexpected YAML event", c->name,
                 ev->start_mark.line + 1);
        return MUSTER_EINVAL;
    }
}

int sim_yaml_parse_all(const char *name, const char *yaml, size_t len, json_object **out, char *err,
                       size_t errcap)
{
    struct ctx c = {.name = name, .err = err, .errcap = errcap};
    if (!yaml_parser_initialize(&c.parser))
        return MUSTER_ENOMEM;
    yaml_parser_set_input_string(&c.parser, (const unsigned char *)yaml, len);
    json_object *docs = json_object_new_array();
    int rc = docs ? 0 : MUSTER_ENOMEM;
    while (rc == 0) {
        yaml_event_t ev;
        rc = next_event(&c, &ev);
        if (rc < 0)
            break;
        yaml_event_type_t t = ev.type;
        if (t == YAML_SCALAR_EVENT || t == YAML_SEQUENCE_START_EVENT ||
            t == YAML_MAPPING_START_EVENT || t == YAML_ALIAS_EVENT) {
            json_object *doc = NULL;
            rc = node(&c, &ev, 0, &doc);
            if (rc == 0)
                json_object_array_add(docs, doc);
        }
        yaml_event_delete(&ev);
        if (t == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&c.parser);
    if (rc < 0) {
        json_object_put(docs);
        return rc;
    }
    *out = docs;
    return 0;
}

int sim_scenario_parse(const char *name, const char *yaml, size_t len, json_object **out, char *err,
                       size_t errcap)
{
    json_object *docs = NULL;
    int rc = sim_yaml_parse_all(name, yaml, len, &docs, err, errcap);
    if (rc < 0)
        return rc;
    json_object *doc =
        json_object_array_length(docs) == 1 ? json_object_array_get_idx(docs, 0) : NULL;
    if (!json_object_is_type(doc, json_type_object)) {
        snprintf(err, errcap, "%s: a scenario is one YAML mapping", name);
        json_object_put(docs);
        return MUSTER_EINVAL;
    }
    *out = json_object_get(doc);
    json_object_put(docs);
    return 0;
}

int sim_scenario_load(const char *path, json_object **out, char *err, size_t errcap)
{
    /* Scenarios are small; a cap keeps a wrong path (a disk image, say) from being slurped. */
    enum { SCENARIO_MAX_BYTES = 16 * 1024 * 1024 };
    char *buf, why[128];
    size_t n;
    int rc = kube_file_read(path, SCENARIO_MAX_BYTES, &buf, &n, why, sizeof(why));
    if (rc == MUSTER_ENOMEM)
        return rc;
    if (rc == MUSTER_ELIMIT) {
        snprintf(err, errcap, "%s: %s", path, why); /* "larger than N bytes" */
        return MUSTER_ETOOBIG;
    }
    if (rc) {
        snprintf(err, errcap, "%s: %s", path, why);
        return MUSTER_EIO;
    }
    rc = sim_scenario_parse(path, buf, n, out, err, errcap);
    muster_free(buf);
    return rc;
}
