/*
 * `lectern preview [DIR]`: the writers' preview loop. It builds the working
 * tree as it is on disk (engine: lectern/preview.h), serves the result on a
 * loopback port (server: preview_daemon.h), and watches the tree with inotify to
 * rebuild after each save, until SIGINT or SIGTERM.
 *
 * One thread does the watching and the building, so builds never overlap:
 * changes that arrive during a build wait in the inotify queue and cause
 * exactly one more build after it. A burst of changes (an editor's
 * write-rename-chmod, a `git checkout`) is coalesced: a build starts once
 * the tree has been quiet for PREVIEW_QUIET_MS, or PREVIEW_MAX_DELAY_MS
 * after the first change of a burst that never pauses.
 *
 * The first line on stdout is "preview: http://127.0.0.1:PORT/", so a
 * script that asked for port 0 learns the port; build progress follows.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


#include "cli.h"
#include "cmd.h"
#include "lectern/errors.h"
#include "lectern/preview.h"
#include "preview_daemon.h"
#include "warnings.h"

/* A build starts once the tree has been quiet this long: long enough to
 * take in an editor's whole save (write, rename, chmod) and a scripted
 * burst, short enough to stay far inside the 300 ms save-to-screen goal. */
#define PREVIEW_QUIET_MS 20
/* ...or this long after the first change, when changes never pause (a
 * long `git checkout`, a generator writing into the tree). */
#define PREVIEW_MAX_DELAY_MS 1000
/* New warnings printed after a build; the status endpoint has the rest. */
#define PREVIEW_WARNINGS_PRINTED 10
/* What inotify reports that may change the output. */
#define PREVIEW_WATCH_MASK                                                   \
	(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM |            \
	 IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW)
/* Bytes of inotify events read at a time: a few hundred events, so a
 * `git checkout` burst takes a few reads. */
#define PREVIEW_EVENT_BUFFER 16384
/* The port when none is given: any free one. */
#define PREVIEW_DEFAULT_PORT 0
/* Where the preview listens: loopback only, it serves a private tree. */
#define PREVIEW_HOST "127.0.0.1"

struct watcher {
	int fd;       /* inotify */
	char **rel;   /* indexed by watch descriptor: the directory, relative
			 to the tree ("" for the top) */
	size_t cap;
};

