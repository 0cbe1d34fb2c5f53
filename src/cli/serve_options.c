/*
 * `lectern serve`'s options as one table (serve_options.h). A row says
 * what an option takes and where it goes; the parser walks the rows, and
 * `--help` and `--options-table` print them, so the options, their bounds
 * and their defaults are written once. A number's default is the engine's
 * own constant, shown in the unit typed; an option whose default the
 * engine works out at start (threads, workers) says so in words.
 *
 * The documentation lists the same options (docs/api.md's table, the man
 * page lectern-serve(1)); tests/cli/test_serve_options.sh holds the two to
 * this table.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hook_sender.h"
#include "lectern/diff.h"
#include "lectern/errors.h"
#include "lectern/external.h"
#include "lectern/netrule.h"
#include "lectern/runner.h"
#include "serve_options.h"
#include "srv_limits.h"

/* Typed MiB into bytes. */
#define MIB_SHIFT 20

enum option_kind {
	OPTION_FLAG,   /* no value: an int field becomes 1 */
	OPTION_COUNT,  /* an unsigned field within [min, max] */
	OPTION_MIB,    /* a size_t field of bytes, typed in MiB within
			  [min, max] */
	OPTION_STRING, /* a const char * field: the value as given */
	OPTION_CUSTOM, /* parse does it all */
};

struct option {
	const char *name;     /* "--threads" */
	const char *value;    /* what it takes, for help ("N"); NULL: a flag */
	enum option_kind kind;
	size_t offset;        /* of its field in struct serve_settings */
	/* The bounds of a number (OPTION_COUNT, OPTION_MIB, --workers);
	 * max 0: none. */
	unsigned long min, max;
	unsigned long def;    /* OPTION_COUNT, OPTION_MIB: the default typed */
	/* The default in words, shown instead of def; "": none to show (an
	 * action, not a setting). */
	const char *default_text;
	int (*parse)(struct serve_settings *s, const struct option *o,
		     const char *val);
	const char *help;     /* one line for --help */
};

/* Parsers ----------------------------------------------------------------- */

/* An unsigned value within [min, max]. */
static int parse_count(const char *opt, const char *val, unsigned long min,
		       unsigned long max, unsigned long *out)
{
	char *end;

	*out = strtoul(val, &end, 10);
	if (*val == '\0' || *end || *out < min || *out > max)
		return cli_fail("serve: %s wants %lu to %lu, got '%s'", opt, min,
				max, val);
	return CLI_EXIT_OK;
}

/* Split "HOST:PORT" or "[V6]:PORT" in place. */
static int split_listen(char *spec, const char **host, unsigned short *port)
{
	char *colon, *end;
	unsigned long p;

	if (spec[0] == '[') {
		char *close = strchr(spec, ']');

		if (close == NULL || close[1] != ':')
			return -1;
		*close = '\0';
		*host = spec + 1;
		colon = close + 1;
	} else {
		colon = strrchr(spec, ':');
		if (colon == NULL)
			return -1;
		*colon = '\0';
		*host = spec;
	}
	p = strtoul(colon + 1, &end, 10);
	if (*end != '\0' || colon[1] == '\0' || p > 65535)
		return -1;
	*port = (unsigned short)p;
	return 0;
}

static int parse_listen(struct serve_settings *s, const struct option *o,
			const char *val)
{
	(void)o;
	s->listen = 1;
	free(s->listen_copy);
	s->listen_copy = strdup(val);
	if (s->listen_copy == NULL ||
	    split_listen(s->listen_copy, &s->srv.listen_host, &s->srv.port) < 0)
		return cli_fail("serve: --listen wants HOST:PORT, got '%s'", val);
	return CLI_EXIT_OK;
}

static int parse_socket(struct serve_settings *s, const struct option *o,
			const char *val)
{
	(void)o;
	if (val[0] != '/')
		return cli_fail("serve: --socket wants an absolute path, got "
				"'%s'", val);
	s->srv.socket_path = val;
	return CLI_EXIT_OK;
}

