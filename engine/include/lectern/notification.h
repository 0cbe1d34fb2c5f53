/*
 * Notifications, as the hosted service keeps them: a message (an id such as
 * "build:user:generic", a header, a body, a type) attached to a build, a
 * project, an organization or a user, in one of the states unread, read,
 * dismissed or cancelled.
 *
 * The engine raises them where the service does: a build that fails or is
 * cancelled gets one (a configuration error, a missing index page, or the
 * generic failure); a version whose build fails after its previous build
 * passed, or whose first build fails, raises one on its project, naming
 * the project, the version and the build (build_id), cancelled when the
 * version builds again; and the webhook sender raises one on a project whose webhook
 * keeps failing (webhook.h), cancelled by its next delivery. Raising the
 * same message on the same object again refreshes the unread or read one
 * instead of adding a second (the service's NotificationQuerySet.add).
 *
 * The build pipeline calls lec_notification_build_event when a build
 * starts and when it ends; that call also queues the project's outgoing
 * webhooks (webhook.h), so a build never waits for a delivery.
 */
#ifndef LECTERN_NOTIFICATION_H
#define LECTERN_NOTIFICATION_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

enum lec_notification_state {
	LEC_NOTIFICATION_UNREAD,
	LEC_NOTIFICATION_READ,
	LEC_NOTIFICATION_DISMISSED,
	LEC_NOTIFICATION_CANCELLED,
};

/* What a notification hangs from (the service's attached_to_content_type). */
enum lec_notification_target {
	LEC_NOTIFICATION_BUILD,
	LEC_NOTIFICATION_PROJECT,
	LEC_NOTIFICATION_ORGANIZATION,
	LEC_NOTIFICATION_USER,
};

/* The message ids the engine raises. All but the last three are the
 * service's; those are Lectern's (the service has no such message). */
#define LEC_MSG_BUILD_GENERIC "build:user:generic"
#define LEC_MSG_BUILD_CANCELLED "build:user:cancelled"
#define LEC_MSG_BUILD_SKIPPED "build:user:exit-code-183"
#define LEC_MSG_BUILD_NO_INDEX "build:user:output:html-no-index-file"
#define LEC_MSG_BUILD_OUTPUT_NOT_DIR "build:user:output:is-no-a-directory"
#define LEC_MSG_BUILD_OUTPUT_EMPTY "build:user:output:has-0-files"
#define LEC_MSG_BUILD_OUTPUT_MULTIPLE "build:user:output:has-multiple-files"
#define LEC_MSG_CONFIG_GENERIC "config:generic"
#define LEC_MSG_VERSION_FAILING "project:version:build-failing"
#define LEC_MSG_WEBHOOK_FAILING "project:webhook:failing"
#define LEC_MSG_BUILD_NEW_WARNINGS "build:user:new-warnings"

struct lec_notification {
	int64_t id;
	char *message_id;
	enum lec_notification_state state;
	int dismissable;
	int news;
	enum lec_notification_target target;
	int64_t attached_id;
	/* What links to it need: the project's slug (builds, projects), the
	 * organization's slug or the user's name; NULL once that is gone. */
	char *attached_slug;
	char *type; /* "error", "warning", "info", "note", "tip" */
	char *header;
	char *body;
	/* The build it is about: a build's own, or the one a project's names
	 * (a version failing); 0: none (or gone). Its version's slug, or NULL
	 * (no build, or its version is gone). */
	int64_t build_id;
	char *build_version;
	int64_t created; /* microseconds since the epoch, UTC */
	int64_t modified;
};

LEC_PAGE_LIST(lec_notification);

/* Which notifications lec_notification_list returns. */
struct lec_notification_filter {
	/* The ones attached to this object (attached_id > 0), or, with
	 * attached_id 0, every object's. */
	enum lec_notification_target target;
	int64_t attached_id;
	/* > 0: only what this user's feed shows (the service's for_user
	 * "all"): attached to the user, to projects they administer and to
	 * organizations they own; target and attached_id are then ignored. */
	int64_t feed_user_id;
	/* Bits (1 << state) of the states kept; 0 keeps all. */
	unsigned states;
	/* > 0: only this notification (a detail looked up in its scope). */
	int64_t id;
};

