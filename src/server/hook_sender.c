/*
 * The outgoing webhook sender. Its thread takes due deliveries from the
 * engine (body and signature made there: the secret never reaches this
 * file), posts them with the service's headers (Content-Type, User-Agent,
 * X-RTD-Event, X-Hub-Signature) and hands each outcome back; the engine
 * schedules retries. Pull requests' commit statuses (commit_status.h) go
 * the same way to their forges' APIs, with the integration's token as a
 * bearer token (opened by the engine for the try, wiped after it), in the
 * slots the webhooks leave free.
 *
 * Deliveries run side by side on one curl multi handle, up to
 * SRV_HOOK_SENDING_MAX at once, each with the receiver's deadline (the
 * webhook timeout) for everything from name resolution to the answer. The
 * engine hands them out fairly across projects (lec_webhook_delivery_next),
 * so a project's slow receivers hold at most its share of the slots and
 * another project's delivery waits at most one deadline for a free one.
 * With nothing due the thread sleeps in curl's poll, woken early only to
 * stop.
 *
 * Every connection is checked against the address rule (lectern/netrule.h)
 * as its socket is opened, with the address it is about to reach: a
 * receiver's name that resolves to loopback or the host's private network
 * is refused unless `--webhook-allow` lists it, and since the check is on
 * the connection itself a name that resolves differently the next time
 * changes nothing. Redirects are not followed and no proxy is used (a
 * proxy would reach the address for us, unchecked). An outcome records
 * only "refused" or "failed" and the HTTP status, never what the socket
 * said: which ports of a host answer is not the deliveries list's to tell.
 * Nothing logged names the URL (which may carry a token) or the body.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hook_sender.h"
#include "lectern/commit_status.h"
#include "lectern/errors.h"
#include "lectern/netrule.h"
#include "lectern/store.h"
#include "lectern/timefmt.h"
#include "lectern/webhook.h"
#include "log.h"
#include "worker.h"

/* How long a delivery taken stays reserved beyond its try's timeout, so
 * a sender that died mid-try leaves it to be tried again. */
#define HOOK_LEASE_SLACK_MS 60000u
/* Longest sleep with nothing due: new deliveries wait at most this. */
#define HOOK_POLL_MAX_MS 1000u
/* Headers' room: the event name and the signature are short; a token
 * header holds the longest token an integration takes. */
#define HOOK_HEADER_MAX (LEC_INTEGRATION_TOKEN_MAX + 32)

/* What a delivery's error says: refused before any connection, or failed
 * without saying how (refused, reset, timed out, no such host alike). */
#define HOOK_REFUSED "refused: the address is not allowed"
#define HOOK_FAILED "failed: no answer from the receiver"

/* One delivery in flight: a webhook's or a commit status. */
struct slot {
	CURL *curl;                 /* NULL: the slot is free */
	struct curl_slist *headers;
	int is_status;              /* status, not d, is in flight */
	struct lec_webhook_outgoing d;
	struct lec_commit_status_outgoing status;
	const struct lec_netrule *rule;
	int refused;                /* the rule refused a connection */
	char event[HOOK_HEADER_MAX];
	char signature[HOOK_HEADER_MAX];
};

struct srv_hook_sender {
	struct srv_worker worker;   /* waits in curl_multi_poll, not on wake */
	CURLM *multi;
	char *data_dir;
	unsigned backoff_ms;
	unsigned timeout_ms;
	struct lec_netrule rule;
	struct slot slots[SRV_HOOK_SENDING_MAX];
};

static size_t discard(char *data, size_t size, size_t n, void *payload)
{
	(void)data;
	(void)payload;
	return size * n;
}

/* libcurl's socket for a connection: only to an address the rule allows
 * (close-on-exec, as builds are forked beside this thread). */
static curl_socket_t open_checked(void *payload, curlsocktype purpose,
				  struct curl_sockaddr *a)
{
	struct slot *slot = payload;

