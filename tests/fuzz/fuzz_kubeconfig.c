/* libFuzzer target: arbitrary bytes as a kubeconfig must give 0 or a MUSTER_* code, never a
 * crash, leak or over-read (run under ASan by `make fuzz`). */
#include "cluster-adapters/kube/kubeconfig.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Inputs naming device or proc files could block on a read; file loading is not what is
     * being fuzzed, so skip them. Relative paths land in a directory that does not exist. */
    static const char *const skip[] = {"/dev", "/proc", "/sys", "/run", "/var"};
    for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (memmem(data, size, skip[i], strlen(skip[i])))
            return 0;
    struct kube_config cfg;
    char err[512];
    if (kube_config_parse(&cfg, (const char *)data, size, "/nonexistent/fuzz/kubeconfig", NULL, err,
                          sizeof(err)) == 0) {
        kube_config_token(&cfg, 0);
        kube_config_close(&cfg);
    }
    return 0;
}