/* What a new notification says. */
struct lec_notification_new {
	const char *message_id;
	enum lec_notification_target target;
	int64_t attached_id;
	const char *type;
	const char *header;
	const char *body;
	int dismissable;
	/* A project's notification about one of its builds; 0: none. */
	int64_t build_id;
};

/* The service's names of a state and a target; and back. */
const char *lec_notification_state_code(enum lec_notification_state state);
const char *lec_notification_target_code(enum lec_notification_target t);
/** @return LEC_OK or LEC_EINVALID (field "state", the service's choice
 *          message) */
int lec_notification_state_lookup(const char *code,
				   enum lec_notification_state *out);

/**
 * Raise a notification, or refresh the unread or read one with the same
 * message on the same object (its text replaced, unread again).
 * @param id the notification's id, or NULL
 * @return LEC_OK; LEC_EINVALID (a field missing); LEC_ENOTFOUND (no such
 *         build or project)
 */
int lec_notification_add(struct lec_store *store,
			 const struct lec_notification_new *n, int64_t *id);

/**
 * Cancel the unread or read notifications of a message on an object (what
 * they asked for was done). @return LEC_OK, also when there was none
 */
int lec_notification_cancel(struct lec_store *store,
			    enum lec_notification_target target,
			    int64_t attached_id, const char *message_id);

/**
 * Notifications, newest first.
 * @param page NULL for all
 * @param out  filled; release with lec_notification_list_dispose
 */
int lec_notification_list(struct lec_store *store,
			  const struct lec_notification_filter *filter,
			  const struct lec_page *page,
			  struct lec_notification_list *out);

/**
 * A notification by id.
 * @param out owned by caller (lec_notification_free)
 * @return LEC_OK or LEC_ENOTFOUND
 */
int lec_notification_get(struct lec_store *store, int64_t id,
			 struct lec_notification **out);

/** Set a notification's state. @return LEC_OK or LEC_ENOTFOUND */
int lec_notification_set_state(struct lec_store *store, int64_t id,
			       enum lec_notification_state state);

/* Build events ------------------------------------------------------------ */

enum lec_build_event {
	LEC_BUILD_EVENT_TRIGGERED, /* the build starts running */
	LEC_BUILD_EVENT_FINISHED,  /* it passed, failed or was cancelled */
	/* Lectern's: it ended with warnings its version's last good build
	 * did not have (lectern/warning.h) */
	LEC_BUILD_EVENT_NEW_WARNINGS,
};

/* Where the instance is, for the URLs a webhook's payload carries. */
struct lec_notification_site {
	const char *docs_domain;       /* "localhost:8000" */
	const char *production_domain; /* the API's host[:port] */
	const char *external_domain;   /* pull requests' previews; NULL:
					  "external.localhost" */
};

/**
 * A build started or ended: for an end, raise the build's notification
 * (failed or cancelled) and the version's (failing after passing, or
 * cancel that once it passes); for either, queue the deliveries of the
 * project's webhooks that subscribe to the event (build:triggered,
 * build:passed, build:failed; a cancelled build sends none, as in the
 * service). New warnings raise the build's "build:user:new-warnings"
 * notification and queue build:new-warnings deliveries, for the webhooks
 * that subscribe to it only. Never blocks on a delivery.
 * @param site may be NULL (URLs then name localhost)
 */
int lec_notification_build_event(struct lec_store *store, int64_t build_id,
				  enum lec_build_event event,
				  const struct lec_notification_site *site);

/** Free a notification. Accepts NULL. */
void lec_notification_free(struct lec_notification *n);
/** Free what a list holds (not the list struct). Accepts NULL. */
void lec_notification_list_dispose(struct lec_notification_list *list);

#ifdef __cplusplus
}
#endif
#endif
