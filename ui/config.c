/*
 * The TUI's own config file, in tig's manner:
 *
 *     # comments
 *     set theme = dark
 *     set message-timeout = 4000   # ms a message stays in the status line
 *     bind generic x quit
 *     bind build <C-s> save-log
 *
 * It is a file of its own ($XDG_CONFIG_HOME/lectern/tui) rather than a
 * section of the CLI's config, which the `lectern context` commands
 * rewrite. A bad line is reported with its file and line and skipped;
 * the rest still applies, so one typo never costs every binding. Every
 * bad line is reported, not the first: fixing them one start at a time
 * is how a newcomer learns to distrust the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "keys.h"

/* A config line is typed by hand; longer ones are reported, not split. */
#define MAX_LINE 1024
/* A message that stays longer than a minute is an error in all but name. */
#define MAX_MESSAGE_MS 60000

char *ui_config_path(const char *given)
{
	const char *env = getenv("LECTERN_TUI_CONFIG");
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (given && *given)
		return ui_xstrdup(given);
	if (env && *env)
		return ui_xstrdup(env);
	if (xdg && *xdg == '/')
		return ui_xasprintf("%s/lectern/tui", xdg);
	if (home && *home)
		return ui_xasprintf("%s/.config/lectern/tui", home);
	return NULL;
}

/* Up to max words of line (changed in place); the count. */
static int words(char *line, char **w, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		p += strspn(p, " \t\r\n");
		if (*p == '\0' || *p == '#')
			break;
		w[n++] = p;
		p += strcspn(p, " \t\r\n");
		if (*p)
			*p++ = '\0';
	}
	return n;
}

/* One line; 0, or -1 with the reason in why. */
static int config_line(char *line, struct ui_options *opt, char *why,
		       size_t size)
{
	long long ms;

	char *w[6];
	int n = words(line, w, 6);

	if (n == 0)
		return 0;
	if (strcmp(w[0], "bind") == 0) {
		if (n != 4) {
			snprintf(why, size, "expected: bind KEYMAP KEY ACTION");
			return -1;
		}
		return ui_keys_bind(w[1], w[2], w[3], why, size);
	}
	if (strcmp(w[0], "set") == 0) {
		if (n == 4 && strcmp(w[2], "=") == 0 &&
		    strcmp(w[1], "theme") == 0) {
			if (opt->theme == NULL)
				opt->theme = ui_xstrdup(w[3]);
			return 0;
		}
		if (n == 4 && strcmp(w[2], "=") == 0 &&
		    strcmp(w[1], "message-timeout") == 0) {
			if (ui_parse_long(w[3], &ms) < 0 || ms < 0 ||
			    ms > MAX_MESSAGE_MS) {
				snprintf(why, size, "message-timeout: milliseconds "
					 "from 0 to %d", MAX_MESSAGE_MS);
				return -1;
			}
			opt->message_ms = (long)ms;
			return 0;
		}
		snprintf(why, size, "expected: set theme = NAME, or set "
			 "message-timeout = MS");
		return -1;
	}
	snprintf(why, size, "unknown keyword '%s' (expected bind or set)", w[0]);
	return -1;
}

int ui_config_load(const char *path, struct ui_options *opt, char *err,
		   size_t errsize)
{
	char line[MAX_LINE], why[256];
	FILE *f = fopen(path, "r");
	int lineno = 0, rc = 0;
	size_t used = 0;

	/* No config file is the usual case, not an error. */
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(why, sizeof(why), "line longer than %d bytes",
				 MAX_LINE - 1);
			while (fgets(line, sizeof(line), f) &&
			       strchr(line, '\n') == NULL)
				;
		} else if (config_line(line, opt, why, sizeof(why)) == 0) {
			continue;
		}
		/* One line of err each, as many as fit. */
		if (used < errsize)
			used += (size_t)snprintf(err + used, errsize - used,
						 "%s%s:%d: %s", rc ? "\n" : "",
						 path, lineno, why);
		rc = -1;
	}
	fclose(f);
	return rc;
}
