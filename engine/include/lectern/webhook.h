/*
 * A project's outgoing webhooks (a Lectern extension of the v3 API; the
 * service has them in its dashboard): a URL told of build events
 * (build:triggered, build:passed, build:failed, and Lectern's
 * build:new-warnings) with the service's payload,
 * or the project's own JSON template with the service's {{ variables }},
 * signed with the webhook's secret (X-Hub-Signature: the hex HMAC-SHA256 of
 * the body, as the service sends it).
 *
 * The secret is generated (32 letters and digits, like the service's) or
 * given at creation, stored sealed (AES-256-GCM under the data directory's
 * key, bound to the project) and never read back but to sign a delivery.
 *
 * The engine knows nothing of HTTP: a build event queues one delivery per
 * subscribed webhook, with its body and the webhook's URL of the moment
 * (a URL changed later does not redirect it); the server's sender takes
 * due deliveries (lec_webhook_delivery_next), posts them, and records each
 * outcome (lec_webhook_delivery_done), which schedules the retries with a
 * doubling backoff and, when the last one fails, raises a notification on
 * the project (notification.h). The newest deliveries of each webhook are
 * kept to be listed.
 *
 * The sender runs deliveries side by side; which one it takes next is
 * fair across projects: the due delivery of the project served longest
 * ago, never more than LEC_WEBHOOK_PROJECT_SENDING_MAX of one project at
 * once, so one project's slow receivers cannot hold up another's. A
 * webhook's deliveries go one at a time, oldest first, so its receiver
 * gets a build's events in order.
 */
#ifndef LECTERN_WEBHOOK_H
#define LECTERN_WEBHOOK_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The service's field limits. */
#define LEC_WEBHOOK_URL_MAX 600
#define LEC_WEBHOOK_PAYLOAD_MAX 25000
#define LEC_WEBHOOK_SECRET_MAX 255
/* A generated secret's characters, as the service's get_random_string(32). */
#define LEC_WEBHOOK_SECRET_LEN 32
/* Tries of one delivery: the first and four retries, 1, 2, 4 and 8 times
 * the backoff later; past that the receiver is down, not flaky. */
#define LEC_WEBHOOK_ATTEMPTS_MAX 5
/* Finished deliveries kept per webhook, newest first: enough to see a
 * pattern, bounded so a busy project cannot grow the store. */
#define LEC_WEBHOOK_DELIVERIES_KEPT 25
/* The hex HMAC-SHA256 of a body. */
#define LEC_WEBHOOK_SIGNATURE_LEN 64
/* Webhooks of one project: each build event is a delivery to every one,
 * so this bounds what one build queues and how many receivers one project
 * keeps the sender busy with; a project that notifies more places wants
 * one receiver that relays. */
#define LEC_WEBHOOK_PROJECT_MAX 10
/* Deliveries of one project in a sender's hands at once: enough to send a
 * build's events to its receivers side by side, few enough that one
 * project's slow receivers leave the sender's other slots to the other
 * projects. */
#define LEC_WEBHOOK_PROJECT_SENDING_MAX 4

/* Event bits of a webhook's subscription. */
enum lec_webhook_event {
	LEC_WEBHOOK_BUILD_TRIGGERED = 1 << 0,
	LEC_WEBHOOK_BUILD_PASSED = 1 << 1,
	LEC_WEBHOOK_BUILD_FAILED = 1 << 2,
	/* Lectern's: a build ended with new warnings (lectern/warning.h);
	 * only webhooks that name it get it. */
	LEC_WEBHOOK_BUILD_NEW_WARNINGS = 1 << 3,
};
#define LEC_WEBHOOK_EVENTS_ALL 15u

struct lec_webhook {
	int64_t id;
	int64_t project_id;
	char *url;
	unsigned events; /* enum lec_webhook_event bits */
	char *payload;   /* the JSON template, or NULL: the service's default */
	int64_t created; /* microseconds since the epoch, UTC */
	int64_t modified;
};

LEC_PAGE_LIST(lec_webhook);

/* Which fields a create or an update sets (bits of .fields). */
enum {
	LEC_WEBHOOK_FIELD_URL = 1 << 0,
	LEC_WEBHOOK_FIELD_EVENTS = 1 << 1,
	LEC_WEBHOOK_FIELD_PAYLOAD = 1 << 2,
};

struct lec_webhook_fields {
	unsigned fields;
	const char *url;     /* http:// or https://, at most _URL_MAX */
	unsigned events;     /* at least one event */
	const char *payload; /* a JSON object template, or NULL: none */
};

enum lec_webhook_delivery_state {
	LEC_WEBHOOK_PENDING,   /* waiting for its (next) try */
	LEC_WEBHOOK_DELIVERED, /* answered 2xx */
	LEC_WEBHOOK_FAILED,    /* every try failed */
};

struct lec_webhook_delivery {
	int64_t id;
	int64_t webhook_id;
	char *event;      /* "build:passed" */
	int64_t build_id; /* 0: none */
	char *body;       /* the JSON sent */
	enum lec_webhook_delivery_state state;
	int attempts;
	int64_t next_attempt; /* microseconds; while pending */
	int status_code;      /* the last answer's, 0: none */
	char *error;          /* why the last try failed, or NULL */
	int64_t created;
	int64_t modified;
};

