/*
 * Pages of an engine behind an ssh context: its socket is reached from
 * here through a unix socket, so the docs URLs it answers with name no
 * port (http://guide.localhost/en/latest/) and lead no browser here to it.
 * A local port forwarded to its socket does: the command that forwards one
 * (the context's hint, "ssh -N -L PORT:SOCKET HOST", with the port put
 * in) and the page's URL through that port. The CLI's `import` and the
 * TUI's reader say both the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

char *lc_url_with_port(const char *url, int port)
{
	const char *host = strstr(url, "://");
	char *out = NULL;
	size_t hn;

	if (host == NULL)
		return strdup(url);
	host += 3;
	hn = strcspn(host, "/:");
	if (asprintf(&out, "%.*s:%d%s", (int)(host + hn - url), url, port,
		     host + hn + strcspn(host + hn, "/")) < 0)
		out = NULL;
	return out;
}

char *lc_forward_command(const char *hint, int port)
{
	const char *at = strstr(hint, "PORT");
	char *out = NULL;

	if (at == NULL)
		return strdup(hint);
	if (asprintf(&out, "%.*s%d%s", (int)(at - hint), hint, port,
		     at + strlen("PORT")) < 0)
		out = NULL;
	return out;
}
