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
 *
 * The guard also counts connections by client address for the server as
 * a whole: the server runs one libmicrohttpd daemon per thread, and each
 * daemon's own per-address limit would let an address hold that many
 * allowances. The accept policy counts a connection in (or refuses it),
 * and its close counts it out.
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include "guard.h"
#include "log.h"
#include "srv_limits.h"
#include "worker.h"

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

/* Buckets of the per-address counts: one per connection the server can
 * hold, so chains stay about one entry long even when every connection
 * comes from an address of its own. */
#define ADDR_BUCKETS SRV_MAX_CONNECTIONS

/* A client address as a key: IPv6, with IPv4 mapped into it (::ffff:a.b.c.d,
 * as an IPv6 socket sees an IPv4 client), so both spellings count as one. */
struct addr_key {
	unsigned char bytes[16];
};

/* Connections from one address; an entry exists while its count is
 * above 0. */
struct addr_count {
	struct addr_count *next; /* in its bucket */
	struct addr_key key;
	unsigned count;
};

struct guard_conn {
	struct srv_guard *guard;
	struct guard_conn *prev, *next; /* on the waiting list */
	int fd;
	int waiting;        /* on the list: headers not complete yet */
	int request_line;   /* the awaited request's line has arrived */
	int cut_off;        /* shut down by the sweeper: never waits again */
	uint64_t since_ms;  /* when it started waiting */
	int counted;        /* holds one of addr's connections */
	struct addr_key addr;
};

struct srv_guard {
	/* The sweeper; its lock guards the list and every guard_conn. */
	struct srv_worker sweeper;
	struct guard_conn *head, *tail; /* oldest first */
	unsigned nwaiting;
	unsigned crowded;           /* waiting past this: the crowded deadline */
	/* Connections waiting since this time or before were waiting while
	 * the server was crowded: they keep the crowded deadline. */
	uint64_t crowd_mark_ms;

	pthread_mutex_t log_lock;   /* the rate limit below */
	uint64_t log_window_ms;     /* start of the current window */
	unsigned log_lines;         /* written in the window */
	unsigned long log_dropped;  /* left out in the window */

	pthread_mutex_t addr_lock;  /* the per-address counts */
	struct addr_count *addrs[ADDR_BUCKETS];
};

/* The connection the accept policy has just counted in on this thread
 * (guard NULL: none). libmicrohttpd reports it started right after, on
 * the same thread, and the count passes to its guard_conn then; if
 * libmicrohttpd drops it in between (out of memory), no close is ever
 * reported, so the count is given back instead (srv_guard_settle). */
static _Thread_local struct {
	struct srv_guard *guard;
	struct addr_key addr;
} pending;

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
 * connections started waiting, so they are all at its head. Every
 * connection that was waiting while the server was crowded keeps the
 * crowded deadline, also once cutting the oldest has made it less
 * crowded: a flood whose connects straddle a tick would otherwise see its
 * younger part get the normal deadline. */
static void sweep(struct srv_guard *g)
{
	uint64_t now = now_ms(), seconds;

	if (g->nwaiting > g->crowded && g->tail)
		g->crowd_mark_ms = g->tail->since_ms;
	while (g->head) {
		seconds = g->head->since_ms <= g->crowd_mark_ms
				  ? SRV_HEADER_SECONDS_CROWDED
				  : SRV_HEADER_SECONDS;
		if (now - g->head->since_ms < 1000u * seconds)
			break;
		cut(g, g->head);
	}
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

/* Connections per address ------------------------------------------------ */

/* The key of an IP address into key; 0 for any other kind (a unix
 * socket's peer, which has no address to count). */
static int addr_key_of(const struct sockaddr *addr, struct addr_key *key)
{
	if (addr->sa_family == AF_INET6) {
		memcpy(key->bytes,
		       &((const struct sockaddr_in6 *)addr)->sin6_addr, 16);
		return 1;
	}
	if (addr->sa_family == AF_INET) {
		memset(key->bytes, 0, 10);
		key->bytes[10] = key->bytes[11] = 0xff;
		memcpy(key->bytes + 12,
		       &((const struct sockaddr_in *)addr)->sin_addr, 4);
		return 1;
	}
	return 0;
}

static struct addr_count **addr_bucket(struct srv_guard *g,
				       const struct addr_key *key)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t i;

	for (i = 0; i < sizeof(key->bytes); i++)
		h = (h ^ key->bytes[i]) * 16777619u;
	return &g->addrs[h % ADDR_BUCKETS];
}

/* Count one more connection from key: 0, or -1 when the address already
 * holds SRV_MAX_CONNECTIONS_PER_IP or memory ran out. */
static int addr_add(struct srv_guard *g, const struct addr_key *key)
{
	struct addr_count **bucket = addr_bucket(g, key), *a;
	int rc = -1;

	pthread_mutex_lock(&g->addr_lock);
	for (a = *bucket; a; a = a->next)
		if (memcmp(&a->key, key, sizeof(*key)) == 0)
			break;
	if (a == NULL) {
		if ((a = calloc(1, sizeof(*a))) == NULL)
			goto done;
		a->key = *key;
		a->next = *bucket;
		*bucket = a;
	}
	if (a->count < SRV_MAX_CONNECTIONS_PER_IP) {
		a->count++;
		rc = 0;
	}
done:
	pthread_mutex_unlock(&g->addr_lock);
	return rc;
}

