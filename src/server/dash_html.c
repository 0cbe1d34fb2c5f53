/*
 * Writing the dashboard's HTML: text escaped for HTML (and repaired: a
 * build's output may hold anything), times and durations, and the frame
 * every page shares: the title bar, the project's tabs in the TUI's order,
 * and a status line saying who is looking.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistr.h>

#include "dash.h"

/* Bytes of an ANSI escape sequence (ESC '[' params final byte) at s, or
 * of a lone ESC; terminal colours mean nothing on a page. */
static size_t escape_len(const char *s, size_t n)
{
	size_t i = 2;

	if (n < 2 || s[1] != '[')
		return 1;
	while (i < n && (unsigned char)s[i] >= 0x20 &&
	       (unsigned char)s[i] <= 0x3f)
		i++;
	return i < n ? i + 1 : n;
}

void dash_text(struct srv_text *h, const char *s, size_t n)
{
	size_t i = 0, run = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		const char *entity = c == '&'	? "&amp;"
				     : c == '<' ? "&lt;"
				     : c == '>' ? "&gt;"
				     : c == '"' ? "&quot;"
				     : c == '\'' ? "&#39;"
						 : NULL;
		ucs4_t cp;
		int len;

		if (entity || c < 0x20 || c == 0x7f || c >= 0x80) {
			srv_text_put(h, s + run, i - run);
			if (entity) {
				srv_text_puts(h, entity);
				i++;
			} else if (c == 0x1b) {
				i += escape_len(s + i, n - i);
			} else if (c == '\n' || c == '\t') {
				srv_text_put(h, s + i, 1);
				i++;
			} else if (c < 0x20 || c == 0x7f) {
				i++;
			} else if ((len = u8_mbtouc(&cp, (const uint8_t *)s + i,
						    n - i)) > 0 &&
				   cp != 0xfffd) {
				srv_text_put(h, s + i, (size_t)len);
				i += (size_t)len;
			} else {
				srv_text_puts(h, "\xef\xbf\xbd");
				i += len > 0 ? (size_t)len : 1;
			}
			run = i;
			continue;
		}
		i++;
	}
	srv_text_put(h, s + run, i - run);
}

void dash_esc(struct srv_text *h, const char *s)
{
	if (s)
		dash_text(h, s, strlen(s));
}

void dash_time(struct srv_text *h, int64_t us)
{
	time_t t = (time_t)(us / 1000000);
	char out[32];
	struct tm tm;

	if (us <= 0 || gmtime_r(&t, &tm) == NULL)
		return;
	strftime(out, sizeof(out), "%Y-%m-%d %H:%M:%S UTC", &tm);
	srv_text_puts(h, out);
}

void dash_duration(struct srv_text *h, int64_t seconds)
{
	if (seconds < 0)
		return;
	if (seconds < 60)
		srv_text_printf(h, "%lld s", (long long)seconds);
	else
		srv_text_printf(h, "%lld min %lld s", (long long)(seconds / 60),
				(long long)(seconds % 60));
}

void dash_themed(const struct dash_frame *f, char *url, size_t cap)
{
	size_t n = strlen(url);

	if (f->theme && strcmp(f->theme, "default") != 0 && n < cap)
		snprintf(url + n, cap - n, "%ctheme=%s",
			 strchr(url, '?') ? '&' : '?', f->theme);
}

static void tab(struct srv_text *h, const struct dash_frame *f,
		const char *name, const char *label, const char *url)
{
	srv_text_puts(h, "<a href=\"");
	dash_esc(h, url);
	srv_text_printf(
		h, "\"%s>%s</a>",
		f->tab && strcmp(f->tab, name) == 0 ? " class=\"active\"" : "",
		label);
}

/* A project's tabs, in the TUI's order: the name a page's frame says,
 * the label, the path below /projects/<slug>/. */
static const struct {
	const char *name, *label, *path;
} tabs[] = {
	{ "overview", "Overview", "" },
	{ "builds", "Builds", "builds/" },
	{ "versions", "Versions", "versions/" },
	{ "addons", "Addons", "addons/" },
};

void dash_page_begin(struct srv_text *h, const struct dash_frame *f)
{
	char url[600];
	size_t i;

	srv_text_puts(h, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
			 "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
			 "content=\"width=device-width, initial-scale=1\">\n"
			 "<title>");
	dash_esc(h, f->title);
	srv_text_puts(h, " \xc2\xb7 Lectern</title>\n"
			 "<link rel=\"stylesheet\" href=\"/_/dashboard.css");
	if (strcmp(f->theme, "default") != 0)
		srv_text_printf(h, "?theme=%s", f->theme);
	srv_text_puts(h, "\">\n</head>\n<body>\n<header class=\"title\">"
			 "<span>Lectern</span>");
	if (f->project_name) {
		snprintf(url, sizeof(url), "/projects/%s/", f->project_slug);
		dash_themed(f, url, sizeof(url));
		srv_text_puts(h, "<a href=\"");
		dash_esc(h, url);
		srv_text_puts(h, "\">");
		dash_esc(h, f->project_name);
		srv_text_puts(h, "</a>");
	}
	srv_text_puts(h, "</header>\n");
	if (f->project_slug) {
		srv_text_puts(h, "<nav class=\"tabs\">");
		for (i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++) {
			snprintf(url, sizeof(url), "/projects/%s/%s",
				 f->project_slug, tabs[i].path);
			dash_themed(f, url, sizeof(url));
			tab(h, f, tabs[i].name, tabs[i].label, url);
		}
		if (f->docs_url)
			tab(h, f, "docs", "Docs", f->docs_url);
		srv_text_puts(h, "</nav>\n");
	}
	srv_text_puts(h, "<main>\n<h1>");
	dash_esc(h, f->title);
	srv_text_puts(h, "</h1>\n");
}

void dash_login_link(struct srv_text *h, const char *path, const char *text)
{
	srv_text_puts(h, "<a href=\"/_/login/?next=");
	srv_text_query_value(h, path ? path : "/");
	srv_text_puts(h, "\">");
	srv_text_puts(h, text);
	srv_text_puts(h, "</a>");
}

void dash_page_end(struct srv_text *h, const struct dash_frame *f)
{
	srv_text_puts(h, "</main>\n<footer class=\"status\">");
	if (f->user) {
		srv_text_puts(h, "<span>");
		dash_esc(h, f->user);
		srv_text_puts(h, "</span><a href=\"/_/logout/?next=");
		srv_text_query_value(h, f->path ? f->path : "/");
		srv_text_puts(h, "\">Log out</a>");
	} else {
		srv_text_puts(h, "<span class=\"dim\">anonymous</span>");
		dash_login_link(h, f->path, "Log in");
	}
	if (!f->form)
		srv_text_puts(h, "<span class=\"dim\">read-only</span>");
	srv_text_puts(h, "</footer>\n</body></html>\n");
}
