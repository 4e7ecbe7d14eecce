/* Base64 (RFC 4648) on OpenSSL's EVP_EncodeBlock / EVP_DecodeBlock: the standard alphabet with
 * padding (kubeconfig *-data fields, an AdmissionReview's patch, a webhook's caBundle) and the
 * URL-safe alphabet without padding (Go's base64.RawURLEncoding: the apiserver's continue
 * tokens). One home for every base64 muster and muster-sim read or write. */
#ifndef MUSTER_KUBE_BASE64_H
#define MUSTER_KUBE_BASE64_H

#include <stddef.h>

/* The encoded length of n bytes: padded (a multiple of 4), and raw (URL-safe, no padding). */
#define KUBE_BASE64_LEN(n) (4 * (((n) + 2) / 3))
#define KUBE_BASE64_RAW_LEN(n) ((4 * (n) + 2) / 3)

/* Decodes standard base64 (in_len bytes; spaces, tabs and line breaks between characters are
 * skipped, as kubectl's decoder does for PEM-wrapped data; '=' only as the last one or two of
 * the final quad) into a new buffer *out (NUL-terminated, for text; *out_len excludes the NUL).
 * Returns 0, MUSTER_EINVAL (not base64) or MUSTER_ENOMEM; *out NULL on failure. */
int kube_base64_decode(const char *in, size_t in_len, unsigned char **out, size_t *out_len);

/* Encodes n bytes as padded standard base64 into out (KUBE_BASE64_LEN(n) + 1 bytes at least,
 * NUL-terminated). Returns the length written, or MUSTER_ENOSPC when cap is too small. */
int kube_base64_encode(const unsigned char *in, size_t n, char *out, size_t cap);

/* The same in the URL-safe alphabet without padding: KUBE_BASE64_RAW_LEN(n) characters, but out
 * holds KUBE_BASE64_LEN(n) + 1 bytes at least (the padded form is written first). */
int kube_base64url_encode(const unsigned char *in, size_t n, char *out, size_t cap);

/* Decodes URL-safe base64 without padding (the standard alphabet and padding are taken too)
 * into out (cap bytes, NUL-terminated; *outlen excludes the NUL). Returns 0, MUSTER_EINVAL or
 * MUSTER_ENOSPC. */
int kube_base64url_decode(const char *in, unsigned char *out, size_t cap, size_t *outlen);

#endif
