/*
 * Fuzz target: content negotiation (src/server/input.c
 * srv_input_accept_prefers), which decides whether the docs host answers a
 * page with Markdown or HTML from a client's Accept header.
 *
 * Input: the header's value. Besides the sanitizers: the answer is 0 or 1,
 * it is 1 only for a header that names text/markdown itself, never for one
 * without it (a browser's, or a wildcard's), and asking the same twice
 * gives the same answer.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "input.h"

/* Whether s holds the type, in any case. */
static int names(const char *s, const char *type)
{
	size_t n = strlen(type);

	for (; *s; s++)
		if (strncasecmp(s, type, n) == 0)
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *accept = fuzz_strndup(data, size);
	int md = srv_input_accept_prefers(accept, "text/markdown", "text/html");
	int html = srv_input_accept_prefers(accept, "text/html", "text/markdown");

	FUZZ_CHECK(md == 0 || md == 1, "a yes or a no");
	FUZZ_CHECK(!md || names(accept, "text/markdown"),
		   "Markdown only when the header names it");
	FUZZ_CHECK(md == srv_input_accept_prefers(accept, "text/markdown",
						  "text/html"),
		   "the same answer twice");
	FUZZ_CHECK(!html || names(accept, "text/html"),
		   "HTML preferred only when named");
	FUZZ_CHECK(srv_input_accept_prefers(NULL, "text/markdown",
					    "text/html") == 0,
		   "no header, no Markdown");
	free(accept);
	return 0;
}
