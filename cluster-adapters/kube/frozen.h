/* Frozen objects: a JSON value packed into one flat byte string, for caches that hold a great many
 * objects and read few of them at a time (issue 22: a million pending RBs in under 1 GiB).
 *
 * A json-c tree pays a hash table per object and a heap block per value: a pruned RB weighs
 * kilobytes. Frozen, the same RB is a few hundred bytes: a tag byte per value, keys and common
 * short strings ("apps/v1", a namespace, a cluster name, a quantity) as small numbers into
 * process-wide tables, everything else inline. Reading one thaws it back into a json-c tree equal
 * to what was frozen (same keys in the same order, same values), which the caller owns.
 * The tables are bounded (8,192 keys of at most 64 bytes, 65,536 values of at most 128 bytes):
 * past them a key or value is stored inline, so nothing made up per object grows them without
 * end. A value shared once stays in the table for the life of the process. */
#ifndef MUSTER_KUBE_FROZEN_H
#define MUSTER_KUBE_FROZEN_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

/* Packs v into a new block of *len bytes (muster_malloc; free with muster_free). NULL when out
 * of memory, or when v nests deeper than KUBE_FROZEN_DEPTH_MAX or is larger than
 * KUBE_FROZEN_SIZE_MAX packed (*len then 0 for the depth or size, and the caller keeps the tree).
 * Integers beyond int64 are kept as json-c reads them (clamped); doubles keep their bits. */
#define KUBE_FROZEN_DEPTH_MAX 128 /* the client parses no deeper (KUBE_MAX_JSON_DEPTH) */
#define KUBE_FROZEN_SIZE_MAX (64u << 20)
uint8_t *kube_frozen_pack(struct json_object *v, size_t *len);

/* A new tree equal to what was packed into p[0..len); NULL when out of memory or when p is not
 * what kube_frozen_pack made (a truncated or damaged block is refused, never read past), and
 * for a packed JSON null. */
struct json_object *kube_frozen_thaw(const uint8_t *p, size_t len);

/* Strings kept beside a block, outside it (an informer entry's name, namespace and
 * resourceVersion, which its key already holds): a string value equal to one is packed as a
 * one-byte reference to it, and the block is then thawed with the same refs (issue 22: 20-30
 * bytes of every cached RB and template). At most KUBE_FROZEN_REFS_MAX; empty ones are not
 * referred to. */
#define KUBE_FROZEN_REFS_MAX 4
struct kube_frozen_refs {
    const char *s[KUBE_FROZEN_REFS_MAX];
    size_t len[KUBE_FROZEN_REFS_MAX];
    unsigned n;
};

/* kube_frozen_pack and kube_frozen_thaw with refs (NULL: none). A block packed with refs is
 * refused by a thaw given fewer; given other strings, it thaws with those in their places. */
uint8_t *kube_frozen_pack_refs(struct json_object *v, const struct kube_frozen_refs *refs,
                               size_t *len);
struct json_object *kube_frozen_thaw_refs(const uint8_t *p, size_t len,
                                          const struct kube_frozen_refs *refs);

/* Shrinks the hash table of object o (json-c gives every object 16 slots, ~780 bytes) to the
 * smallest json-c's load factor takes for what it holds; o stays writable (an insert grows it
 * again). Relies on json-c's lh_table_resize (exported, versioned JSONC_PRIVATE, in every
 * json-c since 0.10). Anything but an object is left as it is. */
void kube_frozen_fit(struct json_object *o);

/* 1 when the values under key k are unique per object (name, uid, resourceVersion, timestamps,
 * Karmada's permanent id): they are never shared, which would only fill the table. */
int kube_frozen_key_unique(const char *k);

/* A UUID as Kubernetes writes uids (8-4-4-4-12 lowercase hex digits) into its 16 bytes: 0, or
 * -1 when s is anything else (which a caller then keeps as text, so it comes back exact). */
int kube_uuid_pack(const char *s, size_t len, uint8_t out[16]);
/* The 16 bytes back as that text, NUL-terminated. */
#define KUBE_UUID_TEXT 37
void kube_uuid_text(const uint8_t in[16], char out[KUBE_UUID_TEXT]);

/* What the process-wide tables hold: keys and shared values, and the bytes they take. */
struct kube_frozen_stats {
    size_t keys, values, bytes;
};
void kube_frozen_stats(struct kube_frozen_stats *out);

#endif
