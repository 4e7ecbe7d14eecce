/* Start-up: rebuilds the queue engine from the store (queues, then the live ledger rows). */
#ifndef MUSTER_DISPATCHER_RECOVERY_H
#define MUSTER_DISPATCHER_RECOVERY_H

#include "dispatcher/store.h"
#include "queue/tree.h"

#include <stddef.h>

struct disp_load_stats {
    size_t queues;   /* queue rows applied (root and default included when stored) */
    size_t pending;  /* ledger rows added as pending entries */
    size_t admitted; /* ledger rows counted as admitted usage */
    size_t orphans;  /* live rows whose queue is gone or is not a leaf: left in the ledger */
};

/* Loads every stored queue into t (parents before children; root and default are updated in
 * place) and every live ledger row as an entry whose id is the row id: pending rows wait,
 * admitted/dispatched/running rows count as usage without a capacity check (they were decided
 * before). Everything read is validated: a bad row fails the load with MUSTER_ESTORE or
 * MUSTER_EINVAL and a message in err naming the row, never its secret-bearing values. t must
 * be fresh from queue_tree_new. On failure t holds whatever was loaded before the bad row. */
int disp_load(struct store *s, struct queue_tree *t, struct disp_load_stats *st, char *err,
              size_t errcap);

#endif