static int parse_edition(struct serve_settings *s, const struct option *o,
			 const char *val)
{
	(void)o;
	if (strcmp(val, "community") == 0)
		s->srv.edition = SRV_EDITION_COMMUNITY;
	else if (strcmp(val, "business") == 0)
		s->srv.edition = SRV_EDITION_BUSINESS;
	else
		return cli_fail("serve: --edition is community or business, "
				"not '%s'", val);
	return CLI_EXIT_OK;
}

/* 0 is an API-only instance that queues builds and runs none. */
static int parse_workers(struct serve_settings *s, const struct option *o,
			 const char *val)
{
	unsigned long n;

	if (parse_count(o->name, val, o->min, o->max, &n))
		return CLI_EXIT_FAIL;
	s->pipeline.workers = (unsigned)n;
	s->no_workers = n == 0;
	return CLI_EXIT_OK;
}

static int parse_local_repos(struct serve_settings *s,
			     const struct option *o, const char *val)
{
	(void)o;
	return serve_local_roots_add(&s->roots, val);
}

/* Repeatable: each value adds a network. */
static int parse_webhook_allow(struct serve_settings *s,
			       const struct option *o, const char *val)
{
	if (lec_netrule_allow(&s->webhook_allow, val) < 0)
		return cli_fail("serve: %s: %s", o->name, lec_error_last());
	s->srv.webhook_allow = &s->webhook_allow;
	return CLI_EXIT_OK;
}

/* UID:GID as numbers: the build user needs no account. */
static int parse_build_user(struct serve_settings *s, const struct option *o,
			    const char *val)
{
	const char *given = val;
	unsigned long uid, gid;
	char *end;

	(void)o;
	uid = strtoul(val, &end, 10);
	if (end == val || *end != ':' || uid == 0 || uid > 0xfffffffeUL)
		goto bad;
	val = end + 1;
	gid = strtoul(val, &end, 10);
	if (end == val || *end || gid == 0 || gid > 0xfffffffeUL)
		goto bad;
	s->pipeline.build_uid = (unsigned)uid;
	s->pipeline.build_gid = (unsigned)gid;
	return CLI_EXIT_OK;
bad:
	return cli_fail("serve: --build-user wants UID:GID (not 0), got '%s'",
			given);
}

/* The table --------------------------------------------------------------- */

/* The offset of field f of struct serve_settings, which must be of type
 * type: comparing the two pointers does not compile otherwise. */
#define FIELD(f, type)                                                      \
	(offsetof(struct serve_settings, f) +                                \
	 0 * sizeof((type *)0 == &((struct serve_settings *)0)->f))

#define FLAG(opt, field, dflt, text)                                        \
	{ .name = opt, .kind = OPTION_FLAG, .offset = FIELD(field, int),    \
	  .default_text = dflt, .help = text }
#define COUNT(opt, val, field, lo, hi, dflt, text)                          \
	{ .name = opt, .value = val, .kind = OPTION_COUNT,                  \
	  .offset = FIELD(field, unsigned), .min = lo, .max = hi,           \
	  .def = dflt, .help = text }
#define MIB(opt, field, lo, hi, dflt_bytes, text)                           \
	{ .name = opt, .value = "MIB", .kind = OPTION_MIB,                  \
	  .offset = FIELD(field, size_t), .min = lo, .max = hi,             \
	  .def = (dflt_bytes) >> MIB_SHIFT, .help = text }
#define CUSTOM(opt, val, fn, dflt, text)                                    \
	{ .name = opt, .value = val, .kind = OPTION_CUSTOM, .parse = fn,    \
	  .default_text = dflt, .help = text }

