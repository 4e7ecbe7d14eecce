/* What schema.c (loading) and schema_validate.c (validation) share: the tree of schema nodes.
 * Private to the schema module; everything else goes through schema.h. */
#ifndef MUSTER_KUBE_SCHEMA_INT_H
#define MUSTER_KUBE_SCHEMA_INT_H

#include <json-c/json.h>
#include <regex.h>
#include <stddef.h>

enum {
    T_OBJECT = 1 << 0,
    T_ARRAY = 1 << 1,
    T_STRING = 1 << 2,
    T_INTEGER = 1 << 3,
    T_NUMBER = 1 << 4,
    T_BOOLEAN = 1 << 5,
};

enum {
    F_NULLABLE = 1 << 0,
    F_PRESERVE = 1 << 1,      /* x-kubernetes-preserve-unknown-fields */
    F_INT_OR_STRING = 1 << 2, /* x-kubernetes-int-or-string */
    F_EMBEDDED = 1 << 3,      /* x-kubernetes-embedded-resource */
    F_DEFAULT = 1 << 4,       /* has a default: a missing or null value gets it before validation */
    F_ADDL_ALLOW = 1 << 5,    /* additionalProperties: true */
    F_ADDL_DENY = 1 << 6,     /* additionalProperties: false */
    F_EXCL_MIN = 1 << 7,
    F_EXCL_MAX = 1 << 8,
    F_HAS_MIN = 1 << 9,
    F_HAS_MAX = 1 << 10,
    F_HAS_MULT = 1 << 11,
    F_LIST_SET = 1 << 12,
    F_LIST_MAP = 1 << 13,
};

enum { FMT_NONE, FMT_INT32, FMT_INT64, FMT_DATE_TIME, FMT_DATE };

struct snode;

struct sprop {
    char *name;
    struct snode *node;
};

struct snode {
    struct snode *next_alloc; /* every node of a schema, for freeing */
    struct snode *ref;        /* the resolved $ref target */
    char *ref_name;
    unsigned types, flags;
    int format;
    double minimum, maximum, multiple_of;
    long long min_len, max_len, min_items, max_items, min_props, max_props; /* -1: unset */
    char *pattern;
    regex_t re;
    int has_re;
    struct sprop *props; /* sorted by name */
    size_t nprops;
    char **required;
    size_t nrequired;
    char **map_keys;
    size_t nmap_keys;
    struct snode *items, *addl;
    json_object *enums;
    struct snode **any_of, **all_of, **one_of;
    size_t n_any, n_all, n_one;
};

struct kube_schema {
    struct snode *root;
    struct snode *objectmeta;
    struct snode *nodes;
    struct snode **tail;
    char *api_version;
    char *kind;
    size_t unchecked_patterns;
};

/* Appends fmt to the path in buf (its length *len, at most KUBE_SCHEMA_MAX_PATH - 1, cut
 * beyond) and returns the length before, for kube__schema_path_pop to go back to. */
size_t kube__schema_path_push(char *buf, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void kube__schema_path_pop(char *buf, size_t *len, size_t old);

/* Orders struct sprop by name (a node's props are sorted for bsearch). */
int kube__schema_prop_cmp(const void *a, const void *b);

/* n with its $ref hops followed (the node itself when it has none). */
const struct snode *kube__schema_deref(const struct snode *n);

#endif
