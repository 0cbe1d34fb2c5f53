/*
 * Slow clients and floods (guard.h). libmicrohttpd closes a connection
 * only after SRV_CONNECTION_TIMEOUT seconds without a byte, so a client
 * sending one header byte every few seconds keeps its connection, and
 * enough of them fill the connection limit. The guard keeps its own
 * bookkeeping: every connection waiting for a request's headers is on a
 * list in the order it started waiting, and a sweeper thread cuts those
 * past the deadline by shutting their socket down; libmicrohttpd then
 * sees the end of the stream and closes the connection as usual.
 *
 * The socket is only touched under the guard's lock, and libmicrohttpd
 * reports a connection closed (MHD_CONNECTION_NOTIFY_CLOSED, which takes
 * the lock) before it closes the descriptor, so the sweeper never shuts
 * down a descriptor number that has been reused.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include "guard.h"
#include "server.h"

/* Sent to a client cut off in the middle of a request (its request line
 * arrived); one that never started a request is closed silently, as an
 * idle kept-alive connection is. */
#define TIMEOUT_BODY "{\"detail\":\"Request headers not received in time.\"}"
#define TIMEOUT_RESPONSE                                                    \
	"HTTP/1.1 408 Request Timeout\r\n"                                   \
	"Content-Type: application/json\r\n"                                 \
	"Connection: close\r\n"                                              \
	"Content-Length: 50\r\n\r\n" TIMEOUT_BODY
_Static_assert(sizeof(TIMEOUT_BODY) - 1 == 50, "TIMEOUT_RESPONSE's length");

/* A libmicrohttpd message longer than this is cut in the log. */
#define LOG_LINE_MAX 256

struct guard_conn {
	struct srv_guard *guard;
	struct guard_conn *prev, *next; /* on the waiting list */
	int fd;
	int waiting;        /* on the list: headers not complete yet */
	int request_line;   /* the awaited request's line has arrived */
	int cut_off;        /* shut down by the sweeper: never waits again */
	uint64_t since_ms;  /* when it started waiting */
};

struct srv_guard {
	pthread_mutex_t lock;       /* the list and every guard_conn */
	pthread_cond_t wake;        /* stopping */
	pthread_t sweeper;
	int stopping;
	struct guard_conn *head, *tail; /* oldest first */
	unsigned nwaiting;