static const struct option options[] = {
	CUSTOM("--listen", "HOST:PORT", parse_listen, "127.0.0.1:8000",
	       "address; port 0 picks a free one"),
	CUSTOM("--socket", "PATH", parse_socket, "none",
	       "listen on a unix socket (mode 0600) instead, or besides "
	       "with --listen or --local-engine"),
	FLAG("--local-engine", local_engine, "off",
	     "be the data directory's one engine"),
	FLAG("--print-socket", print_socket, "",
	     "print the engine's socket path and exit"),
	FLAG("--detach", detach, "",
	     "start an engine on the socket in the background unless one "
	     "answers"),
	FLAG("--trust-forwarded", srv.trust_forwarded, "off",
	     "build links from a reverse proxy's Forwarded headers"),
	CUSTOM("--edition", "community|business", parse_edition, "community",
	       "business adds organizations and teams"),
	{ .name = "--docs-domain", .value = "DOMAIN", .kind = OPTION_STRING,
	  .offset = FIELD(srv.docs_domain, const char *),
	  .default_text = "localhost and the request's port",
	  .help = "projects' documentation is at <slug>.<domain>" },
	{ .name = "--external-domain", .value = "DOMAIN",
	  .kind = OPTION_STRING,
	  .offset = FIELD(srv.external_domain, const char *),
	  .default_text = "external.localhost and the request's port",
	  .help = "pull-request versions are at <slug>--<number>.<domain>" },
	COUNT("--external-grace", "SECONDS", srv.external_grace_s, 1,
	      365u * 24 * 3600, LEC_EXTERNAL_GRACE_DEFAULT_S,
	      "how long a closed pull request's files stay"),
	{ .name = "--threads", .value = "N", .kind = OPTION_COUNT,
	  .offset = FIELD(srv.threads, unsigned), .min = 1, .max = 256,
	  .default_text = "CPUs", .help = "HTTP threads" },
	{ .name = "--workers", .value = "N", .kind = OPTION_CUSTOM,
	  .parse = parse_workers, .min = 0, .max = LEC_PIPELINE_MAX_WORKERS,
	  .default_text = "half the CPUs, at least 1",
	  .help = "build workers; 0 runs none: an API-only instance" },
	CUSTOM("--local-repos", "DIR[:DIR...]", parse_local_repos, "none",
	       "directories file:// repositories may lie in; repeatable"),
	COUNT("--build-timeout", "SECONDS", pipeline.limits.time_limit_s, 1,
	      24 * 3600, LEC_RUNNER_DEFAULT_TIME_LIMIT_S,
	      "a build's time limit"),
	MIB("--build-memory", pipeline.limits.memory_bytes, 64, 1024 * 1024,
	    LEC_RUNNER_DEFAULT_MEMORY,
	    "a build command's address-space limit"),
	MIB("--build-output", pipeline.limits.output_bytes, 1, 1024,
	    LEC_RUNNER_DEFAULT_OUTPUT,
	    "a command's recorded output limit"),
	COUNT("--build-processes", "N", pipeline.limits.nproc, 8, 65536,
	      LEC_RUNNER_DEFAULT_NPROC, "processes in a build's sandbox"),
	COUNT("--build-open-files", "N", pipeline.limits.nofile, 64,
	      1024 * 1024, LEC_RUNNER_DEFAULT_NOFILE,
	      "open files of a build process"),
	MIB("--build-file-size", pipeline.limits.fsize_bytes, 1, 1024 * 1024,
	    LEC_RUNNER_DEFAULT_FSIZE, "largest file a build writes"),
	COUNT("--build-cpu", "SECONDS", pipeline.limits.cpu_s, 1, 24 * 3600,
	      LEC_RUNNER_DEFAULT_CPU_S, "CPU time of a build process"),
	MIB("--build-tmp", pipeline.limits.tmp_bytes, 1, 1024 * 1024,
	    LEC_RUNNER_DEFAULT_TMP, "a build's private /tmp"),
	MIB("--build-disk", pipeline.limits.disk_bytes, 1, 16 * 1024 * 1024,
	    LEC_RUNNER_DEFAULT_DISK, "what a build may write"),
	CUSTOM("--build-user", "UID:GID", parse_build_user, "65534:65534",
	       "whom builds run as when serve runs as root"),
	FLAG("--offline", pipeline.offline, "off",
	     "builds install nothing from the network"),
	FLAG("--no-watch", pipeline.no_watch, "off",
	     "no builds on commit for local repositories"),
	COUNT("--watch-debounce", "MS", pipeline.watch_debounce_ms, 1, 60000,
	      LEC_PIPELINE_WATCH_DEBOUNCE_MS,
	      "quiet period after a change to a watched repository's refs"),
	FLAG("--no-inotify", pipeline.watch_no_inotify, "off",
	     "poll watched refs instead of using inotify"),
	COUNT("--watch-poll", "MS", pipeline.watch_poll_ms, 1, 600000,
	      LEC_PIPELINE_WATCH_POLL_MS, "how often refs are polled"),
	FLAG("--watch-log", pipeline.watch_log, "off",
	     "log each look the commit watch and remote polling take"),
	/* The server reads it too (page diffs): serve_settings_parse
	 * copies it. */
	COUNT("--keep-builds", "N", pipeline.keep_builds, 1, 1000,
	      LEC_DIFF_KEEP_BUILDS_DEFAULT,
	      "published outputs kept per version for page diffs"),
	/* Milliseconds: tests set a few, so retries come quickly. */
	COUNT("--webhook-backoff", "MS", srv.webhook_backoff_ms, 1, 3600000,
	      SRV_HOOK_BACKOFF_DEFAULT_MS,
	      "outgoing webhooks: the first retry's delay, doubling"),
	COUNT("--webhook-timeout", "MS", srv.webhook_timeout_ms, 100, 600000,
	      SRV_HOOK_TIMEOUT_DEFAULT_MS,
	      "outgoing webhooks: how long a receiver gets per try"),
	COUNT("--import-limit", "N", srv.import_limit, 1, 1000000,
	      SRV_IMPORTS_PER_HOUR_DEFAULT,
	      "projects one user may import an hour (then 429)"),
	COUNT("--queue-limit", "N", srv.queue_limit, 1, 1000000,
	      SRV_QUEUED_BUILDS_DEFAULT,
	      "builds one owner may have waiting to start (then 429)"),
	CUSTOM("--webhook-allow", "CIDR", parse_webhook_allow,
	       "public addresses only",
	       "outgoing webhooks may also reach this network (loopback, "
	       "private...); repeatable"),
};

