/* JSON merge patch (RFC 7386) and JSON patch (RFC 6902) over json-c values. */
#ifndef MUSTER_SIM_PATCH_H
#define MUSTER_SIM_PATCH_H

#include <json-c/json.h>
#include <stddef.h>

/* Applies merge patch `patch` to `target` (both borrowed; target may be NULL) and stores the
 * result, a new object owned by the caller, in *out. The result shares every value the patch
 * leaves alone with target (references, not copies): treat it as read-only, or deep-copy it
 * before changing it. Returns 0 or MUSTER_ENOMEM. */
int sim_merge_patch(json_object *target, json_object *patch, json_object **out);

/* Applies the JSON patch operation array `ops` to a copy of `doc` (borrowed) and stores the
 * result in *out (caller owns it; it shares every value no operation touched with doc: treat it
 * as read-only, or deep-copy it before changing it). Operations: add, remove, replace, move, copy,
 * test, with RFC 6901 pointers ("~0", "~1", "-" for an array's end). The whole patch applies or
 * nothing does. Returns 0; MUSTER_EINVAL with a message in err for a malformed patch, a missing
 * path or a failed test; MUSTER_ENOMEM. */
int sim_json_patch(json_object *doc, json_object *ops, json_object **out, char *err, size_t errcap);

#endif
