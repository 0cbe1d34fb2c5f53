/*
 * The asynchronous mode, for a UI that must keep drawing while requests run.
 * Each submitted request is a job with its own curl easy handle on the
 * client's multi handle (which shares connections and DNS answers between
 * them). Nothing here blocks or starts a thread: the caller's loop waits on
 * our fds and timeout, calls lc_async_perform, and the callbacks of finished
 * jobs fire from there. A job that must retry leaves the multi handle and
 * waits on a timer (retry_at) that lc_async_timeout reports, so backoff and
 * Retry-After cost the loop nothing. After a 429, new jobs wait on the
 * same timer until the instance's Retry-After is over.
 */
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

struct lc_async_job {
	struct lc_async_job *next;
	uint64_t id;
	CURL *easy;
	struct lc_xfer x;
	long long retry_at;        /* monotonic ms; 0 unless waiting to retry */
	bool in_multi;
	bool finished;             /* result ready, callback not yet fired */
	int rc;
	struct lc_response *resp;
	struct lc_error err;
	void (*done)(struct lc_response *resp, const struct lc_error *err,
		     void *data);
	void *data;
};

static void job_free(struct lc_client *c, struct lc_async_job *j)
{
	if (j->in_multi)
		curl_multi_remove_handle(c->multi, j->easy);
	if (j->easy != NULL)
		curl_easy_cleanup(j->easy);
	lc__xfer_dispose(&j->x);
	lc_response_free(j->resp);
	free(j);
}

static void unlink_job(struct lc_client *c, struct lc_async_job *j)
{
	struct lc_async_job **p;

	for (p = &c->jobs; *p != NULL; p = &(*p)->next) {
		if (*p == j) {
			*p = j->next;
			j->next = NULL;
			return;
		}
	}
}

/* Takes j off the list, fires its callback, frees it. */
static void complete(struct lc_client *c, struct lc_async_job *j)
{
	unlink_job(c, j);
	if (j->in_multi) {
		curl_multi_remove_handle(c->multi, j->easy);
		j->in_multi = false;
	}
	if (j->done != NULL)
		j->done(j->resp, &j->err, j->data);
	job_free(c, j);
}

/* Starts the job's next attempt on the multi handle. */
static int start(struct lc_client *c, struct lc_async_job *j)
{
	int rc;

	j->retry_at = 0;
	rc = lc__xfer_setup(c, &j->x, j->easy, &j->err);
	if (rc != LC_OK)
		return rc;
	curl_easy_setopt(j->easy, CURLOPT_PRIVATE, j);
	if (curl_multi_add_handle(c->multi, j->easy) != CURLM_OK)
		return lc__fail(&j->err, LC_ETRANSPORT, 0,
				"cannot start the request to %s", j->x.url);
	j->in_multi = true;
	return LC_OK;
}

static void append_job(struct lc_client *c, struct lc_async_job *j)
{
	struct lc_async_job **p = &c->jobs;

	while (*p != NULL)
		p = &(*p)->next;
	*p = j;
}

