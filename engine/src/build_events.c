/*
 * A build started or ended (lectern/notification.h's
 * lec_notification_build_event): the fan-out to everything that hears of
 * it, the notifications of the build and its version (notification.c) and
 * the deliveries of the project's outgoing webhooks (webhook.c). It sits on
 * a floor above both, so that neither calls the other for it; webhook.c
 * raises and cancels its own failing-receiver notification.
 */
#include "lectern/build.h"
#include "lectern/notification.h"
#include "lectern/webhook.h"
#include "store_internal.h"

int lec_notification_build_event(struct lec_store *st, int64_t build_id,
				 enum lec_build_event event,
				 const struct lec_notification_site *site)
{
	const struct lec_webhook_site hook_site = {
		site ? site->docs_domain : NULL,
		site ? site->production_domain : NULL,
	};
	struct lec_build *b = NULL;
	int error;

	lec_error_clear();
	if ((error = lec_build_get(st, build_id, &b)) < 0)
		return error;
	if (event == LEC_BUILD_EVENT_TRIGGERED)
		error = lec_webhook_queue_build(st, build_id,
						LEC_WEBHOOK_BUILD_TRIGGERED,
						&hook_site);
	else
		error = lec__notification_build_ended(st, b);
	/* The service sends no webhook for a cancelled build. */
	if (error == LEC_OK && event == LEC_BUILD_EVENT_FINISHED &&
	    b->state != LEC_BUILD_STATE_CANCELLED)
		error = lec_webhook_queue_build(st, build_id,
						b->success
							? LEC_WEBHOOK_BUILD_PASSED
							: LEC_WEBHOOK_BUILD_FAILED,
						&hook_site);
	lec_build_free(b);
	return error;
}