struct loop {
	struct lec_preview *pv;
	struct srv_preview *srv;
	struct watcher w;
	int sigfd;
	char *changed[SRV_PREVIEW_CHANGED_MAX + 1]; /* NULL-terminated */
	/* changed[i] did not exist before this burst: if it goes within it
	 * (an editor's or sed's temporary file, renamed over the page), it
	 * was never a change to the tree. */
	unsigned char born[SRV_PREVIEW_CHANGED_MAX];
	size_t nchanged;
	int unnamed; /* changes the list had no room for */
	int64_t first_ms, last_ms; /* of the pending burst; 0: none */
	uint64_t generation, published;
	char *generator; /* of the last finished build */
	struct cli_log_tail tail;
	int refusal_told; /* the service's refusal printed, still true */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Watching --------------------------------------------------------------- */

static int watch_set(struct watcher *w, int wd, const char *rel)
{
	char *copy = strdup(rel);

	if (copy == NULL)
		return -1;
	if ((size_t)wd >= w->cap) {
		size_t cap = w->cap ? w->cap : 64;
		char **grown;

		while (cap <= (size_t)wd)
			cap *= 2;
		grown = realloc(w->rel, cap * sizeof(char *));
		if (grown == NULL) {
			free(copy);
			return -1;
		}
		memset(grown + w->cap, 0, (cap - w->cap) * sizeof(char *));
		w->rel = grown;
		w->cap = cap;
	}
	free(w->rel[wd]);
	w->rel[wd] = copy;
	return 0;
}

static char *join_rel(const char *dir, const char *name)
{
	char *out = NULL;

	if (dir[0] == '\0')
		return strdup(name);
	return asprintf(&out, "%s/%s", dir, name) < 0 ? NULL : out;
}

/* Watch the directory rel and every relevant directory below it. A
 * directory that vanishes meanwhile is skipped. */
static void watch_tree(struct loop *l, const char *rel)
{
	const char *tree = lec_preview_tree(l->pv);
	char *path = NULL;
	struct dirent *e;
	DIR *d;
	int wd;

	if (asprintf(&path, "%s%s%s", tree, rel[0] ? "/" : "", rel) < 0)
		return;
	wd = inotify_add_watch(l->w.fd, path, PREVIEW_WATCH_MASK);
	if (wd < 0 || watch_set(&l->w, wd, rel) < 0) {
		if (wd < 0 && errno == ENOSPC)
			cli_print(stderr, "lectern preview: out of inotify "
				  "watches (fs.inotify.max_user_watches); "
				  "%s is not watched\n", path);
		free(path);
		return;
	}
	d = opendir(path);
	free(path);
	while (d && (e = readdir(d)) != NULL) {
		char *sub;

		struct stat sb;

		if (e->d_name[0] == '.' ||
		    (e->d_type != DT_DIR &&
		     (e->d_type != DT_UNKNOWN ||
		      fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 ||
		      !S_ISDIR(sb.st_mode))))
			continue;
		sub = join_rel(rel, e->d_name);
		if (sub && lec_preview_relevant(l->pv, sub))
			watch_tree(l, sub);
		free(sub);
	}
	if (d)
		closedir(d);
}

/* A change to rel, of inotify's mask. A path created in this burst and
 * gone again before it ends (moved away or deleted) leaves the list; a
 * burst left with no change at all builds nothing. */
static void remember_change(struct loop *l, const char *rel, uint32_t mask)
{
	size_t i;
	int64_t now = now_ms();

	for (i = 0; i < l->nchanged; i++)
		if (strcmp(l->changed[i], rel) == 0)
			break;
	if (i < l->nchanged && l->born[i] &&
	    (mask & (IN_DELETE | IN_MOVED_FROM))) {
		free(l->changed[i]);
		l->changed[i] = l->changed[l->nchanged - 1];
		l->born[i] = l->born[l->nchanged - 1];
		l->changed[--l->nchanged] = NULL;
		if (l->nchanged == 0 && !l->unnamed)
			l->first_ms = l->last_ms = 0;
		return;
	}
	if (l->first_ms == 0)
		l->first_ms = now;
	l->last_ms = now;
	if (i < l->nchanged)
		return;
	if (l->nchanged < SRV_PREVIEW_CHANGED_MAX &&
	    (l->changed[l->nchanged] = strdup(rel)) != NULL) {
		l->born[l->nchanged] = (mask & (IN_CREATE | IN_MOVED_TO)) != 0;
		l->nchanged++;
	} else {
		l->unnamed = 1;
	}
}

static void forget_changes(struct loop *l)
{
	size_t i;

	for (i = 0; i < l->nchanged; i++) {
		free(l->changed[i]);
		l->changed[i] = NULL;
	}
	l->nchanged = 0;
	l->unnamed = 0;
	l->first_ms = l->last_ms = 0;
}

static void on_event(struct loop *l, const struct inotify_event *ev)
{
	const char *dir;
	char *rel;

	if (ev->mask & IN_Q_OVERFLOW) {
		/* Events were lost: something changed, say what we know. */
		remember_change(l, ".", 0);
		return;
	}
	if (ev->mask & IN_IGNORED) {
		if ((size_t)ev->wd < l->w.cap) {
			free(l->w.rel[ev->wd]);
			l->w.rel[ev->wd] = NULL;
		}
		return;
	}
	if (ev->wd < 0 || (size_t)ev->wd >= l->w.cap ||
	    (dir = l->w.rel[ev->wd]) == NULL || ev->len == 0)
		return;
	if ((rel = join_rel(dir, ev->name)) == NULL)
		return;
	if (lec_preview_relevant(l->pv, rel)) {
		if ((ev->mask & IN_ISDIR) &&
		    (ev->mask & (IN_CREATE | IN_MOVED_TO)))
			watch_tree(l, rel);
		remember_change(l, rel, ev->mask);
	}
	free(rel);
}

/* Read what inotify has queued. */
static void drain_events(struct loop *l)
{
	char buf[PREVIEW_EVENT_BUFFER]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(l->w.fd, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (p < buf + n) {
			const struct inotify_event *ev = (const void *)p;

			on_event(l, ev);
			p += sizeof(*ev) + ev->len;
		}
	}
}

/* Building --------------------------------------------------------------- */

static void on_command(void *payload, const char *display)
{
	struct loop *l = payload;

	l->tail.len = 0;
	l->tail.text[0] = '\0';
	l->tail.cut = 0;
	cli_print(stdout, "preview:   $ %s\n", display);
	fflush(stdout);
}

/* Keep the end of the output: it holds the error when a build fails. */
static void on_output(void *payload, const char *data, size_t len)
{
	struct loop *l = payload;

	cli_log_tail_add(&l->tail, data, len);
}

/* A stop signal is pending: the running command is stopped, and the loop
 * then reads the signal and ends. */
static int on_cancelled(void *payload)
{
	struct loop *l = payload;
	struct pollfd pfd = { l->sigfd, POLLIN, 0 };

	return poll(&pfd, 1, 0) > 0;
}

static void publish_state(struct loop *l, const char *state,
			  const char *error, int64_t duration_ms)
{
	struct srv_preview_state st;

	st.state = state;
	st.generation = l->generation;
	st.published = l->published;
	st.generator = l->generator;
	st.error = error;
	st.log = error && l->tail.len ? l->tail.text : NULL;
	st.changed = (const char *const *)l->changed;
	st.duration_ms = duration_ms;
	st.warnings = l->generation ? lec_preview_warnings(l->pv) : NULL;
	st.warnings_fixed = lec_preview_warnings_fixed(l->pv);
	srv_preview_update(l->srv, &st);
}

/* After a build: what the hosted service would refuse that Lectern built
 * anyway (no .readthedocs.yaml), once until it changes. */
static void print_refusal(struct loop *l)
{
	const char *refuses = lec_preview_service_refuses(l->pv);

	if (refuses && !l->refusal_told)
		cli_print(stdout, "preview: %s\n", refuses);
	l->refusal_told = refuses != NULL;
}

/* After a build: how many warnings, and the new ones (all of them after
 * the first build), as `lectern check` prints them. */
static void print_warnings(struct loop *l)
{
	const struct lec_warning_set *set = lec_preview_warnings(l->pv);
	size_t i, fresh = 0, shown = 0;

	for (i = 0; i < set->len; i++)
		fresh += set->items[i].is_new != 0;
	if (set->len + set->dropped == 0)
		return;
	cli_print(stdout, "preview: %zu warning%s", set->len + set->dropped,
		  set->len + set->dropped == 1 ? "" : "s");
	if (fresh)
		cli_print(stdout, " (%zu new)", fresh);
	putchar('\n');
	for (i = 0; i < set->len && shown < PREVIEW_WARNINGS_PRINTED; i++)
		if (set->items[i].is_new || l->generation == 1) {
			cli_print_engine_record(stdout, &set->items[i]);
			shown++;
		}
}

static void build(struct loop *l)
{
	struct lec_preview_callbacks cb = { on_command, on_output,
					    on_cancelled, l };
	struct lec_preview_result r = { 0 };
	int64_t start = now_ms();
	int rc;

	l->tail.len = 0;
	l->tail.text[0] = '\0';
	l->tail.cut = 0;
	if (l->nchanged)
		cli_print(stdout, "preview: building: %s%s changed\n",
			  l->changed[0], l->nchanged > 1 ? " and more" : "");
	else
		cli_print(stdout, "preview: building %s\n",
			  lec_preview_tree(l->pv));
	fflush(stdout);
	publish_state(l, "building", NULL, -1);
	rc = lec_preview_build(l->pv, &cb, &r);
	l->generation++;
	if (rc == LEC_OK) {
		l->published = l->generation;
		free(l->generator);
		l->generator = strdup(lec_preview_generator_name(r.generator));
		cli_print(stdout,
			  "preview: ready in %" PRId64 " ms (%s, build %" PRIu64
			  ")\n", now_ms() - start,
			  l->generator ? l->generator : "", l->generation);
		print_refusal(l);
		print_warnings(l);
		publish_state(l, "ready", NULL, now_ms() - start);
	} else {
		cli_print(stdout, "preview: build %" PRIu64 " failed: %s\n",
			  l->generation, lec_error_last());
		cli_print_log_end(stdout, &l->tail, lec_error_last(), NULL,
				  NULL);
		print_warnings(l);
		if (l->published)
			cli_print(stdout,
				  "preview: still serving build %" PRIu64 "\n",
				  l->published);
		publish_state(l, "failed", lec_error_last(), now_ms() - start);
	}
	fflush(stdout);
	forget_changes(l);
	/* The replaced output goes once the browser has been told: removing
	 * a large site takes a while. */
	if (lec_preview_prune(l->pv) < 0)
		cli_print(stdout, "preview: %s\n", lec_error_last());
}

/* The loop --------------------------------------------------------------- */

/* Milliseconds until the pending burst is due; -1: nothing pending. */
static int due_in(const struct loop *l)
{
	int64_t now = now_ms(), quiet, longest;

	if (l->first_ms == 0)
		return -1;
	quiet = l->last_ms + PREVIEW_QUIET_MS - now;
	longest = l->first_ms + PREVIEW_MAX_DELAY_MS - now;
	if (longest < quiet)
		quiet = longest;
	return quiet > 0 ? (int)quiet : 0;
}

static void run_loop(struct loop *l)
{
	struct pollfd fds[2] = { { l->sigfd, POLLIN, 0 },
				 { l->w.fd, POLLIN, 0 } };

	build(l);
	for (;;) {
		int timeout = due_in(l);

		if (poll(fds, 2, timeout) < 0 && errno != EINTR)
			break;
		if (on_cancelled(l))
			break;
		drain_events(l);
		if (due_in(l) == 0)
			build(l);
	}
}

/* Options ----------------------------------------------------------------- */

struct options {
	const char *dir;
	const char *cache;
	unsigned short port;
};

static int parse_port(const char *val, unsigned short *port)
{
	char *end;
	unsigned long n = strtoul(val, &end, 10);

	if (*val == '\0' || *end || n > 65535)
		return cli_fail("preview: --port wants 0 to 65535, got '%s'",
				val);
	*port = (unsigned short)n;
	return CLI_EXIT_OK;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	int i, dir_given = 0;

	o->dir = ".";
	o->cache = NULL;
	o->port = PREVIEW_DEFAULT_PORT;
	for (i = 0; i < argc; i++) {
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(opt, "--port") == 0 || strcmp(opt, "--cache") == 0) {
			if (val == NULL)
				return cli_fail("preview: %s needs a value", opt);
			i++;
			if (strcmp(opt, "--cache") == 0)
				o->cache = val;
			else if (parse_port(val, &o->port) != CLI_EXIT_OK)
				return CLI_EXIT_FAIL;
		} else if (opt[0] == '-') {
			return cli_fail("preview: unknown option '%s'", opt);
		} else if (dir_given) {
			return cli_fail("preview: one directory only");
		} else {
			o->dir = opt;
			dir_given = 1;
		}
	}
	return CLI_EXIT_OK;
}