#define OPTION_COUNT_ALL (sizeof(options) / sizeof(options[0]))

static const struct option *find_option(const char *name)
{
	size_t i;

	for (i = 0; i < OPTION_COUNT_ALL; i++)
		if (strcmp(options[i].name, name) == 0)
			return &options[i];
	return NULL;
}

/* Parsing ----------------------------------------------------------------- */

static int too_many_roots(void)
{
	return cli_fail("serve: --local-repos lists at most %d directories",
			SERVE_LOCAL_ROOTS_MAX);
}

int serve_local_roots_add(struct serve_local_roots *roots, const char *val)
{
	char *copy, *dir, *next;

	/* Each value adds a directory, so ncopies <= n < the most. */
	if (roots->n == SERVE_LOCAL_ROOTS_MAX)
		return too_many_roots();
	if ((copy = strdup(val)) == NULL)
		return cli_fail("out of memory");
	roots->copies[roots->ncopies++] = copy;
	for (dir = copy; dir; dir = next) {
		if ((next = strchr(dir, ':')) != NULL)
			*next++ = '\0';
		if (dir[0] != '/')
			return cli_fail("serve: --local-repos wants absolute "
					"directories, got '%s'",
					dir);
		if (roots->n == SERVE_LOCAL_ROOTS_MAX)
			return too_many_roots();
		roots->dirs[roots->n++] = dir;
	}
	return CLI_EXIT_OK;
}

