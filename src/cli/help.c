/*
 * What `--help` prints: a command's usage, what it does, each of its
 * options with what it does (wrapped to 80 columns under its name, as man
 * pages do), and examples; and for a group word (`lectern context`), the
 * commands under it. The texts are data in the command table
 * (commands.c): `detail` holds "SPEC<TAB>WHAT" lines for the options and
 * arguments and "$ COMMAND" lines for the examples.
 */
#include <string.h>

#include "cli.h"

/* The help's width: a terminal's default, and what a man page keeps to. */
#define HELP_WIDTH 80
/* Where an option's text starts; a longer name puts it on the next
 * line. */
#define HELP_TEXT_COL 24

/* Print text (n bytes) wrapped at spaces to HELP_WIDTH, its first line
 * starting at column col (already reached), every further one indented to
 * indent. */
static void wrap(FILE *out, const char *text, size_t n, size_t col,
		 size_t indent)
{
	size_t room, cut;

	while (n > 0) {
		room = HELP_WIDTH > col ? HELP_WIDTH - col : 1;
		cut = n;
		if (n > room) {
			for (cut = room; cut > 0 && text[cut] != ' '; cut--)
				;
			if (cut == 0) /* one word longer than the line */
				for (cut = room; cut < n && text[cut] != ' '; cut++)
					;
		}
		fprintf(out, "%.*s\n", (int)cut, text);
		text += cut;
		n -= cut;
		while (n > 0 && *text == ' ') {
			text++;
			n--;
		}
		if (n > 0)
			fprintf(out, "%*s", (int)indent, "");
		col = indent;
	}
}

void cli_help_option(FILE *out, const char *spec, size_t spec_len,
		     const char *text, size_t text_len)
{
	fprintf(out, "  %.*s", (int)spec_len, spec);
	if (spec_len + 2 + 2 > HELP_TEXT_COL) {
		fprintf(out, "\n%*s", HELP_TEXT_COL, "");
	} else {
		fprintf(out, "%*s", (int)(HELP_TEXT_COL - 2 - spec_len), "");
	}
	wrap(out, text, text_len, HELP_TEXT_COL, HELP_TEXT_COL);
}

/* Each line of detail whose kind (an option's or an example's) is
 * wanted. */
static void print_detail(FILE *out, const char *detail, int examples)
{
	const char *line, *end, *tab;
	size_t n;

	for (line = detail; *line; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		n = (size_t)(end - line);
		if (examples && strncmp(line, "$ ", 2) == 0) {
			fprintf(out, "  ");
			wrap(out, line + 2, n - 2, 2, 6);
		} else if (!examples && (tab = memchr(line, '\t', n)) != NULL) {
			cli_help_option(out, line, (size_t)(tab - line), tab + 1,
					(size_t)(end - tab - 1));
		}
	}
}

void cli_command_help(FILE *out, const struct cli_command *cmd)
{
	const char *detail = cmd->detail ? cmd->detail : "";

	fprintf(out, "usage: lectern %s", cmd->name);
	if (cmd->args[0]) {
		fputc(' ', out);
		wrap(out, cmd->args, strlen(cmd->args),
		     strlen("usage: lectern  ") + strlen(cmd->name),
		     strlen("usage: lectern  ") + strlen(cmd->name));
	} else {
		fputc('\n', out);
	}
	fputc('\n', out);
	wrap(out, cmd->summary, strlen(cmd->summary), 0, 0);
	if (strchr(detail, '\t')) {
		fputs("\noptions:\n", out);
		print_detail(out, detail, 0);
	}
	if (cmd->help)
		cmd->help(out);
	if (strstr(detail, "$ ")) {
		fputs("\nexamples:\n", out);
		print_detail(out, detail, 1);
	}
}

int cli_group_help(FILE *out, const char *group,
		   const struct cli_command *commands, size_t count)
{
	size_t i, n = strlen(group), found = 0;

	for (i = 0; i < count; i++) {
		if (strncmp(commands[i].name, group, n) != 0 ||
		    commands[i].name[n] != ' ')
			continue;
		if (out == NULL) {
			found++;
			continue;
		}
		if (found++ == 0)
			fprintf(out, "usage: lectern %s COMMAND ...\n\n"
				     "commands:\n", group);
		cli_help_option(out, commands[i].name, strlen(commands[i].name),
				commands[i].summary,
				strlen(commands[i].summary));
	}
	if (found && out)
		fprintf(out, "\nRun 'lectern %s COMMAND --help' for one "
			     "command's options.\n", group);
	return found ? 0 : -1;
}
