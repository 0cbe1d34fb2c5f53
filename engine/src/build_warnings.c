/*
 * A generator's warnings, read from its output as it streams
 * (build_warnings.h): Sphinx's "path:line: WARNING: message" (and ERROR,
 * CRITICAL, docutils' SEVERE; without a path or a line; followed by the
 * lines it quotes; stuck behind a status line written without its newline;
 * the "Extension error:" kind of ending), MkDocs' "WARNING -  message" with
 * the page it names, and the Markdown builder's own messages. Each becomes
 * a record whose file is relative to the repository.
 *
 * Sphinx's status lines are followed too (a lec__sphinx_trace): which
 * phase of its run each warning came in, and which documents it read and
 * wrote, for carrying over the warnings of the others (build_carry.c).
 *
 * The output is the project's: anything may come, of any length. Lines
 * are looked at up to LEC__WARN_LINE_MAX bytes, a record takes at most
 * LEC__WARN_FOLLOW_LINES more, and the warning set caps the rest.
 */
#include <string.h>
#include <strings.h>

#include "build_warnings.h"
#include "files.h"
#include "job.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Paths ------------------------------------------------------------------- */

char *lec__warn_relative(const char *root, const char *base, const char *path,
			 size_t n)
{
	struct lec__buf b = LEC__BUF_INIT;
	size_t r = root ? strlen(root) : 0;
	int inside = 1;

	if (n > 0 && path[0] == '/') {
		if (r > 0 && n > r && strncmp(path, root, r) == 0 &&
		    path[r] == '/')
			inside = lec__path_push(&b, path + r + 1, n - r - 1);
		else
			inside = 0;
	} else {
		inside = lec__path_push(&b, base ? base : "",
				       base ? strlen(base) : 0) &&
			 lec__path_push(&b, path, n);
	}
	if (!inside) {
		lec__buf_dispose(&b);
		return lec__strndup(path, n);
	}
	if (b.ptr == NULL)
		lec__buf_puts(&b, "");
	else
		b.ptr[b.len] = '\0';
	return lec__buf_take(&b);
}

/* Records ------------------------------------------------------------------ */

static void record_close(struct lec__warn_parser *p)
{
	size_t at = p->set->len;

	if (!p->open)
		return;
	lec_warning_set_add(p->set, p->kind, p->file, p->lineno,
			    p->message.ptr && !p->message.oom ? p->message.ptr
							       : "");
	if (p->trace && p->set->len > at)
		p->set->items[at].phase = p->phase;
	lec__free(p->file);
	p->file = NULL;
	lec__buf_dispose(&p->message);
	p->open = 0;
	p->fatal = 0;
	p->follow = 0;
	p->blank = 0;
}

/* Start a record; file owned (NULL: none). */
static void record_open(struct lec__warn_parser *p, enum lec_warning_kind kind,
			char *file, unsigned lineno, const char *text,
			size_t n)
{
	record_close(p);
	p->open = 1;
	p->phase = p->trace ? p->trace->phase : LEC__PHASE_NONE;
	p->kind = kind;
	p->file = file;
	p->lineno = lineno;
	lec__buf_putn(&p->message, text, n);
}

/* A line that follows the open record. Blank lines count only when text
 * follows them. */
static void record_follow(struct lec__warn_parser *p, const char *line,
			  size_t n)
{
	if (n == 0) {
		p->blank++;
		return;
	}
	if (p->follow >= LEC__WARN_FOLLOW_LINES)
		return;
	for (; p->blank > 0; p->blank--)
		lec__buf_putn(&p->message, "\n", 1);
	lec__buf_putn(&p->message, "\n", 1);
	lec__buf_putn(&p->message, line, n);
	p->follow++;
}

/* Sphinx ------------------------------------------------------------------- */

static const struct {
	const char *token;
	enum lec_warning_kind kind;
} sphinx_levels[] = {
	{ "WARNING: ", LEC_WARNING_WARNING },
	{ "ERROR: ", LEC_WARNING_ERROR },
	{ "CRITICAL: ", LEC_WARNING_CRITICAL },
	{ "SEVERE: ", LEC_WARNING_CRITICAL },
};

/* How Sphinx ends a build it cannot finish: the message follows, up to a
 * blank line. Configuration errors are about conf.py. */
static const struct {
	const char *prefix;
	int about_config;
} sphinx_fatal[] = {
	{ "Sphinx error:", 0 },
	{ "Extension error:", 0 },
	{ "Configuration error:", 1 },
	{ "Theme error:", 0 },
};

