/*
 * A server's background thread (the connection guard's sweeper, the
 * project remover, the webhook sender): the thread, the lock it shares
 * with its owner, the condition that wakes it and the flag that tells it
 * to stop. Starting one and stopping one are the same few steps for
 * every such thread, so they are written once here.
 */
#ifndef LECTERN_SRV_WORKER_H
#define LECTERN_SRV_WORKER_H

#include <pthread.h>

struct srv_worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* on CLOCK_MONOTONIC; signalled to stop */
	int stopping;        /* under lock */
};

/* Start run(arg) on a new thread of w. 0, or -1 with nothing of w left
 * to undo. */
int srv_worker_start(struct srv_worker *w, void *(*run)(void *arg),
		     void *arg);
/* Whether w was told to stop. */
int srv_worker_stopping(struct srv_worker *w);
/* Sleep ms, or less when told to stop. */
void srv_worker_pause(struct srv_worker *w, unsigned ms);
/* Tell w to stop and wake it; nudge(arg) (NULL: none) wakes a thread that
 * waits on something else. Then wait for the thread, and free what
 * srv_worker_start made. */
void srv_worker_stop(struct srv_worker *w, void (*nudge)(void *arg),
		     void *arg);

#endif
