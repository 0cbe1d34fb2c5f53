/*
 * The server's log (log.h). A file of its own so that the threads beside
 * the request path (the guard, the webhook sender) and the accessors
 * every handler uses can log without depending on the daemon (server.c).
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

void srv_log(const char *fmt, ...)
{
	va_list ap;

	fputs("lectern serve: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