int lc_async_submit(struct lc_client *c, const struct lc_async_request *req,
		    uint64_t *id, struct lc_error *err)
{
	struct lc_async_job *j = NULL;
	int rc;

	lc_error_clear(err);
	if (id != NULL)
		*id = 0;
	if (c == NULL || req == NULL || req->path == NULL)
		return lc__fail(err, LC_EINVAL, 0, "a client and a path are required");
	if (c->multi == NULL && (c->multi = curl_multi_init()) == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	j = calloc(1, sizeof(*j));
	if (j == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	rc = lc__xfer_init(c, &j->x, req->method, req->path, req->query,
			   req->json_body, req->etag, err);
	if (rc == LC_OK && req->accept &&
	    (rc = lc__xfer_accept(&j->x, req->accept)) != LC_OK)
		lc__fail(err, rc, 0, "invalid Accept header");
	if (rc != LC_OK)
		goto done;
	j->easy = curl_easy_init();
	if (j->easy == NULL) {
		rc = lc__fail(err, LC_ENOMEM, 0, "out of memory");
		goto done;
	}
	/* A throttled instance gets nothing new before its Retry-After. */
	if (c->throttled_until > lc__now_ms())
		j->retry_at = c->throttled_until;
	else if ((rc = start(c, j)) != LC_OK) {
		if (err != NULL)
			*err = j->err;
		goto done;
	}
	j->id = c->next_id++;
	j->done = req->done;
	j->data = req->data;
	append_job(c, j);
	if (id != NULL)
		*id = j->id;
	j = NULL;
done:
	if (j != NULL)
		job_free(c, j);
	return rc;
}

int lc_async_cancel(struct lc_client *c, uint64_t id)
{
	struct lc_async_job *j;

	for (j = c ? c->jobs : NULL; j != NULL; j = j->next) {
		if (j->id != id)
			continue;
		lc_response_free(j->resp);
		j->resp = NULL;
		j->rc = lc__fail(&j->err, LC_ECANCELLED, 0,
				 "request to %s cancelled", j->x.url);
		complete(c, j);
		return LC_OK;
	}
	return LC_EINVAL;
}

size_t lc_async_pending(const struct lc_client *c)
{
	const struct lc_async_job *j;
	size_t n = 0;

	for (j = c ? c->jobs : NULL; j != NULL; j = j->next)
		n++;
	return n;
}

int lc_async_fdset(struct lc_client *c, fd_set *rd, fd_set *wr, fd_set *ex,
		   int *maxfd)
{
	int fd = -1;

	if (c == NULL || c->multi == NULL)
		return LC_OK;
	if (curl_multi_fdset(c->multi, rd, wr, ex, &fd) != CURLM_OK)
		return LC_ETRANSPORT;
	if (fd > *maxfd)
		*maxfd = fd;
	return LC_OK;
}

long lc_async_timeout(struct lc_client *c)
{
	const struct lc_async_job *j;
	long long now = lc__now_ms();
	long t = -1;

	if (c == NULL || c->jobs == NULL)
		return -1;
	curl_multi_timeout(c->multi, &t);
	for (j = c->jobs; j != NULL; j = j->next) {
		long wait;

		if (j->retry_at == 0)
			continue;
		wait = j->retry_at > now ? (long)(j->retry_at - now) : 0;
		if (t < 0 || wait < t)
			t = wait;
	}
	return t;
}

int lc_async_poll(struct lc_client *c, int timeout_ms)
{
	long t = lc_async_timeout(c);

	if (c == NULL || c->jobs == NULL)
		return LC_OK;
	if (t >= 0 && t < timeout_ms)
		timeout_ms = (int)t;
	if (curl_multi_poll(c->multi, NULL, 0, timeout_ms, NULL) != CURLM_OK)
		return LC_ETRANSPORT;
	return LC_OK;
}

/* Restarts the jobs whose backoff is over. */
static void start_due(struct lc_client *c)
{
	struct lc_async_job *j;
	long long now = lc__now_ms();

	for (j = c->jobs; j != NULL; j = j->next) {
		if (j->retry_at == 0 || j->retry_at > now || j->finished)
			continue;
		j->rc = start(c, j);
		if (j->rc != LC_OK)
			j->finished = true;
	}
}

/* Reads what curl finished: each job either waits to retry or is done. */
static void collect(struct lc_client *c)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(c->multi, &left)) != NULL) {
		struct lc_async_job *j;
		char *priv = NULL;
		CURLcode result = m->data.result;
		CURL *easy = m->easy_handle;
		long wait;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
		j = (struct lc_async_job *)(void *)priv;
		curl_multi_remove_handle(c->multi, easy);
		j->in_multi = false;
		lc_error_clear(&j->err);
		j->rc = lc__xfer_finish(c, &j->x, easy, result, &wait, &j->resp,
					&j->err);
		if (wait >= 0) {
			lc_response_free(j->resp);
			j->resp = NULL;
			lc_error_clear(&j->err);
			/* 0 would read as "not waiting". */
			j->retry_at = lc__now_ms() + (wait > 0 ? wait : 1);
			continue;
		}
		j->finished = true;
	}
}

int lc_async_perform(struct lc_client *c)
{
	struct lc_async_job *j;
	int running = 0;

	if (c == NULL || c->multi == NULL)
		return LC_OK;
	start_due(c);
	if (curl_multi_perform(c->multi, &running) != CURLM_OK)
		return LC_ETRANSPORT;
	collect(c);
	/* A callback may submit or cancel, so restart from the head after
	 * each one rather than hold a pointer into the list. */
	for (;;) {
		for (j = c->jobs; j != NULL && !j->finished; j = j->next)
			;
		if (j == NULL)
			break;
		complete(c, j);
	}
	return LC_OK;
}

void lc__async_shutdown(struct lc_client *c)
{
	while (c->jobs != NULL) {
		struct lc_async_job *j = c->jobs;

		lc_response_free(j->resp);
		j->resp = NULL;
		j->rc = lc__fail(&j->err, LC_ECANCELLED, 0,
				 "request to %s cancelled", j->x.url);
		complete(c, j);
	}
	if (c->multi != NULL)
		curl_multi_cleanup(c->multi);
	c->multi = NULL;
}
