/* muster-bench: runs every benchmark, or those named on the command line (store, engine,
 * recovery, hub, api, e2e, reclaim, composite). Each prints `BENCH <name> <value> <unit>` lines. */
#include "bench/bench.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    void (*run)(void);
} benches[] = {
    {"api", bench_api},           {"composite", bench_composite},
    {"e2e", bench_e2e},           {"engine", bench_engine},
    {"hub", bench_hub},           {"reclaim", bench_reclaim}, {"recovery", bench_recovery},
    {"store", bench_store},
};

int main(int argc, char **argv)
{
    int ran = 0;
    for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
        int want = argc < 2;
        for (int a = 1; a < argc; a++)
            want |= strcmp(argv[a], benches[i].name) == 0;
        if (want) {
            fflush(stdout);
            benches[i].run();
            fflush(stdout);
            ran++;
        }
    }
    if (!ran) {
        fprintf(stderr, "usage: muster-bench [api|composite|e2e|engine|hub|reclaim|recovery|store]...\n");
        return 2;
    }
    return 0;
}
