/*
 * "Did you mean ...?": the names near a mistyped one (a command, an
 * option, a project's or a version's slug), as git and gh offer them. A
 * name is near when few edits (a letter added, dropped, changed, or two
 * swapped) turn one into the other, case aside, or when the typed word is
 * a part of it ("guide" for "user-guide"); the nearest few are kept, in the
 * order they were offered when as near. It calls nothing of the CLI, so
 * every file may use it.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The longest name compared: slugs and commands are short, and the
 * table below stays on the stack. */
#define NEAR_LEN_MAX (CLI_NEAR_NAME_MAX - 1)

static int lower(char c)
{
	return tolower((unsigned char)c);
}

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

/* Edits from a to b (optimal string alignment: insert, delete, change, swap
 * two neighbours), case-insensitive. */
static int distance(const char *a, const char *b)
{
	int prev2[NEAR_LEN_MAX + 2], prev[NEAR_LEN_MAX + 2],
		cur[NEAR_LEN_MAX + 2];
	size_t la = strnlen(a, NEAR_LEN_MAX), lb = strnlen(b, NEAR_LEN_MAX);
	size_t i, j;

	for (j = 0; j <= lb; j++)
		prev[j] = (int)j;
	memcpy(prev2, prev, sizeof(prev));
	for (i = 1; i <= la; i++) {
		cur[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			int same = lower(a[i - 1]) == lower(b[j - 1]);

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1,
				      prev[j - 1] + !same);
			if (i > 1 && j > 1 &&
			    lower(a[i - 1]) == lower(b[j - 2]) &&
			    lower(a[i - 2]) == lower(b[j - 1]) &&
			    prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		memcpy(prev2, prev, sizeof(prev));
		memcpy(prev, cur, sizeof(cur));
	}
	return prev[lb];
}

/* Whether word is a part of name, case aside. */
static int contains(const char *name, const char *word)
{
	size_t n = strlen(word), i;

	for (; *name; name++) {
		for (i = 0; i < n && name[i] && lower(name[i]) == lower(word[i]);
		     i++)
			;
		if (i == n)
			return 1;
	}
	return 0;
}

void cli_near_init(struct cli_near *n, const char *word)
{
	memset(n, 0, sizeof(*n));
	n->word = word;
}

void cli_near_add(struct cli_near *n, const char *name)
{
	size_t len = strlen(n->word), i, at;
	/* One edit in a short word, two in a longer one, three at most. */
	int most = len <= 4 ? 1 : len <= 8 ? 2 : 3, d;

	if (name == NULL || *name == '\0' || strlen(name) > NEAR_LEN_MAX ||
	    len > NEAR_LEN_MAX || strcmp(name, n->word) == 0)
		return;
	for (i = 0; i < n->len; i++)
		if (strcmp(n->names[i], name) == 0)
			return;
	d = distance(n->word, name);
	if (d > most && !(len >= 3 && contains(name, n->word)))
		return;
	if (d > most)
		d = most + 1; /* a part: after every near spelling */
	for (at = n->len; at > 0 && n->dist[at - 1] > d; at--)
		;
	if (at >= CLI_NEAR_MAX)
		return;
	if (n->len == CLI_NEAR_MAX)
		n->len--;
	memmove(&n->names[at + 1], &n->names[at],
		(n->len - at) * sizeof(n->names[0]));
	memmove(&n->dist[at + 1], &n->dist[at],
		(n->len - at) * sizeof(n->dist[0]));
	snprintf(n->names[at], sizeof(n->names[at]), "%s", name);
	n->dist[at] = d;
	n->len++;
}

const char *cli_near_text(const struct cli_near *n, char *buf, size_t size)
{
	size_t i, used;

	buf[0] = '\0';
	if (n->len == 0 || size == 0)
		return buf;
	used = (size_t)snprintf(buf, size, "; did you mean");
	for (i = 0; i < n->len && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s'%s'",
					 i == 0		       ? " "
					 : i + 1 == n->len ? " or "
							   : ", ",
					 n->names[i]);
	if (used < size)
		snprintf(buf + used, size - used, "?");
	return buf;
}
