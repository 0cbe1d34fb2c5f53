/*
 * The outgoing webhook sender: one thread of the server that drains the
 * engine's delivery queue (lectern/webhook.h) with libcurl, so a build
 * only ever queues a delivery and never waits on a receiver.
 */
#ifndef LECTERN_SRV_HOOK_SENDER_H
#define LECTERN_SRV_HOOK_SENDER_H

/* The first retry's delay when the serve option leaves it unset: long
 * enough for a receiver to come back from a restart. */
#define SRV_HOOK_BACKOFF_DEFAULT_MS 10000u
/* How long a receiver gets to answer one try when the serve option leaves
 * it unset: the service gives 2 s; a local machine under build load may
 * need more. */
#define SRV_HOOK_TIMEOUT_DEFAULT_MS 5000u

struct srv_hook_sender;

/* Start the thread on its own store handle of data_dir; retries wait
 * backoff_ms (0: the default) doubling per try, and each try waits at
 * most timeout_ms (0: the default) for an answer. Returns 0, or -1 after
 * logging why. */
int srv_hook_sender_start(struct srv_hook_sender **out, const char *data_dir,
			  unsigned backoff_ms, unsigned timeout_ms);
/* Stop it: a try under way is cut short and tried again later. Accepts
 * NULL. */
void srv_hook_sender_stop(struct srv_hook_sender *sender);

#endif
