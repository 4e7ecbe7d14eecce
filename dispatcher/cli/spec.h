/* musterctl apply: does the server already hold a queue as a manifest entry describes it?
 * (docs/musterctl.md, "apply"). */
#ifndef MUSTER_DISPATCHER_CLI_SPEC_H
#define MUSTER_DISPATCHER_CLI_SPEC_H

struct json_object;

/* 1 when the server's queue cur already has every spec field of want, absent fields taking the
 * server's defaults (quantities compared as the text the server keeps, durations as
 * milliseconds, the tenancy fields as JSON); 0 otherwise. A field the client does not know
 * makes it "different", so the server judges it. */
int cli_spec_same(struct json_object *want, struct json_object *cur);

#endif
