/* muster-validate: checks objects on stdin against a CRD version (or a swagger definition). */
#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/yaml.h"
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/file.h"
#include "queue/mem.h"

#include <stdio.h>
#include <string.h>

/* Objects come from test fixtures and scripts; more than this is not an object. */
#define VALIDATE_MAX_INPUT (16 * 1024 * 1024)

static int usage(void)
{
    fprintf(stderr, "usage: muster-validate CRD.yaml VERSION < object.{json,yaml}\n"
                    "       muster-validate DEFINITIONS.json DEFINITION < object.json\n"
                    "exit 0: every object is valid; 1: invalid (messages on stderr); 2: error\n");
    return 2;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* Reads stdin; JSON when it starts with '{' or '[' (exact integers), otherwise YAML documents. */
static int read_objects(json_object **docs, char *err, size_t errcap)
{
    char *buf, why[128];
    size_t len;
    int rc = kube_file_read_stream(stdin, VALIDATE_MAX_INPUT, &buf, &len, why, sizeof(why));
    if (rc) {
        snprintf(err, errcap, "stdin: %s", why);
        return rc;
    }
    size_t i = strspn(buf, " \t\r\n");
    if (buf[i] == '{' || buf[i] == '[') {
        json_tokener *tok = json_tokener_new_ex(KUBE_SCHEMA_MAX_DEPTH);
        if (!tok) {
            muster_free(buf);
            return MUSTER_ENOMEM;
        }
        json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
        enum json_tokener_error je = json_tokener_get_error(tok);
        json_tokener_free(tok);
        if (je != json_tokener_success) {
            snprintf(err, errcap, "stdin: bad JSON: %s", json_tokener_error_desc(je));
            json_object_put(o);
            rc = MUSTER_EINVAL;
        } else if (json_object_is_type(o, json_type_array)) {
            *docs = o;
        } else {
            *docs = json_object_new_array();
            if (!*docs || json_object_array_add(*docs, o)) {
                json_object_put(o);
                rc = MUSTER_ENOMEM;
            }
        }
    } else {
        rc = kube_yaml_parse(buf, len, "stdin", docs, err, errcap);
    }
    muster_free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return usage();
    char err[1024] = "";
    struct kube_schema *s = NULL;
    int rc = ends_with(argv[1], ".json")
                 ? kube_schema_load_swagger(argv[1], argv[2], &s, err, sizeof err)
                 : kube_schema_load_crd(argv[1], argv[2], &s, err, sizeof err);
    if (rc) {
        fprintf(stderr, "muster-validate: %s\n", err[0] ? err : kube_strerror(rc));
        return 2;
    }
    json_object *docs = NULL;
    rc = read_objects(&docs, err, sizeof err);
    if (rc) {
        fprintf(stderr, "muster-validate: %s\n", err[0] ? err : kube_strerror(rc));
        kube_schema_free(s);
        return 2;
    }
    int status = 0;
    size_t n = json_object_array_length(docs);
    for (size_t i = 0; i < n && status != 2; i++) {
        struct kube_schema_errors errs;
        kube_schema_errors_init(&errs);
        rc = kube_schema_validate(s, json_object_array_get_idx(docs, i), &errs);
        for (size_t k = 0; k < errs.count; k++)
            fprintf(stderr, n > 1 ? "object %zu: %s\n" : "%.0zu%s\n", i, errs.msgs[k]);
        if (errs.dropped)
            fprintf(stderr, "... and %zu more\n", errs.dropped);
        kube_schema_errors_close(&errs);
        if (rc == MUSTER_EINVAL)
            status = 1;
        else if (rc) {
            fprintf(stderr, "muster-validate: %s\n", kube_strerror(rc));
            status = 2;
        }
    }
    json_object_put(docs);
    kube_schema_free(s);
    return status;
}
