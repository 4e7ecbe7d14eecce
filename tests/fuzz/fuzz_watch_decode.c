/* libFuzzer target for the watch stream decoder: the same bytes fed whole and fed in chunks (of
 * a size taken from the first input byte) must decode to the same events and the same result. */
#include "cluster-adapters/kube/watch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
    char buf[1 << 16];
    size_t len;
};

static int collect(void *ud, struct json_object *ev)
{
    struct seen *s = ud;
    const char *txt = json_object_to_json_string(ev);
    size_t n = strlen(txt);
    if (s->len + n + 1 < sizeof(s->buf)) {
        memcpy(s->buf + s->len, txt, n);
        s->len += n;
        s->buf[s->len++] = '\n';
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t chunk = (size_t)data[0] % 17 + 1;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    static struct seen whole, pieces;
    whole.len = pieces.len = 0;

    struct kube_watch_decoder d;
    if (kube_watch_decoder_init(&d, 256) < 0)
        return 0;
    int rc_whole = kube_watch_decode(&d, text, len, collect, &whole);
    kube_watch_decoder_reset(&d);
    int rc_pieces = 0;
    for (size_t off = 0; off < len && rc_pieces == 0; off += chunk)
        rc_pieces = kube_watch_decode(&d, text + off, len - off < chunk ? len - off : chunk,
                                      collect, &pieces);
    kube_watch_decoder_close(&d);
    if (rc_whole != rc_pieces || whole.len != pieces.len ||
        memcmp(whole.buf, pieces.buf, whole.len) != 0)
        abort();
    return 0;
}
