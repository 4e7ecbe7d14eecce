/* Whole-file reads with a size cap: the one bounded reader for kubeconfigs, credentials, CRDs,
 * scenarios, token files and the tools' input (STYLE: everything read has a named cap). */
#ifndef MUSTER_KUBE_FILE_H
#define MUSTER_KUBE_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Reads the whole file at path, at most max_bytes, into a new NUL-terminated buffer: *out (the
 * caller frees it with muster_free) and *out_len (without the NUL). Returns 0, or on failure,
 * with *out NULL, *out_len 0 and the reason in why (without the path, so the caller says which
 * file and what it was for; never any of the file's bytes): MUSTER_ENOENT (no such file),
 * MUSTER_EIO (cannot open or read), MUSTER_ELIMIT (larger than max_bytes: "larger than N
 * bytes"), MUSTER_ENOMEM. Bytes read before a failure are wiped before they are freed, as are
 * the copies left behind when the buffer grows, so a token file leaves nothing in freed memory
 * the caller did not see. why may be NULL when whycap is 0. */
int kube_file_read(const char *path, size_t max_bytes, char **out, size_t *out_len, char *why,
                   size_t whycap);

/* The same from an open stream read to its end (stdin for "-"), which the caller closes. */
int kube_file_read_stream(FILE *f, size_t max_bytes, char **out, size_t *out_len, char *why,
                          size_t whycap);

#endif
