/* The SQLite migrations of schema/, embedded at build time (cmake/embed_migrations.cmake). */
#ifndef MUSTER_SCHEMA_MIGRATIONS_H
#define MUSTER_SCHEMA_MIGRATIONS_H

#include <stddef.h>

struct schema_migration {
    int version;      /* NNNN of the file name; strictly increasing */
    const char *name; /* file name without .sql */
    const char *sql;  /* the whole file, NUL-terminated */
};

extern const struct schema_migration schema_migrations[];
extern const size_t schema_migrations_count;

#endif
