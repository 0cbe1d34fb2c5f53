/*
 * Per-user quotas on what costs the instance work long after the request
 * (quota.c): imports, a rate per user (throttle.h), and builds waiting to
 * start, a count per owner of projects (lec_build_queued). Every route that
 * creates a project or queues a build asks here first; a refusal is the
 * service's 429 (DRF's throttled body), already in res.
 */
#ifndef LECTERN_SRV_QUOTA_H
#define LECTERN_SRV_QUOTA_H

#include <stdint.h>

#include "handler.h"

/* 0 when the requester may import a project now (counted as done), else
 * -1 with res a 429: the import rate spent (with Retry-After), or the
 * requester's queue full (the import queues a build). */
int srv_quota_import(struct srv_request *req, struct srv_response *res);

/* 0 when a build of version_id (0: of versions unknown yet, a webhook's)
 * of the project may be queued, else -1 with res a 429: its owner's
 * queue is full. A new build of a version replaces that version's queued
 * one, which therefore does not count. */
int srv_quota_build(struct srv_request *req, int64_t project_id,
		    int64_t version_id, struct srv_response *res);

#endif
