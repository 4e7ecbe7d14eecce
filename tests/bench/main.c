/* Temporary driver for muster-bench: runs the store benchmark (to be replaced by the full list). */
#include "bench/bench.h"

int main(void)
{
    bench_store();
    return 0;
}