	pthread_mutex_t log_lock;   /* the rate limit below */
	uint64_t log_window_ms;     /* start of the current window */
	unsigned log_lines;         /* written in the window */
	unsigned long log_dropped;  /* left out in the window */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The waiting list (guard locked) ---------------------------------------- */

static void start_waiting(struct srv_guard *g, struct guard_conn *c)
{
	c->since_ms = now_ms();
	c->request_line = 0;
	c->waiting = 1;
	c->next = NULL;
	c->prev = g->tail;
	if (g->tail)
		g->tail->next = c;
	else
		g->head = c;
	g->tail = c;
	g->nwaiting++;
}

static void stop_waiting(struct srv_guard *g, struct guard_conn *c)
{
	if (!c->waiting)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		g->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		g->tail = c->prev;
	c->prev = c->next = NULL;
	c->waiting = 0;
	g->nwaiting--;
}

/* Cut one connection off. The send is best effort: the client may have
 * stopped reading too. */
static void cut(struct srv_guard *g, struct guard_conn *c)
{
	if (c->request_line)
		(void)send(c->fd, TIMEOUT_RESPONSE, sizeof(TIMEOUT_RESPONSE) - 1,
			   MSG_DONTWAIT | MSG_NOSIGNAL);
	shutdown(c->fd, SHUT_RDWR);
	c->cut_off = 1;
	stop_waiting(g, c);
}

/* Cut every connection past its deadline: the list is in the order the
 * connections started waiting, so they are all at its head. */
static void sweep(struct srv_guard *g)
{
	uint64_t now = now_ms();
	uint64_t limit = 1000u * (g->nwaiting > SRV_CROWDED_CONNECTIONS
					  ? SRV_HEADER_SECONDS_CROWDED
					  : SRV_HEADER_SECONDS);

	while (g->head && now - g->head->since_ms >= limit)
		cut(g, g->head);
}

/* Logging ----------------------------------------------------------------- */

/* Close the window when it is over: say how many lines were left out. */
static void log_roll(struct srv_guard *g, uint64_t now)
{
	if (now - g->log_window_ms < 1000u * SRV_LOG_WINDOW)
		return;
	if (g->log_dropped)
		srv_log("%lu more connection messages in %d s not shown",
			g->log_dropped, SRV_LOG_WINDOW);
	g->log_window_ms = now;
	g->log_lines = 0;
	g->log_dropped = 0;
}

void srv_guard_log(void *cls, const char *fmt, va_list ap)
{
	struct srv_guard *g = cls;
	char line[LOG_LINE_MAX];
	size_t n;

	pthread_mutex_lock(&g->log_lock);
	log_roll(g, now_ms());
	if (g->log_lines < SRV_LOG_BURST) {
		g->log_lines++;
		vsnprintf(line, sizeof(line), fmt, ap);
		n = strlen(line);
		while (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		srv_log("%s", line);
	} else {
		g->log_dropped++;
	}
	pthread_mutex_unlock(&g->log_lock);
}

/* The sweeper ------------------------------------------------------------- */

static void *sweeper_main(void *arg)
{
	struct srv_guard *g = arg;
	struct timespec at;

	pthread_mutex_lock(&g->lock);
	while (!g->stopping) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_nsec += SRV_GUARD_TICK_MS * 1000000L;
		at.tv_sec += at.tv_nsec / 1000000000L;
		at.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&g->wake, &g->lock, &at);
		sweep(g);
		/* A quiet spell still gets its "not shown" count. */
		pthread_mutex_lock(&g->log_lock);
		log_roll(g, now_ms());
		pthread_mutex_unlock(&g->log_lock);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

int srv_guard_new(struct srv_guard **out)
{
	struct srv_guard *g = calloc(1, sizeof(*g));
	pthread_condattr_t attr;
	int ok;

	*out = NULL;
	if (g == NULL)
		return -1;
	pthread_mutex_init(&g->lock, NULL);
	pthread_mutex_init(&g->log_lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&g->wake, &attr);
	pthread_condattr_destroy(&attr);
	g->log_window_ms = now_ms();
	ok = pthread_create(&g->sweeper, NULL, sweeper_main, g) == 0;
	if (!ok) {
		srv_log("cannot start the connection guard");
		pthread_cond_destroy(&g->wake);
		pthread_mutex_destroy(&g->lock);
		pthread_mutex_destroy(&g->log_lock);
		free(g);
		return -1;
	}
	*out = g;
	return 0;
}

void srv_guard_free(struct srv_guard *g)
{
	if (g == NULL)
		return;
	pthread_mutex_lock(&g->lock);
	g->stopping = 1;
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->sweeper, NULL);
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
	pthread_mutex_destroy(&g->log_lock);
	free(g);
}

/* Open files -------------------------------------------------------------- */

unsigned srv_guard_connection_limit(void)
{
	struct rlimit rl;
	rlim_t room;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return SRV_MAX_CONNECTIONS;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t hard = rl.rlim_max;

		rl.rlim_cur = hard;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			srv_log("cannot raise the open-file limit to %llu: %s",
				(unsigned long long)hard, strerror(errno));
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= (rlim_t)SRV_MAX_CONNECTIONS + SRV_FD_RESERVE)
		return SRV_MAX_CONNECTIONS;
	/* A small limit keeps half for clients rather than none. */
	room = rl.rlim_cur > 2 * SRV_FD_RESERVE ? rl.rlim_cur - SRV_FD_RESERVE
						 : rl.rlim_cur / 2;
	srv_log("the open-file limit (%llu) allows %llu connections, not %d",
		(unsigned long long)rl.rlim_cur, (unsigned long long)room,
		SRV_MAX_CONNECTIONS);
	return room > 0 ? (unsigned)room : 1u;
}

/* Connection events ------------------------------------------------------- */

void srv_guard_notify(void *cls, struct MHD_Connection *conn,
		      void **socket_context,
		      enum MHD_ConnectionNotificationCode code)
{
	struct srv_guard *g = cls;
	struct guard_conn *c = *socket_context;
	const union MHD_ConnectionInfo *info;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		info = MHD_get_connection_info(conn,
					       MHD_CONNECTION_INFO_CONNECTION_FD);
		/* Out of memory: this one connection goes unguarded. */
		if (info == NULL || (c = calloc(1, sizeof(*c))) == NULL)
			return;
		c->guard = g;
		c->fd = info->connect_fd;
		pthread_mutex_lock(&g->lock);
		start_waiting(g, c);
		pthread_mutex_unlock(&g->lock);
		*socket_context = c;
		return;
	}
	if (c == NULL)
		return;
	pthread_mutex_lock(&g->lock);
	stop_waiting(g, c);
	pthread_mutex_unlock(&g->lock);
	free(c);
	*socket_context = NULL;
}

static struct guard_conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return info ? info->socket_context : NULL;
}

void srv_guard_request_line(struct MHD_Connection *conn)
{
	struct guard_conn *c = conn_of(conn);

	if (c == NULL)
		return;
	pthread_mutex_lock(&c->guard->lock);
	c->request_line = 1;
	pthread_mutex_unlock(&c->guard->lock);
}

void srv_guard_headers_done(struct MHD_Connection *conn)
{
	struct guard_conn *c = conn_of(conn);

	if (c == NULL)
		return;
	pthread_mutex_lock(&c->guard->lock);
	stop_waiting(c->guard, c);
	pthread_mutex_unlock(&c->guard->lock);
}

void srv_guard_request_done(struct MHD_Connection *conn)
{
	struct guard_conn *c = conn_of(conn);

	if (c == NULL)
		return;
	pthread_mutex_lock(&c->guard->lock);
	if (!c->waiting && !c->cut_off)
		start_waiting(c->guard, c);
	pthread_mutex_unlock(&c->guard->lock);
}
