/* Benchmark entry points, run by tests/bench/main.c; each prints `BENCH name value unit`. */
#ifndef MUSTER_TESTS_BENCH_H
#define MUSTER_TESTS_BENCH_H

/* SQLite store: ledger commit rate against raw SQLite, and a 1M-row live-ledger scan. */
void bench_store(void);

#endif
