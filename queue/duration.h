/* Durations as queue specs write them ("10m", "1h30m", "90s", "500ms"), held as milliseconds:
 * the unit the dispatcher gives the engine for minRuntime and cooldown. Pure, no clock. */
#ifndef MUSTER_QUEUE_DURATION_H
#define MUSTER_QUEUE_DURATION_H

#include <stddef.h>
#include <stdint.h>

/* Longest input accepted, and a buffer that always holds a formatted duration. */
#define QUEUE_DURATION_INPUT_MAX 64
#define QUEUE_DURATION_STR_MAX 40

/* Parses s[0..len): one or more <number><unit> terms, as Go's time.ParseDuration (and so
 * Kubernetes' metav1.Duration) writes them: "10m", "1h30m", "1.5h", "250ms"; units h, m, s, ms.
 * "0" alone is zero. No sign: a negative duration is malformed. The sum must be a whole number
 * of milliseconds and fit in int64. Returns 0 with *ms set, MUSTER_EINVAL (empty, no unit, an
 * unknown unit, a sign, a fraction of a millisecond, longer than QUEUE_DURATION_INPUT_MAX) or
 * MUSTER_ERANGE (too large). *ms is written only on success. */
int queue_duration_parse(const char *s, size_t len, int64_t *ms);

/* Writes ms (>= 0) into buf in the shortest form queue_duration_parse reads back to the same
 * value, largest units first and zero terms left out: "10m", "1h30m", "1m30s500ms", "0s".
 * Returns the length, or MUSTER_EINVAL for a negative ms, MUSTER_ENOSPC when cap is too small
 * (buf then holds ""). */
int queue_duration_format(int64_t ms, char *buf, size_t cap);

#endif
