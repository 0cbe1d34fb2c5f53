/*
 * A per-user generic cell rate (throttle.h). Each user has a theoretical
 * arrival time (tat): the moment their rate would be fully refilled. An
 * action costs one interval; it is allowed while the tat, pushed back by
 * that cost, stays within the window of now, which lets a burst through
 * and then one action per interval. A user whose tat has passed is as if
 * never seen, so their slot may be taken by another: the table holds the
 * users throttling now, not every user ever throttled.
 */
#include <string.h>

#include "throttle.h"

void srv_throttle_init(struct srv_throttle *t, unsigned burst,
		       unsigned window_s)
{
	int64_t window_ms = (int64_t)window_s * 1000;

	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	t->interval_ms = window_ms / (burst ? burst : 1);
	t->tolerance_ms = window_ms - t->interval_ms;
}

void srv_throttle_dispose(struct srv_throttle *t)
{
	pthread_mutex_destroy(&t->lock);
}

/* The user's slot; else a free one (never used, or refilled); else the
 * one nearest to refilled, whose user is forgotten a little early. */
static struct srv_throttle_slot *slot_of(struct srv_throttle *t,
					 int64_t user, int64_t now_ms)
{
	struct srv_throttle_slot *free_slot = NULL, *oldest = &t->slots[0];
	size_t i;

	for (i = 0; i < SRV_THROTTLE_USERS; i++) {
		struct srv_throttle_slot *s = &t->slots[i];

		if (s->user == user)
			return s;
		if (free_slot == NULL && (s->user == 0 || s->tat_ms <= now_ms))
			free_slot = s;
		if (s->tat_ms < oldest->tat_ms)
			oldest = s;
	}
	free_slot = free_slot ? free_slot : oldest;
	free_slot->user = user;
	free_slot->tat_ms = now_ms;
	return free_slot;
}

unsigned srv_throttle_take(struct srv_throttle *t, int64_t user,
			   int64_t now_ms)
{
	struct srv_throttle_slot *s;
	int64_t tat, ahead;
	unsigned wait = 0;

	pthread_mutex_lock(&t->lock);
	s = slot_of(t, user, now_ms);
	tat = s->tat_ms > now_ms ? s->tat_ms : now_ms;
	ahead = tat - now_ms;
	if (ahead > t->tolerance_ms)
		/* Rounded up, as DRF rounds its wait: never early. */
		wait = (unsigned)((ahead - t->tolerance_ms + 999) / 1000);
	else
		s->tat_ms = tat + t->interval_ms;
	pthread_mutex_unlock(&t->lock);
	return wait;
}