LEC_PAGE_LIST(lec_webhook_delivery);

/* One due delivery, for the sender. */
struct lec_webhook_outgoing {
	int64_t delivery_id;
	char *url; /* the webhook's when the delivery was queued */
	char *event;
	char *body;
	size_t body_len;
	char signature[LEC_WEBHOOK_SIGNATURE_LEN + 1];
	int attempt; /* 1 for the first try */
};

/** The service's name of an event ("build:passed"); NULL for no bit. */
const char *lec_webhook_event_code(enum lec_webhook_event event);
/** @return LEC_OK or LEC_EINVALID (field "events") */
int lec_webhook_event_lookup(const char *code, enum lec_webhook_event *out);
const char *lec_webhook_delivery_state_code(
	enum lec_webhook_delivery_state state);

/**
 * Create a webhook, up to LEC_WEBHOOK_PROJECT_MAX per project.
 * @param in         url and events required (both bits set in fields)
 * @param secret     the secret, or NULL to generate one
 * @param out        the new webhook (owned by caller), or NULL
 * @param secret_out when secret is NULL and this is not: the generated
 *                   secret (owned by the caller; wipe, then free()): the
 *                   only time anyone sees it
 * @return LEC_OK; LEC_EINVALID with field "url", "events", "payload" or
 *         "secret"; LEC_ELIMIT (the project has LEC_WEBHOOK_PROJECT_MAX);
 *         LEC_ENOTFOUND (no such project)
 */
int lec_webhook_create(struct lec_store *store, int64_t project_id,
		       const struct lec_webhook_fields *in, const char *secret,
		       struct lec_webhook **out, char **secret_out);

/** A webhook of a project. @return LEC_OK or LEC_ENOTFOUND */
int lec_webhook_get(struct lec_store *store, int64_t project_id, int64_t id,
		    struct lec_webhook **out);

/** A project's webhooks, oldest first. Dispose with
 * lec_webhook_list_dispose. */
int lec_webhook_list(struct lec_store *store, int64_t project_id,
		     const struct lec_page *page, struct lec_webhook_list *out);

/** Change the fields set in patch->fields. @return LEC_OK; LEC_EINVALID;
 * LEC_ENOTFOUND */
int lec_webhook_update(struct lec_store *store, int64_t project_id,
		       int64_t id, const struct lec_webhook_fields *patch);

/** Delete a webhook and its deliveries. @return LEC_OK or LEC_ENOTFOUND */
int lec_webhook_delete(struct lec_store *store, int64_t project_id,
		       int64_t id);

/** A webhook's kept deliveries, newest first. Dispose with
 * lec_webhook_delivery_list_dispose. */
int lec_webhook_delivery_list(struct lec_store *store, int64_t webhook_id,
			      const struct lec_page *page,
			      struct lec_webhook_delivery_list *out);

/* Queueing and sending ------------------------------------------------------ */

/* The URLs and names a payload's variables need beyond the build's row. */
struct lec_webhook_site {
	const char *docs_domain;       /* NULL: "localhost" */
	const char *production_domain; /* NULL: "localhost" */
};

/**
 * Queue one delivery of event (one bit) for each of the build's project's
 * webhooks that subscribe to it, with the body rendered now.
 * @return LEC_OK (also when none subscribes); LEC_ENOTFOUND (no build)
 */
int lec_webhook_queue_build(struct lec_store *store, int64_t build_id,
			    enum lec_webhook_event event,
			    const struct lec_webhook_site *site);

/**
 * Take a delivery due at now_us (microseconds since the epoch) and sign
 * its body: of the projects with fewer than LEC_WEBHOOK_PROJECT_SENDING_MAX
 * deliveries in a sender's hands, the one whose last delivery was taken
 * longest ago, and its oldest due delivery of a webhook with none in a
 * sender's hands. It stays in the sender's hands
 * for lease_ms at most: its next try is put off that long, so a sender
 * that dies mid-try leaves it to be tried again.
 * @param out filled; release with lec_webhook_outgoing_dispose
 * @return LEC_OK; LEC_ENOTFOUND when none is due; LEC_ECORRUPT (the secret
 *         does not open: the delivery is marked failed)
 */
int lec_webhook_delivery_next(struct lec_store *store, int64_t now_us,
			      unsigned lease_ms,
			      struct lec_webhook_outgoing *out);

/**
 * Record how a try went (the delivery leaves the sender's hands): a 2xx
 * status_code delivers it; anything else
 * (status_code 0 for no answer, with error saying why) schedules the next
 * try backoff_ms * 2^(attempt-1) later, or, after the last, fails it and
 * raises LEC_MSG_WEBHOOK_FAILING on the project. A delivered one cancels
 * that notification.
 */
int lec_webhook_delivery_done(struct lec_store *store, int64_t delivery_id,
			      int status_code, const char *error,
			      unsigned backoff_ms);

/** Free a webhook. Accepts NULL. */
void lec_webhook_free(struct lec_webhook *hook);
/** Free what a list holds. Accepts NULL. */
void lec_webhook_list_dispose(struct lec_webhook_list *list);
void lec_webhook_delivery_list_dispose(struct lec_webhook_delivery_list *list);
void lec_webhook_outgoing_dispose(struct lec_webhook_outgoing *out);

#ifdef __cplusplus
}
#endif
#endif