	if (purpose != CURLSOCKTYPE_IPCXN ||
	    !lec_netrule_check(slot->rule, &a->addr, a->addrlen)) {
		slot->refused = 1;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

static void slot_release(struct srv_hook_sender *s, struct slot *slot)
{
	curl_multi_remove_handle(s->multi, slot->curl);
	curl_easy_cleanup(slot->curl);
	curl_slist_free_all(slot->headers);
	lec_webhook_outgoing_dispose(&slot->d);
	lec_commit_status_outgoing_dispose(&slot->status);
	explicit_bzero(slot->signature, sizeof(slot->signature));
	slot->curl = NULL;
	slot->headers = NULL;
	slot->refused = 0;
	slot->is_status = 0;
}

/* Start posting the delivery in slot->d; 0, or -1 when curl could not be
 * set up (the slot is released). */
static int slot_start(struct srv_hook_sender *s, struct slot *slot)
{
	const char *lines[] = { "Content-Type: application/json",
				"User-Agent: Lectern", slot->event,
				slot->signature };
	struct curl_slist *h = NULL;
	CURLcode cc = CURLE_OK;
	size_t i;

	const char *url = slot->is_status ? slot->status.url : slot->d.url;
	const char *body = slot->is_status ? slot->status.body : slot->d.body;
	size_t body_len = slot->is_status ? slot->status.body_len
					  : slot->d.body_len;

	if (slot->is_status) {
		snprintf(slot->event, sizeof(slot->event),
			 "Accept: application/json");
		snprintf(slot->signature, sizeof(slot->signature),
			 "Authorization: Bearer %s", slot->status.token);
	} else {
		snprintf(slot->event, sizeof(slot->event), "X-RTD-Event: %s",
			 slot->d.event);
		snprintf(slot->signature, sizeof(slot->signature),
			 "X-Hub-Signature: %s", slot->d.signature);
	}
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if ((h = curl_slist_append(slot->headers, lines[i])) == NULL)
			break;
		slot->headers = h;
	}
	slot->rule = &s->rule;
	if (h == NULL || (slot->curl = curl_easy_init()) == NULL) {
		slot_release(s, slot);
		return -1;
	}
#define SET(opt, val) if (cc == CURLE_OK) cc = curl_easy_setopt(slot->curl, opt, val)
	SET(CURLOPT_URL, url);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_PROXY, "");
	SET(CURLOPT_OPENSOCKETFUNCTION, open_checked);
	SET(CURLOPT_OPENSOCKETDATA, slot);
	SET(CURLOPT_HTTPHEADER, slot->headers);
	SET(CURLOPT_POSTFIELDS, body);
	SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
	SET(CURLOPT_TIMEOUT_MS, (long)s->timeout_ms);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_WRITEFUNCTION, discard);
	SET(CURLOPT_PRIVATE, slot);
#undef SET
	if (cc != CURLE_OK ||
	    curl_multi_add_handle(s->multi, slot->curl) != CURLM_OK) {
		slot_release(s, slot);
		return -1;
	}
	return 0;
}

/* Take the next due delivery (status: a commit status) into slot. */
static int take(struct srv_hook_sender *s, struct lec_store *store,
		struct slot *slot, int status, int64_t now)
{
	unsigned lease = s->timeout_ms + HOOK_LEASE_SLACK_MS;

	slot->is_status = status;
	return status ? lec_commit_status_next(store, now, lease,
					       &slot->status)
		      : lec_webhook_delivery_next(store, now, lease, &slot->d);
}

/* Take due deliveries into the free slots, the webhooks' first; the
 * number started. */
static int fill(struct srv_hook_sender *s, struct lec_store *store)
{
	int64_t now = lec_time_now();
	int started = 0, status = 0, rc;
	size_t i;

	for (i = 0; i < SRV_HOOK_SENDING_MAX; i++) {
		struct slot *slot = &s->slots[i];

		if (slot->curl)
			continue;
		rc = take(s, store, slot, status, now);
		if (rc == LEC_ENOTFOUND && !status) {
			status = 1;
			rc = take(s, store, slot, status, now);
		}
		if (rc == LEC_ENOTFOUND)
			break;
		if (rc < 0) {
			srv_log("webhooks: %s", lec_error_last());
			break;
		}
		if (slot_start(s, slot) < 0) {
			/* Its lease brings it back. */
			srv_log("webhooks: cannot set up a delivery");
			break;
		}
		started++;
	}
	return started;
}

