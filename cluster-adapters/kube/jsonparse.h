/* A strict JSON text parser building json-c trees, for the hub's watch events and replies
 * (issue 22, docs/kube-client.md "Parsing"): the same trees json_tokener builds, for less CPU.
 * Keys are shared for the process (kube_json_key_intern) instead of copied per object, arrays
 * are sized to what they hold, and the text is parsed in one pass from a complete buffer. */
#ifndef MUSTER_KUBE_JSONPARSE_H
#define MUSTER_KUBE_JSONPARSE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct json_object;

/* The end of the run of plain string bytes at p (none of '"', '\\', or a control character
 * below 0x20), looked at eight bytes at a time; never e itself when p < e, so the caller's byte
 * loop finishes the run and reads the byte that ends it. Strings are most of the hub's text:
 * the watch decoder's framing and the parser each walk them, and a byte at a time that was 6 %
 * and 5 % of the ingest's CPU (docs/benchmarks.md, "Session 14: ingest"). */
static inline const char *kube_json_plain_run(const char *p, const char *e)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    while (e - p > 8) {
        uint64_t w, q, b;
        memcpy(&w, p, 8);
        q = w ^ (ones * '"');
        b = w ^ (ones * '\\');
        /* a zero byte in q or b, or a byte of w below 0x20 (exact for "is there one") */
        if ((((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & highs)
            break;
        p += 8;
    }
    return p;
}

/* Parses the JSON text s[0..n) (RFC 8259; whitespace around the value allowed, nothing else
 * after it) nested at most max_depth deep (0: KUBE_MAX_JSON_DEPTH). Returns 0 and *out (a new
 * reference; NULL for the text "null"), or MUSTER_EPROTO with a sentence in err (the offset and
 * what was wrong) or MUSTER_ENOMEM; *out is NULL then. Numbers are read as json_tokener reads
 * them: integers as int64 (above INT64_MAX as uint64, clamped beyond), the others as doubles
 * keeping their text. A lone UTF-16 surrogate in a \u escape becomes U+FFFD; bytes >= 0x80 are
 * taken as they are. Stricter than json_tokener's strict mode where RFC 8259 is: single quotes,
 * raw control characters in strings, NaN and Infinity, "-01" and "1." are refused. */
int kube_json_parse(const char *s, size_t n, int max_depth, struct json_object **out, char *err,
                    size_t errcap);

/* The process-wide shared copy of key k (kube/informer.c's table), or NULL when k is not shared
 * (longer than 64 bytes, table full): such keys are added as constant keys by the informer's
 * compaction and by kube_json_parse. */
const char *kube_json_key_intern(const char *k);

#endif
