/*
 * A per-user rate (throttle.c): at most `burst` actions in any `window`
 * seconds, refilled evenly, as a generic cell rate (one "theoretical
 * arrival time" per user, nothing per action), so a user who has spent
 * the burst gets one action every window / burst. What the v3 import
 * throttle is made of (srv_limits.h: SRV_IMPORTS_PER_HOUR_DEFAULT); safe
 * to share between threads.
 */
#ifndef LECTERN_SRV_THROTTLE_H
#define LECTERN_SRV_THROTTLE_H

#include <pthread.h>
#include <stdint.h>

#include "srv_limits.h"

struct srv_throttle_slot {
	int64_t user;     /* 0: free */
	int64_t tat_ms;   /* when the user's rate is refilled, monotonic */
};

struct srv_throttle {
	pthread_mutex_t lock;
	int64_t interval_ms; /* window / burst: one action's cost */
	int64_t tolerance_ms; /* window - interval: how far ahead it may run */
	struct srv_throttle_slot slots[SRV_THROTTLE_USERS];
};

/* Start t with burst actions per window_s seconds (burst >= 1). */
void srv_throttle_init(struct srv_throttle *t, unsigned burst,
		       unsigned window_s);
void srv_throttle_dispose(struct srv_throttle *t);

/* Take one action of user at now_ms (a monotonic clock's milliseconds):
 * 0 when allowed (and counted), else the whole seconds until it would be
 * (at least 1; nothing counted). */
unsigned srv_throttle_take(struct srv_throttle *t, int64_t user,
			   int64_t now_ms);

#endif
