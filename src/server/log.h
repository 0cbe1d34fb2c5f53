/*
 * The server's log: one line per message on stderr, the program's name
 * ("lectern serve: ") first, never with a secret in it. The lowest floor
 * of the server: every file may log, and logging calls nothing of the
 * server's.
 */
#ifndef LECTERN_SRV_LOG_H
#define LECTERN_SRV_LOG_H

void srv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The program the lines name, "lectern serve" unless set (the preview's
 * server says "lectern preview"); set it before any thread logs. name is
 * kept, not copied. */
void srv_log_set_program(const char *name);

#endif