/* Lines that are Sphinx's own progress, never the rest of a warning. */
static const char *const sphinx_status[] = {
	"build succeeded",  "build finished", "The HTML pages are in",
	"The text files are in", "Running Sphinx", "building [",
	"updating environment", "[",	      "Warning, treated as error",
	"making output directory", "loading ",
};

/* "word word... " at the start: a status line Sphinx wrote, perhaps with
 * a warning after it on the same line (it writes "checking
 * consistency... " without a newline). */
static size_t status_prefix(const char *line, size_t n)
{
	const char *dots;
	size_t i;

	if (n == 0 || line[0] < 'a' || line[0] > 'z')
		return 0;
	if ((dots = memmem(line, n, "... ", 4)) == NULL)
		return n >= 3 && memcmp(line + n - 3, "...", 3) == 0 ? n : 0;
	for (i = 0; line + i < dots; i++)
		if (line[i] == ':' || line[i] == '/')
			return 0;
	return (size_t)(dots - line) + 4;
}

/* The end of a status line a warning interrupted ("done", "none found",
 * "genindex py-modindex done"): lowercase words only, ending in one of
 * these. */
static const char *const status_ends[] = { "done", "failed", "none found",
					   "not yet created" };

static int status_end(const char *line, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((line[i] >= 'a' && line[i] <= 'z') || line[i] == ' ' ||
		      line[i] == '-' || line[i] == '_'))
			return 0;
	for (i = 0; i < COUNT(status_ends); i++) {
		size_t m = strlen(status_ends[i]);

		if (n >= m && memcmp(line + n - m, status_ends[i], m) == 0 &&
		    (n == m || line[n - m - 1] == ' '))
			return 1;
	}
	return 0;
}

static int sphinx_stops(const char *line, size_t n)
{
	size_t i;

	if (status_prefix(line, n) || status_end(line, n))
		return 1;
	for (i = 0; i < COUNT(sphinx_status); i++)
		if (starts_with(line, sphinx_status[i]))
			return 1;
	return 0;
}

/* The first level token of the line that starts it or follows ": ";
 * its offset, or -1. */
static long find_level(const char *line, size_t n, size_t *level)
{
	long best = -1;
	size_t i;

	for (i = 0; i < COUNT(sphinx_levels); i++) {
		const char *tok = sphinx_levels[i].token;
		size_t tn = strlen(tok), from = 0;
		const char *at;

		while (from < n && (at = memmem(line + from, n - from, tok,
						tn)) != NULL) {
			long pos = at - line;

			if (pos == 0 || (pos >= 2 && at[-2] == ':' &&
					 at[-1] == ' ')) {
				if (best < 0 || pos < best) {
					best = pos;
					*level = i;
				}
				break;
			}
			from = (size_t)pos + 1;
		}
	}
	return best;
}

/* A location "path", "path:", "path:12", "path:docstring of x:3" or
 * "<unknown>:3" into a record's file and line; what does not fit the
 * file (the docstring) is put before the message. */
static void sphinx_location(struct lec__warn_parser *p, const char *loc,
			    size_t n, char **file, unsigned *lineno,
			    struct lec__buf *prefix)
{
	const char *doc;
	size_t end = n, digits = 0;

	*file = NULL;
	*lineno = 0;
	while (end > 0 && is_digit(loc[end - 1]) && digits < 9) {
		end--;
		digits++;
	}
	if (digits && end > 0 && loc[end - 1] == ':') {
		unsigned v = 0;
		size_t i;

		for (i = end; i < n; i++)
			v = v * 10 + (unsigned)(loc[i] - '0');
		*lineno = v;
		n = end - 1;
	} else if (n > 0 && loc[n - 1] == ':') {
		n--;
	}
	if ((doc = memmem(loc, n, ":docstring of ", 14)) != NULL) {
		lec__buf_putn(prefix, doc + 1, (size_t)(loc + n - doc - 1));
		if (*lineno)
			lec__buf_printf(prefix, ", line %u", *lineno);
		lec__buf_puts(prefix, ": ");
		*lineno = 0;
		n = (size_t)(doc - loc);
	}
	if (n == 9 && memcmp(loc, "<unknown>", 9) == 0)
		n = 0;
	if (n > 0)
		*file = lec__warn_relative(p->root, p->base, loc, n);
}

