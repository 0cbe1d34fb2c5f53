/*
 * The quotas of quota.h. The import rate is kept in memory (the site's
 * throttle), as DRF keeps its throttles' history in a cache: a restart
 * forgets it, which only a server's owner can cause. The queue is read
 * from the store at each request, so it counts every path that queued
 * builds (imports, triggers, webhooks, pushes to a watched repository);
 * two requests of one owner checked at the same moment may both pass, so
 * the queue can exceed the limit by the server's threads at most.
 */
#include <stdio.h>
#include <time.h>

#include "lectern/build.h"
#include "lectern/errors.h"
#include "lectern/user.h"
#include "quota.h"
#include "throttle.h"

static int64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 0 when owner has room for one more build, else -1 with res set. */
static int queue_room(struct srv_request *req, int64_t owner,
		      int64_t version_id, struct srv_response *res)
{
	unsigned limit = srv_queue_limit(req);
	size_t queued = 0;
	char detail[200];
	int rc;

	if ((rc = lec_build_queued(srv_store(req), owner, version_id,
				   &queued)) < 0) {
		srv_respond_engine_error(res, rc);
		return -1;
	}
	if (queued < limit)
		return 0;
	snprintf(detail, sizeof(detail),
		 "Request was throttled. This owner's projects have %zu "
		 "build%s waiting to start, the most one owner may queue; try "
		 "again once some have started.",
		 queued, queued == 1 ? "" : "s");
	srv_respond_throttled(res, detail, 0);
	return -1;
}

int srv_quota_import(struct srv_request *req, struct srv_response *res)
{
	unsigned wait;

	/* A new project's owner is its importer, its only maintainer. */
	if (queue_room(req, req->user->id, 0, res) < 0)
		return -1;
	wait = srv_throttle_take(srv_import_throttle(req), req->user->id,
				 monotonic_ms());
	if (wait == 0)
		return 0;
	srv_respond_throttled(res, NULL, wait);
	return -1;
}

int srv_quota_build(struct srv_request *req, int64_t project_id,
		    int64_t version_id, struct srv_response *res)
{
	int64_t owner = 0;
	int rc;

	if ((rc = lec_build_owner(srv_store(req), project_id, &owner)) < 0) {
		srv_respond_engine_error(res, rc);
		return -1;
	}
	return queue_room(req, owner, version_id, res);
}
