/*
 * The CLI's config file and its contexts (see context.h and docs/cli.md for
 * the format). The file is small and INI-like:
 *
 *     current-context = prod
 *     local-workers = 2
 *     [context prod]
 *     url = https://readthedocs.org
 *     token-env = RTD_TOKEN
 *
 * An ssh context names `ssh = [USER@]HOST[:PORT]` instead of a url and a
 * token (ssh.c reaches the remote engine through OpenSSH).
 *
 * '#' or ';' starts a comment (at the start of a line, or after a space).
 * Parsing stops at the first bad line and names the file and the line, since
 * a half-read config could send a command to the wrong instance. The
 * `lectern context` commands rewrite the whole file (comments are not kept).
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "context.h"
#include "table.h"

/* Longer lines are not a hand-written config. */
#define CONFIG_LINE_MAX 4096
/* Context names are short words typed on the command line. */
#define CONTEXT_NAME_MAX 64
/* An API token is 40 hex characters; the hosted service's are similar. */
#define TOKEN_MAX 512

/* ---- Small string helpers -------------------------------------------- */

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* Cut a trailing comment: a '#' or ';' after a space or tab. */
static void strip_comment(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if ((*p == '#' || *p == ';') && p > s &&
		    (p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			break;
		}
}

static int valid_name(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > CONTEXT_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("._-", name[i]))
			return 0;
	return 1;
}

/* An http(s) URL with a host, as the client can use it; NULL if not. The
 * copy has no trailing slash, so paths can be appended. */
static char *normalize_url(const char *url)
{
	const char *host;
	char *copy;
	size_t n;

	if (strncmp(url, "http://", 7) == 0)
		host = url + 7;
	else if (strncmp(url, "https://", 8) == 0)
		host = url + 8;
	else
		return NULL;
	if (*host == '\0' || *host == '/' || strpbrk(url, " \t?#"))
		return NULL;
	if ((copy = strdup(url)) == NULL)
		return NULL;
	n = strlen(copy);
	while (n > 0 && copy[n - 1] == '/')
		copy[--n] = '\0';
	return copy;
}

static int parse_bool(const char *v, int *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "0")) {
		*out = 0;
		return 0;
	}
	return -1;
}

/* "~/x" is relative to $HOME; anything else is kept. */
static char *expand_home(const char *path)
{
	const char *home = getenv("HOME");
	char *out;
	size_t n;

	if (strncmp(path, "~/", 2) != 0 || home == NULL)
		return strdup(path);
	n = strlen(home) + strlen(path);
	if ((out = malloc(n)) != NULL)
		snprintf(out, n, "%s%s", home, path + 1);
	return out;
}

/* ---- Loading and saving ------------------------------------------------ */

static char *config_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *path;
	size_t n;

	if (xdg && *xdg == '/') {
		n = strlen(xdg) + sizeof("/lectern/config");
		if ((path = malloc(n)))
			snprintf(path, n, "%s/lectern/config", xdg);
		return path;
	}
	if (home == NULL || *home == '\0')
		return NULL;
	n = strlen(home) + sizeof("/.config/lectern/config");
	if ((path = malloc(n)))
		snprintf(path, n, "%s/.config/lectern/config", home);
	return path;
}

/* The string keys of a [context NAME] section, readonly aside: each one's
 * field of struct cli_context and how a value is read into it, in the
 * order the file is written. Reading, writing, `context add` and
 * disposing all go by this table. */
struct context_field {
	const char *key;
	size_t offset; /* of its char * in struct cli_context */
	/* The field's new value from the text, owned by the caller; NULL with
	 * *why saying what is wrong. */
	char *(*read)(const char *value, const char **why);
	const char *if_empty; /* the refusal of "", or NULL: "" is read */
};

static char *key_copy(const char *value, const char **why)
{
	char *copy = strdup(value);

	if (copy == NULL)
		*why = "out of memory";
	return copy;
}

