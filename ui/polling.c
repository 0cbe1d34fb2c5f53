/*
 * The poll budget and the pollers' paces (polling.h): the token bucket
 * every background poll draws from, and the one back-off rule the Projects
 * rows, the builds lists and the unread count follow with their own
 * numbers.
 */
#include "polling.h"

const struct ui_pace ui_pace_last_build = { 1, 3, 30 };
const struct ui_pace ui_pace_builds = { 1, 3, 30 };
const struct ui_pace ui_pace_unread = { 5000, 5000, 60000 };

int ui_poll_take(struct ui_poll_budget *b, int64_t now_ms)
{
	int64_t steps;

	if (!b->started) {
		b->started = 1;
		b->tokens = UI_POLL_BURST;
		b->refilled = now_ms;
	}
	steps = (now_ms - b->refilled) / UI_POLL_REFILL_MS;
	if (steps > 0) {
		b->tokens += (int)(steps < UI_POLL_BURST ? steps
							 : UI_POLL_BURST);
		if (b->tokens > UI_POLL_BURST)
			b->tokens = UI_POLL_BURST;
		b->refilled += steps * UI_POLL_REFILL_MS;
	}
	if (b->tokens == 0)
		return 0;
	b->tokens--;
	return 1;
}

long ui_pace_next(const struct ui_pace *p, long every, int moving)
{
	if (moving)
		return p->moving;
	if (every < p->first)
		return p->first;
	return every * 2 > p->most ? p->most : every * 2;
}
