/* YuniKorn's Soft gang style (issue 19; docs/workload.md "Gang dialects"): YuniKorn reserves a
 * Soft gang's placeholders for placeholderTimeoutInSeconds, and once that passes it schedules
 * the real pods without the gang guarantee (apache/yunikorn-site docs/user_guide/
 * gang_scheduling.md, "Gang scheduling Styles"; the default style is Soft and the default
 * timeout 15 minutes). muster does the same on the hub: a Soft gang still pending at its
 * deadline is admitted as a non-gang workload, min-member 1, placed whole when it fits and
 * otherwise partially (the elastic path), its member PodGroups at minMember 1. */
#include "dispatcher/controller/ctl_int.h"

int64_t ctl__soft_deadline(const struct karmada_workload *w, int64_t since_ms)
{
    if (w->dialect != KARMADA_WORKLOAD_DIALECT_YUNIKORN || !w->task_groups || !w->gang_soft ||
        since_ms <= 0 || w->min_member <= 1)
        return 0; /* no YuniKorn gang, a Hard one, or nothing to give up */
    int64_t s = w->gang_timeout_s > 0 ? w->gang_timeout_s : CTL_SOFT_DEFAULT_TIMEOUT_S;
    return since_ms + s * 1000;
}

int ctl__soft_lapsed(int64_t deadline, int64_t at)
{
    return deadline > 0 && at >= deadline;
}

void ctl__soft_apply(struct ctl *c, struct binding *b, const struct karmada_workload *w)
{
    b->soft_at = ctl__soft_deadline(w, b->created_at);
    b->soft = 0;
    /* Judged at now while it waits; once admitted, at its admission (restored from its row
     * after a restart), so a re-read of a running gang keeps the terms it was admitted with. */
    int waiting = b->st != B_ADMITTED && b->st != B_DISPATCHED && b->st != B_RUNNING;
    if (!ctl__soft_lapsed(b->soft_at, waiting ? now_ms(c) : ctl__act(b)->admitted_at))
        return;
    b->soft = 1;
    b->min_member = 1;
    /* placed partially when muster places its replicas itself (as elastic gangs are) */
    b->elastic = b->assign && w->ncomponents == 1 && w->kind != KARMADA_WORKLOAD_KIND_VCJOB &&
                 b->replicas > 1;
}

void ctl__soft_reason(char *buf, size_t cap, const struct binding *b, int partial)
{
    int64_t s = (b->soft_at - b->created_at) / 1000;
    if (partial && b->grow)
        snprintf(buf, cap,
                 "admitted without the gang guarantee (min-member 1): YuniKorn "
                 "gangSchedulingStyle Soft, its placeholder timeout of %" PRId64 " s passed; "
                 "%" PRId32 " of %" PRId32 " replicas, %" PRId32 " more wait as a scale up",
                 s, b->replicas, b->replicas + b->grow->replicas, b->grow->replicas);
    else
        snprintf(buf, cap,
                 "admitted without the gang guarantee (min-member 1): YuniKorn "
                 "gangSchedulingStyle Soft, its placeholder timeout of %" PRId64 " s passed",
                 s);
}
