/*
 * The server's defences against clients that hold connections rather than
 * make requests (guard.c): a deadline on each request's headers however
 * slowly they trickle in, the connections of one address counted across
 * all the server's daemons, the open-file limit raised so the connection
 * limit holds, and libmicrohttpd's client-caused log lines rate-limited.
 * server.c wires these callbacks into libmicrohttpd.
 */
#ifndef LECTERN_SRV_GUARD_H
#define LECTERN_SRV_GUARD_H

#include <microhttpd.h>
#include <stdarg.h>
#include <sys/socket.h>

struct srv_guard;

/* Start the guard's sweeper thread. crowded: past this many connections
 * waiting for headers, the deadline drops to SRV_HEADER_SECONDS_CROWDED
 * (SRV_CROWDED_CONNECTIONS for the server; a daemon that holds fewer
 * connections passes its own half). Returns 0 with *out owned by the
 * caller, or -1 after logging why. */
int srv_guard_new(struct srv_guard **out, unsigned crowded);
/* Stop the sweeper and free the guard; call after the daemon has stopped
 * (every connection closed). Accepts NULL. */
void srv_guard_free(struct srv_guard *guard);

/* Raise the soft open-file limit to the hard one, and return how many
 * connections fit in it beside SRV_FD_RESERVE, at most
 * SRV_MAX_CONNECTIONS. */
unsigned srv_guard_connection_limit(void);

/* MHD_start_daemon's accept policy (cls: the guard): MHD_NO when the
 * client's address already holds SRV_MAX_CONNECTIONS_PER_IP connections
 * on any of the server's daemons, else the connection is counted in. */
enum MHD_Result srv_guard_accept(void *cls, const struct sockaddr *addr,
				 socklen_t addrlen);
/* After each MHD_run on a daemon's thread: give back the count of a
 * connection the accept policy let in but libmicrohttpd dropped before
 * it started (out of memory), which no close will ever report. */
void srv_guard_settle(void);

/* MHD_OPTION_NOTIFY_CONNECTION (cls: the guard): a new connection starts
 * waiting for its first request's headers (and keeps the count the accept
 * policy took for it); a closed one is forgotten and counted out. */
void srv_guard_notify(void *cls, struct MHD_Connection *conn,
		      void **socket_context,
		      enum MHD_ConnectionNotificationCode code);
/* A request's stages on conn, from server.c's callbacks: its request line
 * arrived (a cut-off client then gets a 408), its headers are complete (no
 * deadline any more), its response was sent (the deadline runs again for
 * the next request on a kept-alive connection). */
void srv_guard_request_line(struct MHD_Connection *conn);
void srv_guard_headers_done(struct MHD_Connection *conn);
void srv_guard_request_done(struct MHD_Connection *conn);

/* MHD_OPTION_EXTERNAL_LOGGER (cls: the guard): libmicrohttpd's messages,
 * at most SRV_LOG_BURST per SRV_LOG_WINDOW seconds. */
void srv_guard_log(void *cls, const char *fmt, va_list ap);

#endif
