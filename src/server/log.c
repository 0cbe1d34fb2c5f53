/*
 * The server's log (log.h). A file of its own so that the threads beside
 * the request path (the guard, the webhook sender) and the accessors
 * every handler uses can log without depending on the daemon (server.c).
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

/* Set before any thread logs, read only after. */
static const char *program = "lectern serve";

void srv_log_set_program(const char *name)
{
	program = name;
}

void srv_log(const char *fmt, ...)
{
	va_list ap;

	fputs(program, stderr);
	fputs(": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