/* Hand the outcomes of finished deliveries to the engine; the number. */
static int reap(struct srv_hook_sender *s, struct lec_store *store)
{
	struct slot *slot = NULL;
	const char *why;
	long status;
	CURLMsg *msg;
	int left, done = 0;

	while ((msg = curl_multi_info_read(s->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
				  (char **)&slot);
		status = 0;
		why = NULL;
		if (msg->data.result == CURLE_OK)
			curl_easy_getinfo(slot->curl, CURLINFO_RESPONSE_CODE,
					  &status);
		else if (slot->refused &&
			 msg->data.result == CURLE_COULDNT_CONNECT)
			why = HOOK_REFUSED;
		else
			why = HOOK_FAILED;
		if ((slot->is_status
			     ? lec_commit_status_done(store, slot->status.id,
						      (int)status, why,
						      s->backoff_ms)
			     : lec_webhook_delivery_done(
				       store, slot->d.delivery_id, (int)status,
				       why, s->backoff_ms)) < 0)
			srv_log("webhooks: %s %lld: %s",
				slot->is_status ? "commit status" : "delivery",
				(long long)(slot->is_status
						    ? slot->status.id
						    : slot->d.delivery_id),
				lec_error_last());
		slot_release(s, slot);
		done++;
	}
	return done;
}

static void *run(void *payload)
{
	struct srv_hook_sender *s = payload;
	struct lec_store *store = NULL;
	unsigned poll = s->backoff_ms < HOOK_POLL_MAX_MS ? s->backoff_ms
							 : HOOK_POLL_MAX_MS;
	int64_t next_fill = 0;
	int running = 0;
	size_t i;

	if (lec_store_open_dir(&store, s->data_dir, NULL) < 0) {
		srv_log("webhooks: cannot open the store: %s",
			lec_error_last());
		return NULL;
	}
	while (!srv_worker_stopping(&s->worker)) {
		/* The store is asked when a slot has freed or the poll is
		 * due, not on every byte a receiver sends. */
		if (lec_time_now() >= next_fill) {
			fill(s, store);
			next_fill = lec_time_now() + (int64_t)poll * 1000;
		}
		curl_multi_perform(s->multi, &running);
		if (reap(s, store) > 0)
			next_fill = 0;
		else
			curl_multi_poll(s->multi, NULL, 0, poll, NULL);
	}
	/* Cut short: their leases bring them back at the next start. */
	for (i = 0; i < SRV_HOOK_SENDING_MAX; i++)
		if (s->slots[i].curl)
			slot_release(s, &s->slots[i]);
	lec_store_free(store);
	return NULL;
}

int srv_hook_sender_start(struct srv_hook_sender **out, const char *data_dir,
			  unsigned backoff_ms, unsigned timeout_ms,
			  const struct lec_netrule *allow)
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
	if (allow)
		s->rule = *allow;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if ((s->multi = curl_multi_init()) == NULL ||
	    srv_worker_start(&s->worker, run, s) < 0) {
		srv_log("webhooks: cannot start the sender");
		curl_multi_cleanup(s->multi);
		free(s->data_dir);
		free(s);
		curl_global_cleanup();
		return -1;
	}
	*out = s;
	return 0;
}

/* The sender waits in curl_multi_poll: woken there to see it is to stop. */
static void wake_poll(void *multi)
{
	curl_multi_wakeup(multi);
}

void srv_hook_sender_stop(struct srv_hook_sender *s)
{
	if (s == NULL)
		return;
	srv_worker_stop(&s->worker, wake_poll, s->multi);
	curl_multi_cleanup(s->multi);
	free(s->data_dir);
	free(s);
	curl_global_cleanup();
}