static char *key_url(const char *value, const char **why)
{
	char *url = normalize_url(value);

	if (url == NULL)
		*why = "must be http:// or https:// and a host";
	return url;
}

static char *key_docs_domain(const char *value, const char **why)
{
	if (*value == '\0' || strpbrk(value, "/ \t")) {
		*why = "must be a host name (and port)";
		return NULL;
	}
	return key_copy(value, why);
}

static char *key_token_file(const char *value, const char **why)
{
	char *path = expand_home(value);

	if (path == NULL)
		*why = "out of memory";
	return path;
}

/* Never an option to ssh: the host goes after "--" anyway. */
static char *key_ssh(const char *value, const char **why)
{
	if (*value == '\0' || *value == '-' || *value == '@' ||
	    strpbrk(value, " \t'\"\\;&|$`/")) {
		*why = "must be [USER@]HOST[:PORT]";
		return NULL;
	}
	return key_copy(value, why);
}

#define FIELD(key, member, read, if_empty) \
	{ key, offsetof(struct cli_context, member), read, if_empty }
static const struct context_field context_fields[] = {
	FIELD("url", url, key_url, NULL),
	FIELD("ssh", ssh, key_ssh, NULL),
	FIELD("remote-command", remote_command, key_copy,
	      "needs the path of lectern on the remote machine"),
	FIELD("ssh-options", ssh_options, key_copy, NULL),
	FIELD("docs-domain", docs_domain, key_docs_domain, NULL),
	FIELD("token-env", token_env, key_copy, "needs a variable name"),
	FIELD("token-file", token_file, key_token_file, NULL),
};
#undef FIELD
#define CONTEXT_FIELDS (sizeof(context_fields) / sizeof(context_fields[0]))

static char **field_of(struct cli_context *c, const struct context_field *f)
{
	return (char **)((char *)c + f->offset);
}

static const char *field_value(const struct cli_context *c,
			       const struct context_field *f)
{
	return *(char *const *)((const char *)c + f->offset);
}

static void context_dispose(struct cli_context *c)
{
	size_t i;

	free(c->name);
	for (i = 0; i < CONTEXT_FIELDS; i++)
		free(*field_of(c, &context_fields[i]));
}

void cli_config_dispose(struct cli_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->len; i++)
		context_dispose(&cfg->contexts[i]);
	free(cfg->contexts);
	free(cfg->current);
	free(cfg->path);
	memset(cfg, 0, sizeof(*cfg));
}

struct cli_context *cli_config_find(const struct cli_config *cfg,
				    const char *name)
{
	size_t i;

	for (i = 0; i < cfg->len; i++)
		if (strcmp(cfg->contexts[i].name, name) == 0)
			return &cfg->contexts[i];
	return NULL;
}

static struct cli_context *config_append(struct cli_config *cfg)
{
	struct cli_context *grown;

	grown = realloc(cfg->contexts, (cfg->len + 1) * sizeof(*grown));
	if (grown == NULL)
		return NULL;
	cfg->contexts = grown;
	memset(&grown[cfg->len], 0, sizeof(*grown));
	return &grown[cfg->len++];
}

/* Replace *field with a copy of value. */
static int set_string(char **field, const char *value)
{
	char *copy = strdup(value);

	if (copy == NULL)
		return -1;
	free(*field);
	*field = copy;
	return 0;
}

/* One "key = value" line of a [context NAME] section; NULL or the error. */
static const char *context_key(struct cli_context *c, const char *key,
			       const char *value)
{
	const char *why = NULL;
	char *v, **field;
	size_t i;

	if (strcmp(key, "readonly") == 0)
		return parse_bool(value, &c->readonly) < 0 ? "is true or false"
							   : NULL;
	for (i = 0; i < CONTEXT_FIELDS; i++) {
		if (strcmp(key, context_fields[i].key) != 0)
			continue;
		if (*value == '\0' && context_fields[i].if_empty)
			return context_fields[i].if_empty;
		if ((v = context_fields[i].read(value, &why)) == NULL)
			return why;
		field = field_of(c, &context_fields[i]);
		free(*field);
		*field = v;
		return NULL;
	}
	return "unknown key (url, docs-domain, token-env, token-file, "
	       "readonly, ssh, remote-command, ssh-options)";
}

