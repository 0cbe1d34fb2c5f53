/*
 * The outgoing webhook sender. Its thread takes the due delivery from the
 * engine (body and signature made there: the secret never reaches this
 * file), posts it with the service's headers (Content-Type, User-Agent,
 * X-RTD-Event, X-Hub-Signature) and hands the outcome back; the engine
 * schedules retries. With nothing due it sleeps a short poll, woken early
 * only to stop.
 *
 * What is logged names the delivery by id and the failure by curl's
 * generic text, never the URL (which may carry a token) or the body.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hook_sender.h"
#include "lectern/errors.h"
#include "lectern/store.h"
#include "lectern/timefmt.h"
#include "lectern/webhook.h"
#include "log.h"

/* How long a delivery taken stays reserved beyond its try's timeout, so
 * a sender that died mid-try leaves it to be tried again. */
#define HOOK_LEASE_SLACK_MS 60000u
/* Longest sleep with nothing due: new deliveries wait at most this. */
#define HOOK_POLL_MAX_MS 1000u
/* Headers' room: the event name and the signature are short. */
#define HOOK_HEADER_MAX 128

struct srv_hook_sender {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stopping;
	char *data_dir;
	unsigned backoff_ms;
	unsigned timeout_ms;
};

static int stopping(struct srv_hook_sender *s)
{
	int stop;

	pthread_mutex_lock(&s->lock);
	stop = s->stopping;
	pthread_mutex_unlock(&s->lock);
	return stop;
}

/* Cut a try short when the server stops. */
static int on_progress(void *payload, curl_off_t dltotal, curl_off_t dlnow,
		       curl_off_t ultotal, curl_off_t ulnow)
{
	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return stopping(payload);
}

static size_t discard(char *data, size_t size, size_t n, void *payload)
{
	(void)data;
	(void)payload;
	return size * n;
}

/* POST one delivery: *status the HTTP status (0: none), *why a static
 * text when there was no answer. */
static void post(struct srv_hook_sender *s,
		 const struct lec_webhook_outgoing *d, long *status,
		 const char **why)
{
	struct curl_slist *headers = NULL, *h = NULL;
	char event[HOOK_HEADER_MAX], signature[HOOK_HEADER_MAX];
	const char *lines[] = { "Content-Type: application/json",
				"User-Agent: Lectern", event, signature };
	CURL *curl = curl_easy_init();
	CURLcode rc = CURLE_OUT_OF_MEMORY;
	size_t i;

	*status = 0;
	snprintf(event, sizeof(event), "X-RTD-Event: %s", d->event);
	snprintf(signature, sizeof(signature), "X-Hub-Signature: %s",
		 d->signature);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if ((h = curl_slist_append(headers, lines[i])) == NULL)
			break;
		headers = h;
	}
	if (curl && h) {
		curl_easy_setopt(curl, CURLOPT_URL, d->url);
		curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
		curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, d->body);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)d->body_len);
		curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
				 (long)s->timeout_ms);
		curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(curl, CURLOPT_XFERINFODATA, s);
		curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
		rc = curl_easy_perform(curl);
		if (rc == CURLE_OK)
			curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
	}
	*why = rc == CURLE_OK ? NULL : curl_easy_strerror(rc);
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
}

/* Sleep up to ms, or until told to stop. */
static void nap(struct srv_hook_sender *s, unsigned ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&s->lock);
	if (!s->stopping)
		pthread_cond_timedwait(&s->wake, &s->lock, &until);
	pthread_mutex_unlock(&s->lock);
}

static void *run(void *payload)
{
	struct srv_hook_sender *s = payload;
	struct lec_webhook_outgoing d;
	struct lec_store *store = NULL;
	unsigned poll = s->backoff_ms < HOOK_POLL_MAX_MS ? s->backoff_ms
							 : HOOK_POLL_MAX_MS;
	const char *why;
	long status;
	int rc;

	if (lec_store_open_dir(&store, s->data_dir, NULL) < 0) {
		srv_log("webhooks: cannot open the store: %s",
			lec_error_last());
		return NULL;
	}
	while (!stopping(s)) {
		rc = lec_webhook_delivery_next(store, lec_time_now(),
					       s->timeout_ms +
						       HOOK_LEASE_SLACK_MS,
					       &d);
		if (rc == LEC_ENOTFOUND) {
			nap(s, poll);
			continue;
		}
		if (rc < 0) {
			srv_log("webhooks: %s", lec_error_last());
			nap(s, poll);
			continue;
		}
		post(s, &d, &status, &why);
		if (stopping(s) && status == 0) {
			/* Cut short: the lease brings it back next start. */
			lec_webhook_outgoing_dispose(&d);
			break;
		}
		if (lec_webhook_delivery_done(store, d.delivery_id, (int)status,
					      why, s->backoff_ms) < 0)
			srv_log("webhooks: delivery %lld: %s",
				(long long)d.delivery_id, lec_error_last());
		lec_webhook_outgoing_dispose(&d);
	}
	lec_store_free(store);
	return NULL;
}

int srv_hook_sender_start(struct srv_hook_sender **out, const char *data_dir,
			  unsigned backoff_ms, unsigned timeout_ms)
{
	struct srv_hook_sender *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (s == NULL || (s->data_dir = strdup(data_dir)) == NULL) {
		free(s);
		srv_log("webhooks: out of memory");
		return -1;
	}
	s->backoff_ms = backoff_ms ? backoff_ms : SRV_HOOK_BACKOFF_DEFAULT_MS;
	s->timeout_ms = timeout_ms ? timeout_ms : SRV_HOOK_TIMEOUT_DEFAULT_MS;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	if (pthread_create(&s->thread, NULL, run, s) != 0) {
		srv_log("webhooks: cannot start the sender thread");
		pthread_cond_destroy(&s->wake);
		pthread_mutex_destroy(&s->lock);
		free(s->data_dir);
		free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void srv_hook_sender_stop(struct srv_hook_sender *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s->data_dir);
	free(s);
	curl_global_cleanup();
}