/* Count one connection from key out; the entry goes with its last. */
static void addr_remove(struct srv_guard *g, const struct addr_key *key)
{
	struct addr_count **link = addr_bucket(g, key), *a;

	pthread_mutex_lock(&g->addr_lock);
	for (; (a = *link) != NULL; link = &a->next) {
		if (memcmp(&a->key, key, sizeof(*key)) != 0)
			continue;
		if (--a->count == 0) {
			*link = a->next;
			free(a);
		}
		break;
	}
	pthread_mutex_unlock(&g->addr_lock);
}

enum MHD_Result srv_guard_accept(void *cls, const struct sockaddr *addr,
				 socklen_t addrlen)
{
	struct srv_guard *g = cls;
	struct addr_key key;

	(void)addrlen;
	srv_guard_settle();
	if (!addr_key_of(addr, &key))
		return MHD_YES;
	if (addr_add(g, &key) < 0)
		return MHD_NO;
	pending.guard = g;
	pending.addr = key;
	return MHD_YES;
}

void srv_guard_settle(void)
{
	if (pending.guard == NULL)
		return;
	addr_remove(pending.guard, &pending.addr);
	pending.guard = NULL;
}

/* The sweeper ------------------------------------------------------------- */

static void *sweeper_main(void *arg)
{
	struct srv_guard *g = arg;
	struct timespec at;

	pthread_mutex_lock(&g->sweeper.lock);
	while (!g->sweeper.stopping) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_nsec += SRV_GUARD_TICK_MS * 1000000L;
		at.tv_sec += at.tv_nsec / 1000000000L;
		at.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&g->sweeper.wake, &g->sweeper.lock, &at);
		sweep(g);
		/* A quiet spell still gets its "not shown" count. */
		pthread_mutex_lock(&g->log_lock);
		log_roll(g, now_ms());
		pthread_mutex_unlock(&g->log_lock);
	}
	pthread_mutex_unlock(&g->sweeper.lock);
	return NULL;
}

int srv_guard_new(struct srv_guard **out, unsigned crowded)
{
	struct srv_guard *g = calloc(1, sizeof(*g));

	*out = NULL;
	if (g == NULL)
		return -1;
	pthread_mutex_init(&g->log_lock, NULL);
	pthread_mutex_init(&g->addr_lock, NULL);
	g->log_window_ms = now_ms();
	g->crowded = crowded;
	if (srv_worker_start(&g->sweeper, sweeper_main, g) < 0) {
		srv_log("cannot start the connection guard");
		pthread_mutex_destroy(&g->log_lock);
		pthread_mutex_destroy(&g->addr_lock);
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
	srv_worker_stop(&g->sweeper, NULL, NULL);
	pthread_mutex_destroy(&g->log_lock);
	/* Every connection has closed, so every count is back to 0 and its
	 * entry freed (a leak checker would report one that is not). */
	pthread_mutex_destroy(&g->addr_lock);
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
		/* Out of memory: this one connection goes unguarded and
		 * uncounted. */
		if (info == NULL || (c = calloc(1, sizeof(*c))) == NULL) {
			srv_guard_settle();
			return;
		}
		c->guard = g;
		c->fd = info->connect_fd;
		if (pending.guard == g) {
			c->counted = 1;
			c->addr = pending.addr;
			pending.guard = NULL;
		}
		pthread_mutex_lock(&g->sweeper.lock);
		start_waiting(g, c);
		pthread_mutex_unlock(&g->sweeper.lock);
		*socket_context = c;
		return;
	}
	if (c == NULL)
		return;
	pthread_mutex_lock(&g->sweeper.lock);
	stop_waiting(g, c);
	pthread_mutex_unlock(&g->sweeper.lock);
	if (c->counted)
		addr_remove(g, &c->addr);
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
	pthread_mutex_lock(&c->guard->sweeper.lock);
	c->request_line = 1;
	pthread_mutex_unlock(&c->guard->sweeper.lock);
}

void srv_guard_headers_done(struct MHD_Connection *conn)
{
	struct guard_conn *c = conn_of(conn);

	if (c == NULL)
		return;
	pthread_mutex_lock(&c->guard->sweeper.lock);
	stop_waiting(c->guard, c);
	pthread_mutex_unlock(&c->guard->sweeper.lock);
}

void srv_guard_request_done(struct MHD_Connection *conn)
{
	struct guard_conn *c = conn_of(conn);

	if (c == NULL)
		return;
	pthread_mutex_lock(&c->guard->sweeper.lock);
	if (!c->waiting && !c->cut_off)
		start_waiting(c->guard, c);
	pthread_mutex_unlock(&c->guard->sweeper.lock);
}
