/* The admin API's OpenAPI 3 document (schema/openapi.json), embedded at build time. */
#ifndef MUSTER_SCHEMA_OPENAPI_H
#define MUSTER_SCHEMA_OPENAPI_H

#include <stddef.h>

/* The document's bytes, NUL-terminated; schema_openapi_json_len excludes the NUL. */
extern const char schema_openapi_json[];
extern const size_t schema_openapi_json_len;

#endif