/* A complete section: what the file must say for the context to work. */
static const char *context_check(const struct cli_context *c)
{
	if (c->ssh) {
		/* The engine's socket is the owner's: no token, and the URL is
		 * the forwarded socket's. */
		if (c->url || c->token_env || c->token_file || c->docs_domain)
			return "has ssh with url, docs-domain or a token (an ssh "
			       "context needs none of them)";
		return NULL;
	}
	if (c->remote_command || c->ssh_options)
		return "has remote-command or ssh-options without ssh";
	if (c->url == NULL)
		return "has no url";
	if (c->token_env && c->token_file)
		return "has both token-env and token-file (choose one)";
	if (c->token_env == NULL && c->token_file == NULL)
		return "has no token-env or token-file";
	return NULL;
}

static int section_header(struct cli_config *cfg, char *line,
			  struct cli_context **cur, const char **err)
{
	char *close = strchr(line, ']');
	char *name;

	if (close == NULL || close[1] != '\0' ||
	    strncmp(line, "[context ", 9) != 0) {
		*err = "expected [context NAME]";
		return -1;
	}
	*close = '\0';
	name = trim(line + 9);
	if (!valid_name(name)) {
		*err = "a context name is letters, digits, '.', '_' or '-'";
		return -1;
	}
	if (strcmp(name, CLI_CONTEXT_LOCAL) == 0) {
		*err = "'local' is the built-in context and cannot be declared";
		return -1;
	}
	if (cli_config_find(cfg, name)) {
		*err = "this context is declared twice";
		return -1;
	}
	if ((*cur = config_append(cfg)) == NULL ||
	    ((*cur)->name = strdup(name)) == NULL) {
		*err = "out of memory";
		return -1;
	}
	return 0;
}

/* Workers a local engine may be given: serve's --workers bounds. */
#define LOCAL_WORKERS_MAX 16

/* "key = value" before the first section: current-context and
 * local-workers. */
static const char *top_key(struct cli_config *cfg, const char *key,
			   const char *value)
{
	char *end;
	long n;

	if (strcmp(key, "local-workers") == 0) {
		n = strtol(value, &end, 10);
		if (*value == '\0' || *end != '\0' || n < 0 ||
		    n > LOCAL_WORKERS_MAX)
			return "local-workers wants 0 to 16 (0: no builds)";
		cfg->local_workers = (int)n;
		return NULL;
	}
	if (strcmp(key, "current-context") != 0)
		return "only current-context and local-workers may come before "
		       "the first [context NAME]";
	if (!valid_name(value))
		return "current-context needs a context name";
	return set_string(&cfg->current, value) < 0 ? "out of memory" : NULL;
}

/* One line of the file; reports what is wrong with it itself. */
static int parse_line(struct cli_config *cfg, char *raw, int lineno,
		      struct cli_context **cur)
{
	char *line = trim(raw), *eq, *key, *value;
	const char *err;

	if (*line == '\0' || *line == '#' || *line == ';')
		return CLI_EXIT_OK;
	strip_comment(line);
	line = trim(line);
	if (*line == '[') {
		/* A section's problem is reported at its header, where the
		 * user has to look. */
		if (*cur && (err = context_check(*cur)) != NULL)
			return cli_fail("%s:%d: context '%s' %s", cfg->path,
					(*cur)->line, (*cur)->name, err);
		if (section_header(cfg, line, cur, &err) < 0)
			return cli_fail("%s:%d: %s", cfg->path, lineno, err);
		(*cur)->line = lineno;
		return CLI_EXIT_OK;
	}
	if ((eq = strchr(line, '=')) == NULL)
		return cli_fail("%s:%d: expected 'key = value'", cfg->path,
				lineno);
	*eq = '\0';
	key = trim(line);
	value = trim(eq + 1);
	if (*cur == NULL) {
		if ((err = top_key(cfg, key, value)) != NULL)
			return cli_fail("%s:%d: %s", cfg->path, lineno, err);
		return CLI_EXIT_OK;
	}
	if ((err = context_key(*cur, key, value)) != NULL)
		return cli_fail("%s:%d: %s: %s", cfg->path, lineno, key, err);
	return CLI_EXIT_OK;
}