/* A diagnostic at offset pos of the line, of level lv. */
static void sphinx_diagnostic(struct lec__warn_parser *p, const char *line,
			      size_t n, size_t pos, size_t lv)
{
	struct lec__buf text = LEC__BUF_INIT;
	const char *loc = line;
	size_t loc_len = pos >= 2 ? pos - 2 : 0, skip;
	const char *msg = line + pos + strlen(sphinx_levels[lv].token);
	char *file = NULL;
	unsigned lineno = 0;

	/* A status line before it: "checking consistency... /x.rst". */
	if (loc_len && (skip = status_prefix(loc, loc_len)) > 0 &&
	    skip < loc_len) {
		loc += skip;
		loc_len -= skip;
	}
	if (pos > 0)
		sphinx_location(p, loc, loc_len, &file, &lineno, &text);
	lec__buf_putn(&text, msg, (size_t)(line + n - msg));
	record_open(p, sphinx_levels[lv].kind, file, lineno,
		    text.ptr ? text.ptr : "", text.len);
	lec__buf_dispose(&text);
}

/* After "Warning, treated as error:" Sphinx 5 writes "path:line:msg". */
static void sphinx_treated(struct lec__warn_parser *p, const char *line,
			   size_t n)
{
	const char *c = memchr(line, ':', n);
	size_t i;

	while (c) {
		for (i = (size_t)(c - line) + 1; i < n && is_digit(line[i]); i++)
			;
		if (i > (size_t)(c - line) + 1 && i < n && line[i] == ':') {
			char *file = lec__warn_relative(p->root, p->base, line,
							(size_t)(c - line));
			unsigned v = 0;
			size_t k;

			for (k = (size_t)(c - line) + 1; k < i && k < (size_t)(c - line) + 10; k++)
				v = v * 10 + (unsigned)(line[k] - '0');
			record_open(p, LEC_WARNING_ERROR, file, v, line + i + 1,
				    n - i - 1);
			record_close(p);
			return;
		}
		c = memchr(c + 1, ':', n - (size_t)(c + 1 - line));
	}
	record_open(p, LEC_WARNING_ERROR, NULL, 0, line, n);
	record_close(p);
}

/* A Python traceback's first line ("Traceback (most recent call last):",
 * or Sphinx's own crash report) after an open record is the record's only
 * when its message announces it (autodoc's "... the following exception
 * was raised:") with no blank line between; any other is another
 * program's output or a crash, never the rest of the warning. */
static int foreign_traceback(const struct lec__warn_parser *p,
			     const char *line)
{
	const struct lec__buf *m = &p->message;

	if (starts_with(line, "Exception occurred:"))
		return 1;
	if (!starts_with(line, "Traceback (most recent call last):"))
		return 0;
	return p->blank > 0 || p->follow > 0 || m->len == 0 ||
	       m->ptr[m->len - 1] != ':';
}

/* The status lines that start a phase of Sphinx's run (its English
 * console); those ending in '[' are progress lines naming a document
 * ("reading sources... [ 50%] usage/install"). */
static const struct {
	const char *prefix;
	enum lec__sphinx_phase phase;
} sphinx_phase_lines[] = {
	{ "updating environment: ", LEC__PHASE_READ },
	{ "reading sources... [", LEC__PHASE_READ },
	{ "looking for now-outdated files...", LEC__PHASE_AFTER_READ },
	{ "pickling environment...", LEC__PHASE_AFTER_READ },
	{ "checking consistency...", LEC__PHASE_CONSISTENCY },
	{ "preparing documents...", LEC__PHASE_PREPARE },
	{ "writing output... [", LEC__PHASE_WRITE },
};

/* The document a progress line names after its "[ NN%] ". */
static void trace_document(struct lec__names *names, const char *line,
			   size_t n)
{
	const char *pct = memmem(line, n, "%] ", 3);
	char *doc;

	if (pct == NULL || (size_t)(pct + 3 - line) >= n)
		return;
	if ((doc = lec__strndup(pct + 3, n - (size_t)(pct + 3 - line))) != NULL)
		lec__names_add(names, doc);
	lec__free(doc);
}

/* The number before word in line ("3 added"), 0 when none. */
static unsigned long count_before(const char *line, size_t n, const char *word)
{
	const char *at = memmem(line, n, word, strlen(word));
	unsigned long v = 0, scale = 1;

	if (at == NULL || at == line || at[-1] != ' ')
		return 0;
	for (at -= 2; at >= line && is_digit(*at) && scale < 1000000000UL;
	     at--, scale *= 10)
		v += (unsigned long)(*at - '0') * scale;
	return v;
}

/* Follow the run's phases on one of its lines: a phase's status line,
 * a document read or written, and after writing, any status line (the
 * indices, the static files, the search index) is its finish. */
