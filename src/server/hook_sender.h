/*
 * The outgoing webhook sender: one thread of the server that drains the
 * engine's delivery queue (lectern/webhook.h) with libcurl, several
 * deliveries at once, so a build only ever queues a delivery and never
 * waits on a receiver, and one slow receiver never waits on another.
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

/* Deliveries in flight at once: each slow receiver holds one until its
 * deadline, and the engine gives one project at most
 * LEC_WEBHOOK_PROJECT_SENDING_MAX, so four projects' slow receivers leave
 * the others room; all run in one thread on a curl multi handle. */
#define SRV_HOOK_SENDING_MAX 16

struct srv_hook_sender;
struct lec_netrule;

/* Start the thread on its own store handle of data_dir; retries wait
 * backoff_ms (0: the default) doubling per try, and each try waits at
 * most timeout_ms (0: the default) for an answer. Receivers are reached
 * only at globally reachable addresses and those allow permits (copied;
 * NULL: none). Returns 0, or -1 after logging why. */
int srv_hook_sender_start(struct srv_hook_sender **out, const char *data_dir,
			  unsigned backoff_ms, unsigned timeout_ms,
			  const struct lec_netrule *allow);
/* Stop it: a try under way is cut short and tried again later. Accepts
 * NULL. */
void srv_hook_sender_stop(struct srv_hook_sender *sender);

#endif
