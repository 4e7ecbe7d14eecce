/* Where to reach the API server and how to authenticate: kubeconfig files and in-cluster config. */
#ifndef MUSTER_KUBE_KUBECONFIG_H
#define MUSTER_KUBE_KUBECONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Caps on what is read from disk: a kubeconfig, and each file it points at (CA, cert, key,
 * token). Real ones are a few KiB; anything larger is a mistake, not a config. */
#define KUBE_CONFIG_MAX_BYTES (1024 * 1024)
#define KUBE_CONFIG_MAX_FILE_BYTES (1024 * 1024)
#define KUBE_TOKEN_MAX_BYTES (64 * 1024)
/* How often kube_config_token() may stat the token file to notice a rotation. */
#define KUBE_TOKEN_RECHECK_MS 1000
#define KUBE_INCLUSTER_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

/* A resolved configuration. Every pointer is owned by the struct (kube_config_close frees it).
 * TLS material is held in memory, PEM encoded, so the transport can hand it to libcurl as blobs. */
struct kube_config {
    char *source;    /* the kubeconfig path, or "in-cluster" */
    char *context;   /* the context used; NULL in-cluster */
    char *server;    /* "https://host:port", no trailing slash */
    char *namespace; /* the context's namespace, else "default" */
    unsigned char *ca;
    size_t ca_len;
    unsigned char *cert;
    size_t cert_len;
    unsigned char *key;
    size_t key_len;
    int insecure; /* insecure-skip-tls-verify */
    char *token;  /* the current bearer token, or NULL */
    /* When set, the token is (re-)read from this file whenever it changes; a successful read
     * wins over a literal `token`, as in client-go. */
    char *token_file;
    struct timespec token_mtime;
    int64_t token_size;
    uint64_t token_checked_ms;
};

/* Where kube_config_load looks. Every field may be NULL. */
struct kube_config_opts {
    const char *kubeconfig;    /* --kubeconfig: used alone when set */
    const char *context;       /* --context: overrides current-context */
    const char *incluster_dir; /* service-account directory; default KUBE_INCLUSTER_DIR */
};

/* Resolves the configuration the way Kubernetes components do: the explicit --kubeconfig path;
 * else the in-cluster service account when KUBERNETES_SERVICE_HOST and _PORT are set; else the
 * first file of $KUBECONFIG (a colon list is not merged: only its first entry is read); else
 * ~/.kube/config. On success fills *cfg (which the caller then closes) and returns 0. On failure
 * returns a negative MUSTER_* code, leaves *cfg zeroed, and writes a message naming the file and
 * the key into err (never a secret's value). */
int kube_config_load(struct kube_config *cfg, const struct kube_config_opts *opts, char *err,
                     size_t errcap);

/* Parses one kubeconfig file, selecting `context` (or current-context when NULL). Relative file
 * paths inside it are resolved against the file's directory. Same contract as kube_config_load. */
int kube_config_load_file(struct kube_config *cfg, const char *path, const char *context, char *err,
                          size_t errcap);

/* Parses kubeconfig text already in memory. path names it in messages and anchors relative file
 * paths inside it (those files are still read). Same contract as kube_config_load. */
int kube_config_parse(struct kube_config *cfg, const char *text, size_t len, const char *path,
                      const char *context, char *err, size_t errcap);

/* In-cluster configuration from KUBERNETES_SERVICE_HOST/_PORT and the service-account files in
 * dir (token, ca.crt, optional namespace). Same contract as kube_config_load. */
int kube_config_load_incluster(struct kube_config *cfg, const char *dir, char *err, size_t errcap);

/* The bearer token to send now, or NULL for none. When the config has a token file and at least
 * KUBE_TOKEN_RECHECK_MS passed since the last check (now_ms is the caller's clock), the file is
 * stat()ed and re-read if its mtime or size changed; a failed re-read keeps the old token. The
 * returned string is owned by cfg and valid until the next call or kube_config_close. */
const char *kube_config_token(struct kube_config *cfg, uint64_t now_ms);

/* Frees everything cfg owns and zeroes it. Safe on a zeroed struct. */
void kube_config_close(struct kube_config *cfg);


#endif
