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

/* Fills spec from a stored queue row (the strings of spec point into q; the vectors are
 * allocated: release with disp_queue_spec_close). Validates what the row says on its own
 * (ranges, names, quantities), not the tree rules: queue_tree_create/update check those.
 * MUSTER_EINVAL/ERANGE/ELIMIT with a message in err naming the field, or MUSTER_ENOMEM. */
int disp_queue_spec_from_row(struct queue_resnames *names, const struct store_queue *q,
                             struct queue_spec *spec, char *err, size_t errcap);
void disp_queue_spec_close(struct queue_spec *spec);

/* Loads every stored queue into t (parents before children; root and default are updated in
 * place) and every live ledger row as an entry whose id is the row id: pending rows wait,
 * admitted/dispatched/running rows count as usage without a capacity check (they were decided
 * before). Everything read is validated: a bad row fails the load with MUSTER_ESTORE or
 * MUSTER_EINVAL and a message in err naming the row, never its secret-bearing values. t must
 * be fresh from queue_tree_new. On failure t holds whatever was loaded before the bad row. */
int disp_load(struct store *s, struct queue_tree *t, struct disp_load_stats *st, char *err,
              size_t errcap);

#endif
