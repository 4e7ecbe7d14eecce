/* Writing JSON text straight into a buffer, byte for byte as json-c prints the tree one would
 * build (json_object_to_json_string_ext with JSON_C_TO_STRING_PLAIN, and with or without
 * JSON_C_TO_STRING_NOSLASHESCAPE): for the hot paths that only print what they build (issue 22,
 * musterd's CPU per dispatched RB), so no tree, no hash table per object and no key copies.
 * The caller writes the punctuation; the writer escapes strings and prints numbers. The buffer
 * starts in the caller's storage and moves to the heap when it outgrows it; a failed growth
 * sets a sticky flag, so a writer is a straight list of writes and one check at the end. */
#ifndef MUSTER_KUBE_JSONWRITE_H
#define MUSTER_KUBE_JSONWRITE_H

#include <stddef.h>
#include <stdint.h>

struct kube_jw {
    char *buf; /* always NUL-terminated once initialised */
    size_t len, cap;
    int bad;   /* out of memory: the text is incomplete */
    int heap;  /* buf was allocated here (kube_jw_free releases it) */
    int slash; /* escape '/' as "\/" (json-c without JSON_C_TO_STRING_NOSLASHESCAPE) */
};

/* Starts an empty text in stack[0..cap) (cap at least 1). */
void kube_jw_init(struct kube_jw *w, char *stack, size_t cap, int escape_slash);
void kube_jw_free(struct kube_jw *w);

/* n bytes as they are (punctuation, a key already known to need no escape). */
void kube_jw_raw(struct kube_jw *w, const char *s, size_t n);
/* The C string s as they are. */
void kube_jw_lit(struct kube_jw *w, const char *s);
/* The first n bytes of s as a JSON string, quoted and escaped as json-c escapes: \b \n \r \t \f
 * \" \\ (and \/ when w->slash), other bytes below 0x20 as \u00xx, everything else as it is. */
void kube_jw_strn(struct kube_jw *w, const char *s, size_t n);
/* The C string s as a JSON string (NULL fails: a constructor that failed, as kube_json_add_str). */
void kube_jw_str(struct kube_jw *w, const char *s);
/* "key": with key escaped, then nothing: the caller writes the value. */
void kube_jw_key(struct kube_jw *w, const char *key);
void kube_jw_int64(struct kube_jw *w, int64_t v);

struct json_object;
/* The tree o (NULL: null) as json-c prints it with JSON_C_TO_STRING_PLAIN and w's slash
 * escaping: members in their order, numbers as json-c prints them (a double through json-c
 * itself, so a number parsed with its text keeps it). Trees with a custom serializer other
 * than a double's are not supported: muster sets none. */
void kube_jw_json(struct kube_jw *w, struct json_object *o);

#endif
