/* musterctl's text formats: kubectl-like tables, JSON -> YAML output, and YAML files -> JSON for
 * `apply -f`. Only the musterctl binary uses this module (it is not part of muster_dispatcher). */
#ifndef MUSTER_DISPATCHER_CLI_OUTPUT_H
#define MUSTER_DISPATCHER_CLI_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

struct json_object;

/* A table of strings printed with each column as wide as its widest cell, three spaces apart
 * (kubectl's layout). The header is the first row. */
struct cli_table;

/* A table of ncols columns whose header is hdr[0..ncols-1] (copied). NULL when out of memory. */
struct cli_table *cli_table_new(size_t ncols, const char *const *hdr);

/* Appends a row of ncols cells (copied; a NULL cell prints as "<none>"). 0 or MUSTER_ENOMEM. */
int cli_table_add(struct cli_table *t, const char *const *cells);

/* Writes the table to f, trailing blanks trimmed. */
void cli_table_print(const struct cli_table *t, FILE *f);

/* Frees the table; NULL is a no-op. */
void cli_table_free(struct cli_table *t);

/* Writes v as a YAML block document to f: maps as `key: value`, arrays as `- item`, strings
 * plain when that reads back as the same string and double-quoted otherwise. */
void cli_yaml_print(struct json_object *v, FILE *f);

/* Reads the YAML file path (a `-` reads standard input) and returns in *out a new JSON array
 * with one element per YAML document (the caller json_object_put()s it). Plain scalars become
 * integers, numbers, booleans or null as YAML 1.2's core schema reads them; quoted scalars stay
 * strings. On failure *out is NULL, err says where and why ("file:LINE:COL: ...") and
 * MUSTER_EIO (cannot read), MUSTER_EINVAL (not YAML, anchors/aliases, non-string keys) or
 * MUSTER_ENOMEM is returned. */
int cli_yaml_load(const char *path, struct json_object **out, char *err, size_t errcap);

/* The map o[k] of strings (resource quantities, labels) as one cell, "cpu=8,nvidia.com/gpu=2",
 * written into buf (cut at cap) and returned; NULL (a table's "<none>") when o is NULL or the
 * map is absent, not an object or empty. */
const char *cli_map_text(struct json_object *o, const char *k, char *buf, size_t cap);

#endif