static int parse_file(struct cli_config *cfg, FILE *f)
{
	char line[CONFIG_LINE_MAX];
	struct cli_context *cur = NULL;
	const char *err;
	int lineno = 0;

	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f))
			return cli_fail("%s:%d: line too long", cfg->path,
					lineno);
		if (parse_line(cfg, line, lineno, &cur) != CLI_EXIT_OK)
			return CLI_EXIT_FAIL;
	}
	if (cur && (err = context_check(cur)) != NULL)
		return cli_fail("%s:%d: context '%s' %s", cfg->path, cur->line,
				cur->name, err);
	if (cfg->current && strcmp(cfg->current, CLI_CONTEXT_LOCAL) != 0 &&
	    cli_config_find(cfg, cfg->current) == NULL)
		return cli_fail("%s: current-context '%s' is not declared",
				cfg->path, cfg->current);
	return CLI_EXIT_OK;
}

int cli_config_load(struct cli_config *cfg)
{
	FILE *f;
	int status;

	memset(cfg, 0, sizeof(*cfg));
	cfg->local_workers = -1;
	if ((cfg->path = config_path()) == NULL)
		return cli_fail("no config directory: set XDG_CONFIG_HOME or "
				"HOME");
	if ((f = fopen(cfg->path, "r")) == NULL) {
		if (errno == ENOENT)
			return CLI_EXIT_OK;
		return cli_fail("%s: %s", cfg->path, strerror(errno));
	}
	status = parse_file(cfg, f);
	fclose(f);
	return status;
}

static void write_context(FILE *f, const struct cli_context *c)
{
	size_t i;

	fprintf(f, "\n[context %s]\n", c->name);
	for (i = 0; i < CONTEXT_FIELDS; i++)
		if (field_value(c, &context_fields[i]))
			fprintf(f, "%s = %s\n", context_fields[i].key,
				field_value(c, &context_fields[i]));
	if (c->readonly)
		fprintf(f, "readonly = true\n");
}

int cli_config_save(const struct cli_config *cfg)
{
	char *tmp = NULL;
	FILE *f = NULL;
	size_t i, n = strlen(cfg->path) + sizeof(".tmp");
	int fd = -1, status = CLI_EXIT_FAIL;

	if ((tmp = malloc(n)) == NULL)
		return cli_fail("out of memory");
	snprintf(tmp, n, "%s.tmp", cfg->path);
	if (cli_make_dirs(tmp) < 0 ||
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) <
		    0 ||
	    (f = fdopen(fd, "w")) == NULL) {
		cli_fail("cannot write %s: %s", tmp, strerror(errno));
		goto done;
	}
	fd = -1;
	fprintf(f, "# Lectern CLI contexts (see docs/cli.md); "
		   "`lectern context` rewrites this file.\n");
	if (cfg->current)
		fprintf(f, "current-context = %s\n", cfg->current);
	if (cfg->local_workers >= 0)
		fprintf(f, "local-workers = %d\n", cfg->local_workers);
	for (i = 0; i < cfg->len; i++)
		write_context(f, &cfg->contexts[i]);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		cli_fail("cannot write %s: %s", tmp, strerror(errno));
		goto done;
	}
	if (rename(tmp, cfg->path) < 0) {
		cli_fail("cannot replace %s: %s", cfg->path, strerror(errno));
		goto done;
	}
	status = CLI_EXIT_OK;
done:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (status != CLI_EXIT_OK)
		unlink(tmp);
	free(tmp);
	return status;
}

/* ---- Tokens ------------------------------------------------------------ */

/* The token of a token file: owner-only, one line. */
static int read_token_file(const char *ctxname, const char *path,
			   char **token)
{
	char buf[TOKEN_MAX + 2];
	struct stat st;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return cli_fail("context '%s': cannot read token file %s: %s",
				ctxname, path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return cli_fail("context '%s': token file %s is not a regular "
				"file", ctxname, path);
	}
	if (st.st_mode & 077) {
		close(fd);
		return cli_fail("context '%s': token file %s has mode %04o; it "
				"must be 0600 (chmod 600 %s)",
				ctxname, path, (unsigned)(st.st_mode & 07777),
				path);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return cli_fail("context '%s': cannot read token file %s",
				ctxname, path);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (buf[0] == '\0' || strlen(buf) > TOKEN_MAX) {
		memset(buf, 0, sizeof(buf));
		return cli_fail("context '%s': token file %s holds no token",
				ctxname, path);
	}
	*token = strdup(buf);
	memset(buf, 0, sizeof(buf));
	return *token ? CLI_EXIT_OK : cli_fail("out of memory");
}

static int context_token(const struct cli_context *c, char **token)
{
	const char *value;

	if (c->token_file)
		return read_token_file(c->name, c->token_file, token);
	value = getenv(c->token_env);
	if (value == NULL || *value == '\0')
		return cli_fail("context '%s': environment variable %s (its "
				"token) is not set", c->name, c->token_env);
	if (strlen(value) > TOKEN_MAX || strpbrk(value, "\r\n"))
		return cli_fail("context '%s': environment variable %s does "
				"not hold a token", c->name, c->token_env);
	*token = strdup(value);
	return *token ? CLI_EXIT_OK : cli_fail("out of memory");
}

/* ---- Connecting ---------------------------------------------------------- */

void cli_conn_dispose(struct cli_conn *conn)
{
	if (conn->token)
		memset(conn->token, 0, strlen(conn->token));
	free(conn->token);
	free(conn->name);
	free(conn->base_url);
	free(conn->docs_url);
	free(conn->unix_socket);
	free(conn->remote_socket);
	free(conn->link_name);
	free(conn->forward_hint);
	memset(conn, 0, sizeof(*conn));
}

/* The docs base URL: the docs domain with the API URL's scheme; NULL when
 * the context names none. */
static int docs_url_of(const struct cli_context *c, char **out)
{
	const char *scheme = strncmp(c->url, "https://", 8) == 0 ? "https"
								 : "http";
	size_t n;

	*out = NULL;
	if (c->docs_domain == NULL)
		return 0;
	n = strlen(scheme) + strlen(c->docs_domain) + sizeof("://");
	if ((*out = malloc(n)) == NULL)
		return -1;
	snprintf(*out, n, "%s://%s", scheme, c->docs_domain);
	return 0;
}

static int connect_remote(const struct cli_context *c, struct cli_conn *conn)
{
	int status;

	if ((status = context_token(c, &conn->token)) != CLI_EXIT_OK)
		return status;
	conn->base_url = strdup(c->url);
	if (conn->base_url == NULL || docs_url_of(c, &conn->docs_url) < 0)
		return cli_fail("out of memory");
	return CLI_EXIT_OK;
}

const char *cli_context_chosen(const struct cli_ctx *ctx,
			       const struct cli_config *cfg)
{
	const char *env = getenv("LECTERN_CONTEXT");

	if (ctx->context_opt && *ctx->context_opt)
		return ctx->context_opt;
	if (env && *env)
		return env;
	return cfg->current ? cfg->current : CLI_CONTEXT_LOCAL;
}

int cli_connect(struct cli_ctx *ctx, struct cli_conn *conn)
{
	struct cli_config cfg;
	const struct cli_context *c;
	const char *name;
	int status;

	memset(conn, 0, sizeof(*conn));
	if ((status = cli_config_load(&cfg)) != CLI_EXIT_OK)
		goto done;
	name = cli_context_chosen(ctx, &cfg);
	if ((conn->name = strdup(name)) == NULL) {
		status = cli_fail("out of memory");
		goto done;
	}
	if (strcmp(name, CLI_CONTEXT_LOCAL) == 0) {
		conn->is_local = 1;
		/* Its docs are at <slug>.localhost:<port>, the client's
		 * default for a loopback API. */
		status = cli_local_engine(ctx, cfg.local_workers,
					  &conn->base_url, &conn->token);
		goto done;
	}
	if ((c = cli_config_find(&cfg, name)) == NULL) {
		status = cli_fail("no context '%s' (see 'lectern context list')",
				  name);
		goto done;
	}
	conn->readonly = c->readonly;
	status = c->ssh ? cli_ssh_connect(c, conn) : connect_remote(c, conn);
done:
	if (status != CLI_EXIT_OK)
		cli_conn_dispose(conn);
	cli_config_dispose(&cfg);
	return status;
}

/* ---- `lectern context` commands ---------------------------------------- */

/* A string, or JSON null for NULL: 0, or -1 when out of memory. */
static int add_string_or_null(cJSON *o, const char *key, const char *value)
{
	return (value ? cJSON_AddStringToObject(o, key, value)
		      : cJSON_AddNullToObject(o, key)) ? 0 : -1;
}

/* Where a URL context goes and where its token comes from (never the
 * token). */
static int add_url_json(cJSON *o, const struct cli_context *c)
{
	if (add_string_or_null(o, "url", c->url) < 0 ||
	    add_string_or_null(o, "docs_domain", c->docs_domain) < 0)
		return -1;
	if (c->token_env)
		return add_string_or_null(o, "token_env", c->token_env);
	return add_string_or_null(o, "token_file", c->token_file);
}

static int add_ssh_json(cJSON *o, const struct cli_context *c)
{
	if (add_string_or_null(o, "ssh", c->ssh) < 0)
		return -1;
	return add_string_or_null(o, "remote_command", c->remote_command);
}

static int print_contexts_json(const struct cli_config *cfg,
			       const char *current)
{
	cJSON *root = cJSON_CreateArray(), *o;
	char *text;
	size_t i;

	if (root == NULL || (o = cJSON_CreateObject()) == NULL)
		goto oom;
	cJSON_AddItemToArray(root, o);
	if (!cJSON_AddStringToObject(o, "name", CLI_CONTEXT_LOCAL) ||
	    !cJSON_AddBoolToObject(o, "current",
				   strcmp(current, CLI_CONTEXT_LOCAL) == 0))
		goto oom;
	for (i = 0; i < cfg->len; i++) {
		const struct cli_context *c = &cfg->contexts[i];

		if ((o = cJSON_CreateObject()) == NULL)
			goto oom;
		cJSON_AddItemToArray(root, o);
		if (!cJSON_AddStringToObject(o, "name", c->name) ||
		    !cJSON_AddBoolToObject(o, "current",
					   strcmp(current, c->name) == 0) ||
		    (c->ssh ? add_ssh_json(o, c) < 0 : add_url_json(o, c) < 0) ||
		    !cJSON_AddBoolToObject(o, "readonly", c->readonly))
			goto oom;
	}
	if ((text = cJSON_PrintUnformatted(root)) == NULL)
		goto oom;
	printf("%s\n", text);
	cJSON_free(text);
	cJSON_Delete(root);
	return CLI_EXIT_OK;
oom:
	cJSON_Delete(root);
	return cli_fail("out of memory");
}

static int print_contexts_table(const struct cli_config *cfg,
				const char *current)
{
	struct cli_table t;
	size_t i;
	int status;

	cli_table_init(&t, "CURRENT", "NAME", "URL", "TOKEN", "READONLY",
		       NULL);
	cli_table_row(&t, strcmp(current, CLI_CONTEXT_LOCAL) == 0 ? "*" : "",
		      CLI_CONTEXT_LOCAL, "(the local engine, auto-started)",
		      "(local user)", "no", NULL);
	for (i = 0; i < cfg->len; i++) {
		const struct cli_context *c = &cfg->contexts[i];
		char *source = NULL, *url = NULL;
		int rc;

		/* Where the token comes from, never the token. */
		rc = c->ssh ? asprintf(&url, "ssh://%s", c->ssh)
			    : asprintf(&source, "%s %s",
				       c->token_env ? "env" : "file",
				       c->token_env ? c->token_env
						    : c->token_file);
		if (rc < 0) {
			t.oom = 1;
			break;
		}
		cli_table_row(&t, strcmp(current, c->name) == 0 ? "*" : "",
			      c->name, c->ssh ? url : c->url,
			      c->ssh ? "(socket owner)" : source,
			      c->readonly ? "yes" : "no", NULL);
		free(source);
		free(url);
	}
	status = cli_table_print(&t, stdout);
	cli_table_dispose(&t);
	return status;
}

int cli_cmd_context_list(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_config cfg;
	int status, json = argc == 1 && strcmp(argv[0], "--json") == 0;

	if (argc > 1 || (argc == 1 && !json))
		return cli_bad_usage("lectern context list [--json]");
	if ((status = cli_config_load(&cfg)) == CLI_EXIT_OK) {
		const char *current = cli_context_chosen(ctx, &cfg);

		status = json ? print_contexts_json(&cfg, current)
			      : print_contexts_table(&cfg, current);
	}
	cli_config_dispose(&cfg);
	return status;
}

int cli_cmd_context_use(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_config cfg;
	int status, local;

	(void)ctx;
	if (argc != 1 || argv[0][0] == '-')
		return cli_bad_usage("lectern context use NAME");
	if ((status = cli_config_load(&cfg)) != CLI_EXIT_OK)
		goto done;
	local = strcmp(argv[0], CLI_CONTEXT_LOCAL) == 0;
	if (!local && cli_config_find(&cfg, argv[0]) == NULL) {
		status = cli_fail("no context '%s' (see 'lectern context list')",
				  argv[0]);
		goto done;
	}
	free(cfg.current);
	cfg.current = local ? NULL : strdup(argv[0]);
	if (!local && cfg.current == NULL) {
		status = cli_fail("out of memory");
		goto done;
	}
	status = cli_config_save(&cfg);
done:
	cli_config_dispose(&cfg);
	return status;
}

int cli_cmd_context_remove(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_config cfg;
	struct cli_context *c;
	int status;

	(void)ctx;
	if (argc != 1 || argv[0][0] == '-')
		return cli_bad_usage("lectern context remove NAME");
	if (strcmp(argv[0], CLI_CONTEXT_LOCAL) == 0)
		return cli_fail("the local context is built in and cannot be "
				"removed");
	if ((status = cli_config_load(&cfg)) != CLI_EXIT_OK)
		goto done;
	if ((c = cli_config_find(&cfg, argv[0])) == NULL) {
		status = cli_fail("no context '%s' (see 'lectern context list')",
				  argv[0]);
		goto done;
	}
	context_dispose(c);
	memmove(c, c + 1,
		(size_t)(&cfg.contexts[cfg.len] - (c + 1)) * sizeof(*c));
	cfg.len--;
	if (cfg.current && strcmp(cfg.current, argv[0]) == 0) {
		free(cfg.current);
		cfg.current = NULL;
	}
	status = cli_config_save(&cfg);
done:
	cli_config_dispose(&cfg);
	return status;
}

/* The options of `context add` into c; a usage problem returns
 * CLI_EXIT_USAGE after saying what is wrong. */
static int add_options(struct cli_context *c, int argc, char **argv)
{
	const char *err;
	size_t k;
	int i;

	for (i = 1; i < argc; i++) {
		const char *opt = argv[i];
		const char *key = NULL;

		if (strcmp(opt, "--readonly") == 0) {
			c->readonly = 1;
			continue;
		}
		/* --KEY for each key of the file. */
		for (k = 0; k < CONTEXT_FIELDS && key == NULL; k++)
			if (strncmp(opt, "--", 2) == 0 &&
			    strcmp(opt + 2, context_fields[k].key) == 0)
				key = context_fields[k].key;
		if (key == NULL && strcmp(opt, "--token") == 0) {
			cli_fail("context add: a token never goes on the command "
				 "line; use --token-env VAR or --token-file "
				 "FILE");
			return CLI_EXIT_USAGE;
		}
		if (key == NULL) {
			cli_fail("context add: unknown option '%s'", opt);
			return CLI_EXIT_USAGE;
		}
		if (i + 1 >= argc) {
			cli_fail("context add: %s needs a value", opt);
			return CLI_EXIT_USAGE;
		}
		if ((err = context_key(c, key, argv[++i])) != NULL) {
			cli_fail("context add: %s %s", opt, err);
			return CLI_EXIT_USAGE;
		}
	}
	if ((err = context_check(c)) != NULL) {
		cli_fail("context add: the context %s", err);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

/* A token file is stored as an absolute path (commands run from anywhere)
 * and checked now, so a bad mode is caught when the context is made. */
static int check_token_file(struct cli_context *c)
{
	char *abs, *token = NULL;
	int status;

	if (c->token_file == NULL)
		return CLI_EXIT_OK;
	if ((abs = realpath(c->token_file, NULL)) == NULL)
		return cli_fail("context add: token file %s: %s", c->token_file,
				strerror(errno));
	free(c->token_file);
	c->token_file = abs;
	status = read_token_file(c->name, c->token_file, &token);
	if (token)
		memset(token, 0, strlen(token));
	free(token);
	return status;
}

int cli_cmd_context_add(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_config cfg;
	struct cli_context add = { 0 }, *slot;
	int status;

	(void)ctx;
	if (argc < 1 || argv[0][0] == '-')
		return cli_bad_usage("lectern context add NAME (--url URL ... | "
				     "--ssh [USER@]HOST[:PORT] ...)");
	if (!valid_name(argv[0]) || strcmp(argv[0], CLI_CONTEXT_LOCAL) == 0) {
		cli_fail("context add: '%s' is not a name for a context "
			 "(letters, digits, '.', '_', '-'; not 'local')",
			 argv[0]);
		return CLI_EXIT_USAGE;
	}
	if ((add.name = strdup(argv[0])) == NULL)
		return cli_fail("out of memory");
	if ((status = add_options(&add, argc, argv)) != CLI_EXIT_OK ||
	    (status = check_token_file(&add)) != CLI_EXIT_OK) {
		context_dispose(&add);
		return status;
	}
	if ((status = cli_config_load(&cfg)) != CLI_EXIT_OK)
		goto done;
	if (cli_config_find(&cfg, add.name)) {
		status = cli_fail("context '%s' already exists (remove it "
				  "first)", add.name);
		goto done;
	}
	if ((slot = config_append(&cfg)) == NULL) {
		status = cli_fail("out of memory");
		goto done;
	}
	*slot = add;
	memset(&add, 0, sizeof(add));
	/* Say what was added and how to reach it: a newcomer's next
	 * question, and a silent success reads as nothing happened. */
	if ((status = cli_config_save(&cfg)) == CLI_EXIT_OK)
		printf("added context '%s' (%s%s%s); use it with --context %s "
		       "or make it the default with 'lectern context use "
		       "%s'\n",
		       slot->name, slot->ssh ? "ssh " : "",
		       slot->ssh ? slot->ssh : slot->url,
		       slot->readonly ? ", read-only" : "", slot->name,
		       slot->name);
done:
	context_dispose(&add);
	cli_config_dispose(&cfg);
	return status;
}
