#include "cluster-adapters/karmada/groups.h"

#include "queue/mem.h"

void karmada_group_tree_close(struct karmada_group_tree *t)
{
    for (uint32_t i = 0; t->g && i < t->n; i++)
        queue_resvec_close(&t->g[i].pod);
    muster_free(t->g);
    t->g = NULL;
    t->n = 0;
}
