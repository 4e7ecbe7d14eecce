/* Base64 on OpenSSL's block functions (see base64.h). EVP_DecodeBlock decodes whole quads and
 * counts padding as zero bytes, so the strict checks it does not make (where '=' may stand, the
 * quad count) and the padding's bytes are handled here. */
#include "cluster-adapters/kube/base64.h"

#include "queue/errors.h"
#include "queue/mem.h"

#include <openssl/evp.h>
#include <string.h>

static int b64_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
}

/* in[0..n) (whitespace gone, standard alphabet, padded) into out (n / 4 * 3 + 1 bytes). */
static int decode_quads(const char *in, size_t n, unsigned char *out, size_t *out_len)
{
    if (n % 4 != 0 || n > (size_t)INT32_MAX)
        return MUSTER_EINVAL;
    size_t pad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '=') {
            /* only the last one or two characters of the text */
            if (i + 2 < n || (i + 2 == n && in[n - 1] != '='))
                return MUSTER_EINVAL;
            pad++;
        } else if (!b64_char(c)) {
            return MUSTER_EINVAL;
        }
    }
    int m = n ? EVP_DecodeBlock(out, (const unsigned char *)in, (int)n) : 0;
    if (m < 0 || (size_t)m < pad)
        return MUSTER_EINVAL;
    *out_len = (size_t)m - pad;
    out[*out_len] = '\0';
    return 0;
}

int kube_base64_decode(const char *in, size_t in_len, unsigned char **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    char *text = muster_malloc(in_len + 1);
    unsigned char *buf = muster_malloc(in_len / 4 * 3 + 4);
    if (!text || !buf) {
        muster_free(text);
        muster_free(buf);
        return MUSTER_ENOMEM;
    }
    size_t n = 0;
    for (size_t i = 0; i < in_len; i++)
        if (in[i] != ' ' && in[i] != '\n' && in[i] != '\r' && in[i] != '\t')
            text[n++] = in[i];
    int rc = decode_quads(text, n, buf, out_len);
    muster_free(text);
    if (rc) {
        muster_free(buf);
        *out_len = 0;
        return rc;
    }
    *out = buf;
    return 0;
}

int kube_base64_encode(const unsigned char *in, size_t n, char *out, size_t cap)
{
    if (n > (size_t)INT32_MAX / 2 || cap < KUBE_BASE64_LEN(n) + 1)
        return MUSTER_ENOSPC;
    return EVP_EncodeBlock((unsigned char *)out, in, (int)n);
}

int kube_base64url_encode(const unsigned char *in, size_t n, char *out, size_t cap)
{
    if (n > (size_t)INT32_MAX / 2 || cap < KUBE_BASE64_LEN(n) + 1)
        return MUSTER_ENOSPC;
    int m = EVP_EncodeBlock((unsigned char *)out, in, (int)n);
    while (m > 0 && out[m - 1] == '=')
        m--;
    out[m] = '\0';
    for (int i = 0; i < m; i++)
        out[i] = out[i] == '+' ? '-' : out[i] == '/' ? '_' : out[i];
    return m;
}

int kube_base64url_decode(const char *in, unsigned char *out, size_t cap, size_t *outlen)
{
    size_t n = strlen(in);
    while (n > 0 && in[n - 1] == '=')
        n--;
    if (n % 4 == 1)
        return MUSTER_EINVAL;
    size_t padded = (n + 3) / 4 * 4;
    if (padded / 4 * 3 + 1 > cap)
        return MUSTER_ENOSPC;
    char *text = muster_malloc(padded + 1);
    if (!text)
        return MUSTER_ENOMEM;
    for (size_t i = 0; i < n; i++)
        text[i] = in[i] == '-' ? '+' : in[i] == '_' ? '/' : in[i];
    for (size_t i = n; i < padded; i++)
        text[i] = '=';
    int rc = decode_quads(text, padded, out, outlen);
    muster_free(text);
    return rc;
}
