/*
 * A build started or ended (lectern/notification.h's
 * lec_notification_build_event): the fan-out to everything that hears of
 * it, the notifications of the build and its version (notification.c) and
 * the deliveries of the project's outgoing webhooks (webhook.c), and a pull
 * request's commit statuses (commit_status.c). It sits on a floor above
 * them, so that none calls another for it; webhook.c raises and cancels
 * its own failing-receiver notification.
 */
#include "lectern/build.h"
#include "lectern/commit_status.h"
#include "lectern/notification.h"
#include "lectern/warning.h"
#include "lectern/webhook.h"
#include "store_internal.h"

/* Bytes of the first new warning quoted in the notification's body. */
#define FIRST_MESSAGE_MAX 200

/* A build's new warnings: a notification on the build saying how many
 * and which came first (each build has its own). */
static int raise_new_warnings(struct lec_store *st, const struct lec_build *b)
{
	struct lec_warning_summary sum;
	struct lec_warning_filter only_new = { 1 };
	struct lec_page first = { 1, 0 };
	struct lec_warning_list list = { 0 };
	struct lec_notification_new n = { 0 };
	struct lec__buf header = LEC__BUF_INIT, body = LEC__BUF_INIT;
	int error;

	if ((error = lec_warning_summary_get(st, b->id, &sum)) < 0)
		return error;
	if (sum.new_count == 0)
		return LEC_OK;
	lec_warning_list(st, b->id, &only_new, &first, &list);
	lec__buf_printf(&header, "%zu new warning%s", sum.new_count,
			sum.new_count == 1 ? "" : "s");
	lec__buf_printf(&body, "Build #%lld has %zu warning%s, %zu of them new "
			       "since the version's last good build",
			(long long)b->id, sum.count, sum.count == 1 ? "" : "s",
			sum.new_count);
	if (list.len > 0) {
		const struct lec_warning *w = &list.items[0];
		char *cut;

		lec__buf_puts(&body, "; the first: ");
		if (*w->file)
			lec__buf_printf(&body, "%s: ", w->file);
		if (w->line)
			lec__buf_printf(&body, "line %u: ", w->line);
		if ((cut = lec__strdup_cut(w->message, FIRST_MESSAGE_MAX)))
			lec__buf_puts(&body, cut);
		lec__free(cut);
	}
	lec__buf_puts(&body, ".");
	lec_warning_list_dispose(&list);
	n.message_id = LEC_MSG_BUILD_NEW_WARNINGS;
	n.target = LEC_NOTIFICATION_BUILD;
	n.attached_id = b->id;
	n.type = "warning";
	n.dismissable = 1;
	return lec__notification_add_texts(st, &n, lec__buf_take(&header),
					   lec__buf_take(&body));
}

int lec_notification_build_event(struct lec_store *st, int64_t build_id,
				 enum lec_build_event event,
				 const struct lec_notification_site *site)
{
	const struct lec_webhook_site hook_site = {
		site ? site->docs_domain : NULL,
		site ? site->production_domain : NULL,
	};
	const struct lec_commit_status_site status_site = {
		site ? site->production_domain : NULL,
		site ? site->external_domain : NULL,
		site ? site->docs_domain : NULL,
	};
	struct lec_build *b = NULL;
	int error;

	lec_error_clear();
	if ((error = lec_build_get(st, build_id, &b)) < 0)
		return error;
	if (event == LEC_BUILD_EVENT_NEW_WARNINGS) {
		error = raise_new_warnings(st, b);
		if (error == LEC_OK)
			error = lec_webhook_queue_build(
				st, build_id, LEC_WEBHOOK_BUILD_NEW_WARNINGS,
				&hook_site);
		lec_build_free(b);
		return error;
	}
	if (event == LEC_BUILD_EVENT_TRIGGERED)
		error = lec_webhook_queue_build(st, build_id,
						LEC_WEBHOOK_BUILD_TRIGGERED,
						&hook_site);
	else
		error = lec__notification_build_ended(st, b);
	if (error == LEC_OK && (event == LEC_BUILD_EVENT_TRIGGERED ||
				b->state != LEC_BUILD_STATE_CANCELLED))
		error = lec_commit_status_queue(
			st, build_id,
			event == LEC_BUILD_EVENT_TRIGGERED ? LEC_COMMIT_STATUS_PENDING
			: b->success			    ? LEC_COMMIT_STATUS_SUCCESS
							    : LEC_COMMIT_STATUS_FAILURE,
			&status_site);
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