static void trace_line(struct lec__sphinx_trace *t, const char *line,
		       size_t n)
{
	size_t i;

	for (i = 0; i < COUNT(sphinx_phase_lines); i++) {
		const char *prefix = sphinx_phase_lines[i].prefix;
		size_t k = strlen(prefix);

		if (n < k || memcmp(line, prefix, k) != 0)
			continue;
		t->phase = sphinx_phase_lines[i].phase;
		t->ran |= 1u << t->phase;
		if (i == 0 && (count_before(line, n, "added,") ||
			       count_before(line, n, "removed")))
			t->moved = 1;
		if (prefix[k - 1] == '[')
			trace_document(t->phase == LEC__PHASE_READ ? &t->read
								   : &t->written,
				       line, n);
		return;
	}
	if ((t->phase == LEC__PHASE_WRITE || t->phase == LEC__PHASE_FINISH) &&
	    status_prefix(line, n) > 0) {
		t->phase = LEC__PHASE_FINISH;
		t->ran |= 1u << t->phase;
	}
}

static void sphinx_line(struct lec__warn_parser *p, const char *line,
			size_t n)
{
	if (p->trace) {
		if (p->trace->ran == 0) {
			p->trace->phase = LEC__PHASE_INIT;
			p->trace->ran = 1u << LEC__PHASE_INIT;
		}
		trace_line(p->trace, line, n);
	}
	size_t lv = 0, i;
	long pos;

	if (p->treated) {
		p->treated = 0;
		sphinx_treated(p, line, n);
		return;
	}
	if ((pos = find_level(line, n, &lv)) >= 0) {
		sphinx_diagnostic(p, line, n, (size_t)pos, lv);
		return;
	}
	if (starts_with(line, "Warning, treated as error:")) {
		record_close(p);
		p->treated = 1;
		return;
	}
	for (i = 0; i < COUNT(sphinx_fatal); i++) {
		size_t k = strlen(sphinx_fatal[i].prefix);

		if (!starts_with(line, sphinx_fatal[i].prefix))
			continue;
		while (k < n && line[k] == ' ')
			k++;
		record_open(p, LEC_WARNING_ERROR,
			    sphinx_fatal[i].about_config && p->config
				    ? lec__strdup(p->config)
				    : NULL,
			    0, line + k, n - k);
		p->fatal = 1;
		return;
	}
	if (!p->open)
		return;
	if (sphinx_stops(line, n) || foreign_traceback(p, line) ||
	    (p->fatal && n == 0 && p->message.len))
		record_close(p);
	else if (p->fatal && p->message.len == 0 && n)
		lec__buf_putn(&p->message, line, n);
	else
		record_follow(p, line, n);
}

/* MkDocs ------------------------------------------------------------------ */

static const struct {
	const char *name;
	enum lec_warning_kind kind;
	int record;
} mkdocs_levels[] = {
	{ "WARNING", LEC_WARNING_WARNING, 1 },
	{ "ERROR", LEC_WARNING_ERROR, 1 },
	{ "CRITICAL", LEC_WARNING_CRITICAL, 1 },
	{ "INFO", LEC_WARNING_WARNING, 0 },
	{ "DEBUG", LEC_WARNING_WARNING, 0 },
};

/* Phrases of MkDocs' messages about its configuration file. */
static const char *const mkdocs_config_phrases[] = {
	"Config value", "'nav' configuration", "nav configuration",
};

/* The file a MkDocs message names: "Doc file 'x.md'", "Documentation file
 * 'x.md'" (relative to docs_dir), or the configuration. Owned or NULL. */
static char *mkdocs_file(const struct lec__warn_parser *p, const char *msg,
			 size_t n)
{
	const char *at = memmem(msg, n, "file '", 6), *end;
	size_t i;

	if (at && (end = memchr(at + 6, '\'', n - (size_t)(at + 6 - msg))))
		return lec__warn_relative(p->root, p->base, at + 6,
					  (size_t)(end - at - 6));
	for (i = 0; p->config && i < COUNT(mkdocs_config_phrases); i++)
		if (memmem(msg, n, mkdocs_config_phrases[i],
			   strlen(mkdocs_config_phrases[i])))
			return lec__strdup(p->config);
	return NULL;
}