static void loop_dispose(struct loop *l)
{
	size_t i;

	forget_changes(l);
	for (i = 0; i < l->w.cap; i++)
		free(l->w.rel[i]);
	free(l->w.rel);
	free(l->generator);
	if (l->w.fd >= 0)
		close(l->w.fd);
	if (l->sigfd >= 0)
		close(l->sigfd);
	srv_preview_stop(l->srv);
	lec_preview_free(l->pv);
}

/* The project a preview's addons name: the tree's directory (a real
 * path, so never "." or ".."); "/" has none. */
static const char *tree_name(const char *tree)
{
	const char *slash = strrchr(tree, '/');

	return slash && slash[1] ? slash + 1 : "preview";
}

int cli_cmd_preview(struct cli_ctx *ctx, int argc, char **argv)
{
	struct lec_preview_options popts = LEC_PREVIEW_OPTIONS_INIT;
	struct loop l;
	struct options o;
	sigset_t stop;
	char python[PATH_MAX];
	int status;

	(void)ctx;
	memset(&l, 0, sizeof(l));
	l.w.fd = l.sigfd = -1;
	if ((status = parse_options(argc, argv, &o)) != 0)
		return status;
	/* The stop signals go to the signalfd only, before any thread
	 * starts, so the server's threads inherit the mask. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	popts.cache_dir = o.cache;
	if (cli_writer_python(python, sizeof(python)))
		popts.python = python;
	if (lec_preview_open(&l.pv, o.dir, &popts) < 0) {
		status = cli_fail_engine("cannot preview");
		goto done;
	}
	l.sigfd = signalfd(-1, &stop, SFD_CLOEXEC);
	l.w.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (l.sigfd < 0 || l.w.fd < 0) {
		status = cli_fail("preview: cannot watch the tree: %s",
				  strerror(errno));
		goto done;
	}
	l.srv = srv_preview_start(PREVIEW_HOST, o.port, lec_preview_site(l.pv),
				  tree_name(lec_preview_tree(l.pv)));
	if (l.srv == NULL) {
		status = CLI_EXIT_FAIL;
		goto done;
	}
	printf("preview: http://%s:%u/\n", PREVIEW_HOST,
	       srv_preview_port(l.srv));
	cli_print(stdout,
		  "preview: watching %s; output cached in %s; Ctrl-C stops\n",
		  lec_preview_tree(l.pv), lec_preview_cache_dir(l.pv));
	fflush(stdout);
	watch_tree(&l, "");
	run_loop(&l);
	printf("preview: stopping\n");
	fflush(stdout);
	status = CLI_EXIT_OK;
done:
	loop_dispose(&l);
	return status;
}
