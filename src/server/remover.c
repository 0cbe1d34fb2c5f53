/*
 * The project remover (remover.h). Its thread finishes removals one after
 * another while there are some due, then sleeps SRV_REMOVER_POLL_MS, woken
 * early only to stop. A removal that fails (a file the server may not
 * delete) is logged once per try and stays pending, its slug taken, until
 * the engine tries it again; another server of the data directory holding
 * the removal lock is no failure.
 */
#include <stdlib.h>
#include <string.h>

#include "lectern/errors.h"
#include "lectern/external.h"
#include "lectern/project.h"
#include "lectern/store.h"
#include "lectern/timefmt.h"
#include "log.h"
#include "remover.h"
#include "worker.h"

struct srv_remover {
	struct srv_worker worker;
	char *data_dir;
	int64_t grace_us;   /* a closed request's files stay this long */
	int64_t next_sweep; /* when to look for them next (microseconds) */
};

/* Remove closed pull requests' leftovers, once a SRV_REMOVER_SWEEP_MS. */
static void sweep(struct srv_remover *r, struct lec_store *st)
{
	int64_t now = lec_time_now();

	if (now < r->next_sweep)
		return;
	r->next_sweep = now + (int64_t)SRV_REMOVER_SWEEP_MS * 1000;
	if (lec_external_sweep(st, r->data_dir, now - r->grace_us, NULL) < 0)
		srv_log("closed pull requests: %s", lec_error_last());
}

static void *run(void *arg)
{
	struct srv_remover *r = arg;
	struct lec_store *st = NULL;
	int rc;

	if (lec_store_open_dir(&st, r->data_dir, NULL) < 0) {
		srv_log("project removal: cannot open the store: %s",
			lec_error_last());
		return NULL;
	}
	while (!srv_worker_stopping(&r->worker)) {
		/* One finished: another may be due. */
		if ((rc = lec_project_removal_finish(st, r->data_dir)) ==
		    LEC_OK)
			continue;
		if (rc != LEC_ENOTFOUND && rc != LEC_EBUSY)
			srv_log("project removal: %s", lec_error_last());
		sweep(r, st);
		srv_worker_pause(&r->worker, SRV_REMOVER_POLL_MS);
	}
	lec_store_free(st);
	return NULL;
}

int srv_remover_start(struct srv_remover **out, const char *data_dir,
		      unsigned external_grace_s)
{
	struct srv_remover *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (r == NULL || (r->data_dir = strdup(data_dir)) == NULL) {
		free(r);
		srv_log("project removal: out of memory");
		return -1;
	}
	r->grace_us = (int64_t)(external_grace_s ? external_grace_s
						 : LEC_EXTERNAL_GRACE_DEFAULT_S) *
		      1000000;
	if (srv_worker_start(&r->worker, run, r) < 0) {
		srv_log("project removal: cannot start its thread");
		free(r->data_dir);
		free(r);
		return -1;
	}
	*out = r;
	return 0;
}

void srv_remover_stop(struct srv_remover *r)
{
	if (r == NULL)
		return;
	srv_worker_stop(&r->worker, NULL, NULL);
	free(r->data_dir);
	free(r);
}
