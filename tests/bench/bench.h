/* Benchmark entry points, run by tests/bench/main.c; each prints `BENCH name value unit`. */
#ifndef MUSTER_TESTS_BENCH_H
#define MUSTER_TESTS_BENCH_H

/* SQLite store: ledger commit rate against raw SQLite, and a 1M-row live-ledger scan. */
void bench_store(void);

/* Queue engine: decisions/s and p99 at 1M pending, memory, and the naive yardstick. */
void bench_engine(void);

/* Start-up: 1,000 queues and 1,000,000 ledger rows from SQLite into the engine. */
void bench_recovery(void);

/* Hub protocol: client patches vs a bare libcurl loop, and watch events through the informer. */
void bench_hub(void);

/* Admin API: GET /api/v1/queues?limit=1000 under wrk, beside nginx serving the same bytes. */
void bench_api(void);

/* End to end: musterd and muster-sim as processes; RBs/s beside a bare curl loop doing the same
 * requests, and capacity-freed -> RB-patched latency. */
void bench_e2e(void);

/* Reclaim victim search: p99 and searches/s at 1,000 queues, 100,000 running gangs, 50
 * clusters, and the naive every-subset model on a small tree (bench_reclaim.c). */
void bench_reclaim(void);

/* Composite placement (issue 20): p99 of a 64-group gang over 100 clusters of 100 nodes, and
 * the naive every-assignment search on a small case, checked to agree (bench_composite.c). */
void bench_composite(void);

#endif
