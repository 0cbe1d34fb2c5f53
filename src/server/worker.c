/*
 * A server's background thread (worker.h): its start, its stop flag, its
 * pause and its stop. The condition runs on the monotonic clock, so that
 * a pause is as long as it says when the wall clock is set.
 */
#include <errno.h>
#include <time.h>

#include "worker.h"

#define NSEC_PER_SEC 1000000000L
#define NSEC_PER_MS 1000000L

int srv_worker_start(struct srv_worker *w, void *(*run)(void *arg),
		     void *arg)
{
	pthread_condattr_t attr;

	w->stopping = 0;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&w->thread, NULL, run, arg) == 0)
		return 0;
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	return -1;
}

int srv_worker_stopping(struct srv_worker *w)
{
	int stop;

	pthread_mutex_lock(&w->lock);
	stop = w->stopping;
	pthread_mutex_unlock(&w->lock);
	return stop;
}

void srv_worker_pause(struct srv_worker *w, unsigned ms)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += ms / 1000u;
	until.tv_nsec += (long)(ms % 1000u) * NSEC_PER_MS;
	if (until.tv_nsec >= NSEC_PER_SEC) {
		until.tv_sec++;
		until.tv_nsec -= NSEC_PER_SEC;
	}
	pthread_mutex_lock(&w->lock);
	while (!w->stopping &&
	       pthread_cond_timedwait(&w->wake, &w->lock, &until) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&w->lock);
}

void srv_worker_stop(struct srv_worker *w, void (*nudge)(void *arg),
		     void *arg)
{
	pthread_mutex_lock(&w->lock);
	w->stopping = 1;
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
	if (nudge)
		nudge(arg);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
}