void serve_settings_init(struct serve_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->srv.listen_host = "127.0.0.1";
	s->srv.port = 8000;
	s->srv.edition = SRV_EDITION_COMMUNITY;
	s->pipeline.version = LEC_PIPELINE_CONFIG_VERSION;
	s->pipeline.limits = (struct lec_runner_limits)LEC_RUNNER_LIMITS_INIT;
}

/* Set the field of o from val. */
static int set_option(struct serve_settings *s, const struct option *o,
		      const char *val)
{
	char *field = (char *)s + o->offset;
	unsigned long n;

	switch (o->kind) {
	case OPTION_FLAG:
		*(int *)(void *)field = 1;
		return CLI_EXIT_OK;
	case OPTION_COUNT:
	case OPTION_MIB:
		if (parse_count(o->name, val, o->min, o->max, &n))
			return CLI_EXIT_FAIL;
		if (o->kind == OPTION_MIB)
			*(size_t *)(void *)field = (size_t)n << MIB_SHIFT;
		else
			*(unsigned *)(void *)field = (unsigned)n;
		return CLI_EXIT_OK;
	case OPTION_STRING:
		*(const char **)(void *)field = val;
		return CLI_EXIT_OK;
	case OPTION_CUSTOM:
		return o->parse(s, o, val);
	}
	return CLI_EXIT_FAIL;
}

int serve_settings_parse(struct serve_settings *s, int argc, char **argv)
{
	int i, status;

	for (i = 0; i < argc; i++) {
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		const struct option *o = find_option(opt);

		if (o && o->kind == OPTION_FLAG) {
			set_option(s, o, NULL);
			continue;
		}
		/* Anything else takes a value: a last word without one is
		 * reported as such, even when it names no option. */
		if (val == NULL)
			return cli_fail("serve: %s needs a value", opt);
		if (o == NULL)
			return cli_fail("serve: unknown option '%s'", opt);
		if ((status = set_option(s, o, val)) != CLI_EXIT_OK)
			return status;
		i++;
	}
	s->srv.keep_builds = s->pipeline.keep_builds;
	return CLI_EXIT_OK;
}

void serve_settings_dispose(struct serve_settings *s)
{
	size_t i;

	for (i = 0; i < s->roots.ncopies; i++)
		free(s->roots.copies[i]);
	free(s->listen_copy);
}

/* Help -------------------------------------------------------------------- */

/* The default of o as shown: in words, or the number typed. */
static const char *default_of(const struct option *o, char *buf, size_t cap)
{
	if (o->default_text)
		return o->default_text;
	snprintf(buf, cap, "%lu", o->def);
	return buf;
}

void serve_options_help(FILE *out)
{
	char spec[64], range[64], def[32], text[512];
	const char *dflt;
	size_t i;

	fputs("\noptions:\n", out);
	for (i = 0; i < OPTION_COUNT_ALL; i++) {
		const struct option *o = &options[i];

		snprintf(spec, sizeof(spec), "%s%s%s", o->name,
			 o->value ? " " : "", o->value ? o->value : "");
		range[0] = '\0';
		if (o->max)
			snprintf(range, sizeof(range), "%lu to %lu; ", o->min,
				 o->max);
		dflt = default_of(o, def, sizeof(def));
		if (dflt[0])
			snprintf(text, sizeof(text), "%s (%sdefault %s)",
				 o->help, range, dflt);
		else
			snprintf(text, sizeof(text), "%s", o->help);
		cli_help_option(out, spec, strlen(spec), text, strlen(text));
	}
}

void serve_options_table(FILE *out)
{
	char def[32];
	size_t i;

	for (i = 0; i < OPTION_COUNT_ALL; i++)
		fprintf(out, "%s\t%s\t%s\n", options[i].name,
			options[i].value ? options[i].value : "",
			default_of(&options[i], def, sizeof(def)));
}