static void mkdocs_line(struct lec__warn_parser *p, const char *line, size_t n)
{
	size_t i, k;

	for (i = 0; i < COUNT(mkdocs_levels); i++) {
		k = strlen(mkdocs_levels[i].name);
		if (!starts_with(line, mkdocs_levels[i].name) ||
		    (k < n && line[k] != ' ' && line[k] != '-'))
			continue;
		while (k < n && line[k] == ' ')
			k++;
		if (k >= n || line[k] != '-')
			continue;
		k++;
		while (k < n && line[k] == ' ')
			k++;
		record_close(p);
		if (mkdocs_levels[i].record)
			record_open(p, mkdocs_levels[i].kind,
				    mkdocs_file(p, line + k, n - k), 0,
				    line + k, n - k);
		return;
	}
	/* click's ending: "Error: Config file 'mkdocs.yml' does not
	 * exist." */
	if (starts_with(line, "Error: ")) {
		record_open(p, LEC_WARNING_ERROR, mkdocs_file(p, line + 7, n - 7),
			    0, line + 7, n - 7);
		record_close(p);
		return;
	}
	if (p->open && n > 0 && (line[0] == ' ' || line[0] == '\t'))
		record_follow(p, line, n);
	else if (n > 0)
		record_close(p);
}

/* Streaming ------------------------------------------------------------------ */

void lec__warn_parser_init(struct lec__warn_parser *p,
			   enum lec__warn_format format,
			   struct lec_warning_set *set, const char *root,
			   const char *base, const char *config)
{
	memset(p, 0, sizeof(*p));
	p->format = format;
	p->set = set;
	p->root = root;
	p->base = lec__strdup(base ? base : "");
	p->config = config ? lec__strdup(config) : NULL;
}

static void end_line(struct lec__warn_parser *p)
{
	char *line = p->line, *cr;
	size_t n = p->len;

	line[n] = '\0';
	/* A terminal's progress redraws the line: what is after the last
	 * carriage return is what shows. */
	while (n > 0 && line[n - 1] == '\r')
		line[--n] = '\0';
	if ((cr = memrchr(line, '\r', n)) != NULL) {
		n -= (size_t)(cr + 1 - line);
		line = cr + 1;
	}
	n = lec__strip_ansi(line, n);
	line[n] = '\0';
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	if (p->format == LEC__WARN_SPHINX)
		sphinx_line(p, line, n);
	else
		mkdocs_line(p, line, n);
	p->len = 0;
	p->overlong = 0;
}

void lec__warn_parser_feed(struct lec__warn_parser *p, const char *data,
			   size_t len)
{
	while (len > 0) {
		const char *nl = memchr(data, '\n', len);
		size_t take = nl ? (size_t)(nl - data) : len;
		size_t room = LEC__WARN_LINE_MAX - p->len;

		if (take > room) {
			p->overlong = 1;
			memcpy(p->line + p->len, data, room);
			p->len += room;
		} else {
			memcpy(p->line + p->len, data, take);
			p->len += take;
		}
		if (nl == NULL)
			return;
		end_line(p);
		data = nl + 1;
		len -= take + 1;
	}
}

void lec__warn_parser_end(struct lec__warn_parser *p)
{
	if (p->len > 0)
		end_line(p);
	record_close(p);
}

void lec__warn_parser_dispose(struct lec__warn_parser *p)
{
	if (p == NULL)
		return;
	lec__free(p->file);
	lec__free(p->base);
	lec__free(p->config);
	lec__buf_dispose(&p->message);
	p->file = p->base = p->config = NULL;
	p->open = 0;
}

/* The Markdown builder --------------------------------------------------- */

/* Its messages about a source file: "<prefix><file>: reason" or
 * "<file><suffix>". Others (about its own state) are not the writer's. */
static const struct {
	const char *prefix;
	const char *until; /* what ends the file name */
} markdown_forms[] = {
	{ "skipping ", ": " },
	{ "cannot read ", ": " },
	{ "", " is too large to render" },
};

void lec__warnings_markdown(struct lec_warning_set *set, const char *base,
			    const char *message)
{
	size_t i, n = strlen(message);

	for (i = 0; i < COUNT(markdown_forms); i++) {
		size_t k = strlen(markdown_forms[i].prefix);
		const char *end;
		char *file;

		if (!starts_with(message, markdown_forms[i].prefix) ||
		    (end = memmem(message + k, n - k, markdown_forms[i].until,
				  strlen(markdown_forms[i].until))) == NULL)
			continue;
		file = lec__warn_relative(NULL, base, message + k,
					  (size_t)(end - message - k));
		lec_warning_set_add(set, LEC_WARNING_WARNING, file, 0, message);
		lec__free(file);
		return;
	}
}
