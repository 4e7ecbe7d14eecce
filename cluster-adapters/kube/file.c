/* The bounded whole-file reader behind kube/file.h. */
#include "cluster-adapters/kube/file.h"

#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"

#include <errno.h>
#include <string.h>

#define FIRST_ALLOC 4096 /* most files read here (tokens, certificates, small YAML) fit */

static void set_why(char *why, size_t whycap, const char *msg)
{
    if (whycap)
        snprintf(why, whycap, "%s", msg);
}

static void wipe_free(char *buf, size_t len)
{
    if (!buf)
        return;
    memset(buf, 0, len);
    muster_free(buf);
}

/* A buffer of next + 1 bytes holding the len bytes of buf; the old one is wiped and freed. */
static char *grow(char *buf, size_t len, size_t next)
{
    char *nb = muster_malloc(next + 1);
    if (!nb)
        return NULL;
    memcpy(nb, buf, len);
    wipe_free(buf, len);
    return nb;
}

int kube_file_read_stream(FILE *f, size_t max_bytes, char **out, size_t *out_len, char *why,
                          size_t whycap)
{
    *out = NULL;
    *out_len = 0;
    set_why(why, whycap, "");
    /* Read up to one byte past the cap: a file of exactly max_bytes is fine, one more is not. */
    size_t len = 0, alloc = max_bytes < FIRST_ALLOC ? max_bytes + 1 : FIRST_ALLOC;
    char *buf = muster_malloc(alloc + 1);
    if (!buf) {
        set_why(why, whycap, "out of memory");
        return MUSTER_ENOMEM;
    }
    for (;;) {
        if (len == alloc) {
            if (len > max_bytes)
                break;
            size_t next = alloc > (max_bytes + 1) / 2 ? max_bytes + 1 : alloc * 2;
            char *nb = grow(buf, len, next);
            if (!nb) {
                wipe_free(buf, len);
                set_why(why, whycap, "out of memory");
                return MUSTER_ENOMEM;
            }
            buf = nb;
            alloc = next;
        }
        size_t n = fread(buf + len, 1, alloc - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        wipe_free(buf, len);
        if (whycap)
            snprintf(why, whycap, "read error: %s", e ? strerror(e) : "unknown");
        return MUSTER_EIO;
    }
    if (len > max_bytes) {
        wipe_free(buf, len);
        if (whycap)
            snprintf(why, whycap, "larger than %zu bytes", max_bytes);
        return MUSTER_ELIMIT;
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return 0;
}

int kube_file_read(const char *path, size_t max_bytes, char **out, size_t *out_len, char *why,
                   size_t whycap)
{
    *out = NULL;
    *out_len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        set_why(why, whycap, strerror(e));
        return e == ENOENT ? MUSTER_ENOENT : MUSTER_EIO;
    }
    errno = 0;
    int rc = kube_file_read_stream(f, max_bytes, out, out_len, why, whycap);
    fclose(f);
    return rc;
}
