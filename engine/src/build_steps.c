/*
 * The building step: which generator a checkout needs, and its commands,
 * as the hosted service runs them (behaviour notes §5.3–5.4): Sphinx and
 * MkDocs with the service's command lines under the Python that has them,
 * `build.commands` and `build.jobs` for generic builds, and Lectern's own
 * Markdown generator for a repository with no configuration at all. Then
 * the extra formats a configuration asks for.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_steps.h"
#include "hash.h"
#include "lectern/mdsite.h"
#include "yaml_reader.h"

/* Where Sphinx projects keep conf.py when no configuration names it, in the
 * order they are tried. */
static const char *const conf_candidates[] = {
	"docs/conf.py",	       "doc/conf.py",	    "conf.py",
	"docs/source/conf.py", "doc/source/conf.py", "source/conf.py",
};

/* What Sphinx says when its kept environment cannot be loaded. */
#define SPHINX_ENV_FAILED "loading pickled environment... failed"
/* latexmk turns Sphinx's LaTeX into PDF; without it there is no PDF. */
#define LATEXMK "/usr/bin/latexmk"
/* Bytes of mkdocs.yml read for its docs_dir: a configuration, not a
 * page. */
#define MKDOCS_YML_MAX (64 * 1024)

static int exists_in(const char *dir, const char *rel)
{
	char *path = lec__path_join(dir, rel);
	struct stat sb;
	int ok = path && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode);

	lec__free(path);
	return ok;
}

/* conf.py relative to the checkout, or NULL. Borrowed or static. */
static const char *find_conf(const struct lec__job *job)
{
	size_t i;

	if (job->config && job->config->sphinx_configuration)
		return job->config->sphinx_configuration;
	for (i = 0; i < sizeof(conf_candidates) / sizeof(conf_candidates[0]);
	     i++)
		if (exists_in(job->checkout, conf_candidates[i]))
			return conf_candidates[i];
	return NULL;
}

/* Sphinx wants the old codes: pt-br → pt_BR. */
static void sphinx_language(const char *code, char *out, size_t cap)
{
	size_t i;

	snprintf(out, cap, "%s", code);
	for (i = 0; out[i]; i++) {
		if (out[i] != '-')
			continue;
		out[i] = '_';
		for (i++; out[i]; i++)
			if (out[i] >= 'a' && out[i] <= 'z')
				out[i] = (char)(out[i] - 'a' + 'A');
		break;
	}
}

static void key_common(const struct lec__job *job, struct lec__cache_key *k);

/* What a version's warm generator depends on: what its kept state does
 * (key_common), the interpreter and the variables Python reads when it
 * starts (PYTHONPATH...), which a forked child would not read again. */
static void warm_key(const struct lec__job *job, struct lec__cache_key *k)
{
	struct lec__buf b = LEC__BUF_INIT;
	char hex[65], *vars;
	size_t i;

	key_common(job, k);
	lec__cache_key_text(k, "the interpreter", lec__job_python(job), 0);
	for (i = 0; job->cmd_env && job->cmd_env[i]; i++)
		if (strncmp(job->cmd_env[i], "PYTHON", 6) == 0)
			lec__buf_printf(&b, "%s\n", job->cmd_env[i]);
	vars = lec__buf_take(&b);
	if (vars == NULL || lec__sha256_hex(vars, strlen(vars), hex) < 0)
		snprintf(hex, sizeof(hex), "-");
	lec__cache_key_text(k, "Python's variables", hex, 0);
	lec__free(vars);
}

/* Whether the version is being worked on, so that its Sphinx builds go
 * through a warm generator: a preview, or a version whose commits are
 * watched. */
static int warm_wanted(const struct lec__job *job)
{
	return job->env->warm &&
	       (job->sink || (job->project && job->project->watch_commits));
}

/* A generator the build's Python lacks. The writer's own Python (an
 * activated virtualenv, for a preview) is named with how to install into
 * it: Debian's package would not help it. */
static int generator_missing(struct lec__job *job, const char *name,
			     const char *pip_name, const char *package)
{
	const char *python = job->env->python;

	if (python == NULL || strcmp(python, LEC__DEBIAN_PYTHON) == 0)
		return lec__job_fail(job, "%s is not installed: install "
					  "Debian's %s.",
				     name, package);
	return lec__job_fail(job, "%s is not installed for %s: install it "
				  "there (%s -m pip install %s).",
			     name, python, python, pip_name);
}

/* python -m sphinx ... -b <builder> ... <outdir>, cwd = conf.py's dir;
 * through the version's warm generator when it has one (warm). */
static int run_sphinx(struct lec__job *job, const char *conf,
		      const char *builder, const char *outdir,
		      const char *outname, int warm)
{
	struct lec__warm_request wr = { 0 };
	struct lec__job_sandbox sb = { 0 };
	struct lec__cache_key key = { .n = 0 };
	char *who = NULL, *conf_path = NULL;
	char lang[32], define[48], *confdir = NULL, *slash;
	/* A preview keeps the doctrees in its cache: the tree is read-only
	 * and the next build is incremental. */
	const char *doctrees = job->doctrees ? job->doctrees : "_build/doctrees";
	struct lec__buf b = LEC__BUF_INIT;
	const char *argv[20];
	char *display;
	int n = 0, rc;
	int strict = job->config && job->config->sphinx_fail_on_warning;

	if (!job->env->has_sphinx)
		return generator_missing(job, "Sphinx", "sphinx",
					 "python3-sphinx");
	sphinx_language(job->project->language, lang, sizeof(lang));
	snprintf(define, sizeof(define), "language=%s", lang);
	argv[n++] = lec__job_python(job);
	argv[n++] = "-m";
	argv[n++] = "sphinx";
	argv[n++] = "-T";
	if (strict) {
		argv[n++] = "-W";
		argv[n++] = "--keep-going";
	}
	argv[n++] = "-b";
	argv[n++] = builder;
	argv[n++] = "-d";
	argv[n++] = doctrees;
	argv[n++] = "-D";
	argv[n++] = define;
	argv[n++] = ".";
	argv[n++] = outdir;
	argv[n] = NULL;
	lec__buf_printf(&b, "python -m sphinx -T %s-b %s -d %s -D %s . %s",
			strict ? "-W --keep-going " : "", builder, doctrees,
			define, outname);
	display = lec__buf_take(&b);
	confdir = lec__path_join(job->checkout, conf);
	if (confdir && (slash = strrchr(confdir, '/')) != NULL)
		*slash = '\0';
	if (warm && warm_wanted(job)) {
		struct lec__buf w = LEC__BUF_INIT;

		if (job->sink)
			lec__buf_puts(&w, job->checkout);
		else
			lec__buf_printf(&w, "%s/%s", job->project->slug,
					job->version->slug);
		who = lec__buf_take(&w);
		conf_path = lec__path_join(job->checkout, conf);
		warm_key(job, &key);
		wr.who = who;
		wr.key = &key;
		wr.tree = job->checkout;
		wr.conf = conf_path;
		wr.build_dir = job->build_dir;
		wr.fresh = job->build && job->build->fresh;
		sb.warm = who && conf_path ? &wr : NULL;
	}
	rc = display && confdir
		     ? lec__job_run_in(job, display, argv, confdir, &sb)
		     : lec__job_fail(job, "out of memory");
	lec__free(display);
	lec__free(confdir);
	lec__free(who);
	lec__free(conf_path);
	return rc;
}

/* Warnings ----------------------------------------------------------------------- */

/* The directory part of a path relative to the tree ("" at the top).
 * Owned; NULL when out of memory. */
static char *dir_of(const char *rel)
{
	const char *slash = strrchr(rel, '/');

	return lec__strndup(rel, slash ? (size_t)(slash - rel) : 0);
}

/* Read the generator's output into the job's warnings while its command
 * runs: base is where its relative paths start, config its
 * configuration file (both relative to the tree). */
static void warnings_begin(struct lec__job *job, struct lec__warn_parser *p,
			   enum lec__warn_format format, const char *base,
			   const char *config)
{
	if (job->warnings_off)
		return;
	job->warnings.secrets = (const char *const *)job->secrets;
	lec__warn_parser_init(p, format, &job->warnings, job->checkout, base,
			      config);
	job->warn_parser = p;
}

static void warnings_end(struct lec__job *job)
{
	if (job->warn_parser == NULL)
		return;
	lec__warn_parser_end(job->warn_parser);
	lec__warn_parser_dispose(job->warn_parser);
	job->warn_parser = NULL;
}

/* The last passed build's kept warnings, which this one carries over
 * from; 0 when there are none to trust (then it must read everything). */
static int sphinx_kept_load(struct lec__job *job)
{
	if (job->sphinx_kept_path &&
	    lec__sphinx_kept_load(job->sphinx_kept_path, &job->sphinx_prev) ==
		    LEC_OK)
		job->sphinx_prev_ok = 1;
	lec_error_clear();
	return job->sphinx_prev_ok;
}

void lec__job_sphinx_keep(struct lec__job *job, int ok)
{
	if (job->sphinx_kept_path) {
		if (!(ok && job->sphinx_next_ok &&
		      lec__sphinx_kept_save(&job->sphinx_next,
					    job->sphinx_kept_path) == LEC_OK))
			unlink(job->sphinx_kept_path);
	}
	lec__sphinx_kept_dispose(&job->sphinx_prev);
	lec__sphinx_kept_dispose(&job->sphinx_next);
	lec__sphinx_trace_dispose(&job->sphinx_trace);
	lec__free(job->sphinx_kept_path);
	job->sphinx_kept_path = NULL;
	job->sphinx_prev_ok = job->sphinx_next_ok = 0;
}

/* mkdocs.yml is read for one key of its top level, leniently: MkDocs' own
 * tags (!ENV, !!python/name:) are not Lectern's to refuse. MKDOCS_YML_MAX
 * bounds its values. */
static const struct lec__yaml_rules mkdocs_rules = { "mkdocs.yml", 0, 1, 0, 0 };

/* Where MkDocs reads pages from, relative to the tree: mkdocs.yml's
 * top-level docs_dir (the first, as written), else "docs", beside the
 * configuration. The pairs before a mistake in the file, or before the cut
 * at MKDOCS_YML_MAX, still count. Owned. */
static char *mkdocs_docs_dir(const struct lec__job *job, const char *conf)
{
	char buf[MKDOCS_YML_MAX], *dir = dir_of(conf);
	const char *docs = "docs";
	struct lec__buf b = LEC__BUF_INIT;
	struct lec__yaml_node *root = NULL;
	const struct lec__yaml_entry *e;
	ssize_t n = -1;
	int fd;

	if (lec__open_in(job->checkout, conf, LEC__OPEN_FILE, &fd) == LEC_OK) {
		n = read(fd, buf, MKDOCS_YML_MAX);
		close(fd);
	}
	lec__yaml_read(buf, n > 0 ? (size_t)n : 0, &mkdocs_rules, &root);
	e = lec__yaml_find(root, "docs_dir");
	if (e && e->value->kind == LEC__YAML_SCALAR && e->value->text[0])
		docs = e->value->text;
	lec__buf_printf(&b, "%s%s%s", dir ? dir : "", dir && *dir ? "/" : "",
			docs);
	lec__yaml_free(root);
	lec__free(dir);
	return lec__buf_take(&b);
}

/* Generator state ------------------------------------------------------------- */

/* The path of the version's kept-state record for cache name, beside its
 * tree (the engine's own, like the tree's manifest). */
static char *state_path(const struct lec__job *job, const char *name)
{
	struct lec__buf b = LEC__BUF_INIT;

	lec__buf_printf(&b, "%s.%s", job->checkout, name);
	return lec__buf_take(&b);
}

/* Lectern's and the generators' versions, the configuration and the
 * requirement files: what every generator's kept state depends on. */
static void key_common(const struct lec__job *job, struct lec__cache_key *k)
{
	const struct lec_rtd_config *c = job->config;
	int i;

	lec__cache_key_text(k, "Lectern", job->env->lectern_stamp, 0);
	lec__cache_key_text(k, "Sphinx", job->env->sphinx_version, 1);
	lec__cache_key_text(k, "MkDocs", job->env->mkdocs_version, 1);
	lec__cache_key_text(k, "the Python environment", job->venv_stamp, 0);
	lec__cache_key_file(k, job->checkout,
			    c && c->path ? c->path : ".readthedocs.yaml");
	for (i = 0; c && i < c->python_install_count &&
		    k->n < LEC__CACHE_KEY_PARTS - 2;
	     i++)
		if (c->python_install[i].requirements)
			lec__cache_key_file(k, job->checkout,
					    c->python_install[i].requirements);
}

/* Why the kept pages (not the environment) cannot be reused: pages added,
 * removed or renamed, or a page's titles, labels or toctree changed, or
 * any other file (each may change every page); NULL when they can. */
static const char *pages_invalid(const struct lec__job *job)
{
	unsigned long c = job->changes;

	if (c & (1UL << ('A' - 'A') | 1UL << ('D' - 'A')))
		return "pages were added or removed";
	if (c & 1UL << ('O' - 'A'))
		return "a page's titles, labels or toctree changed";
	if (c & 1UL << ('X' - 'A'))
		return "files other than pages changed";
	return NULL;
}

/* Sphinx keeps its environment (doctrees, under conf.py's directory) and
 * its pages (_readthedocs/html) in the version's tree between builds, and
 * rereads and rewrites only what changed. Both are used only when the
 * key is unchanged; the pages only when no other page could show what
 * changed (Sphinx itself does not rewrite the navigation of pages it did
 * not reread). Otherwise what cannot be used goes, and the reason is
 * noted. Preview builds keep their own state (preview.c). */
static void sphinx_state(struct lec__job *job, const char *conf)
{
	struct lec__cache_key key = { .n = 0 };
	char reason[160], *record = state_path(job, "sphinx"), *doctrees;
	const char *why = NULL;
	struct lec__buf b = LEC__BUF_INIT;
	int reuse;

	if (job->sink || record == NULL) {
		lec__free(record);
		return;
	}
	key_common(job, &key);
	lec__cache_key_file(&key, job->checkout, conf);
	lec__cache_key_text(&key, "the builder",
			    job->config && job->config->sphinx_builder
				    ? job->config->sphinx_builder
				    : "html",
			    1);
	reuse = lec__cache_key_check(&key, record, reason, sizeof(reason));
	if (job->build->fresh)
		snprintf(reason, sizeof(reason), "a fresh build was asked for");
	else if (reuse && job->changes == ~0UL)
		snprintf(reason, sizeof(reason), "the tree was checked out "
						 "afresh");
	reuse = reuse && !job->build->fresh && job->changes != ~0UL;
	/* Without the last build's warnings, those of the documents Sphinx
	 * would not read again are lost: it reads them all. */
	job->sphinx_kept_path = state_path(job, "sphinx-warnings");
	if (reuse && !job->warnings_off && !sphinx_kept_load(job)) {
		snprintf(reason, sizeof(reason), "the last build's warnings "
						 "were not kept");
		reuse = 0;
	}
	lec__buf_printf(&b, "%.*s_build/doctrees",
			strrchr(conf, '/') ? (int)(strrchr(conf, '/') - conf + 1)
					   : 0,
			conf);
	doctrees = lec__buf_take(&b);
	if (!reuse && doctrees)
		lec__remove_beneath(job->checkout, doctrees);
	lec__job_cache_note(job, "doctrees", reuse, reuse ? NULL : "%s",
			    reason);
	why = reuse ? pages_invalid(job) : reason;
	if (why)
		lec__remove_beneath(job->checkout, "_readthedocs/html");
	lec__job_cache_note(job, "html", why == NULL, why ? "%s" : NULL, why);
	job->keep_html = 1;
	/* Recorded now, used by the next build only if this one passes
	 * (build_job.c forgets it otherwise). */
	job->state_record = record;
	job->state_key = key;
	lec__free(doctrees);
}

static int build_sphinx_html(struct lec__job *job)
{
	const char *conf = find_conf(job);
	const char *builder = "html";
	char *outdir = lec__path_join(job->output, "html");
	struct lec__warn_parser parser;
	struct lec__sphinx_run run = { 0 };
	char *srcdir = NULL, *doctrees = NULL;
	int rc;

	if (conf == NULL || !exists_in(job->checkout, conf)) {
		lec__free(outdir);
		return lec__job_fail(job, "Sphinx configuration file %s not "
					  "found in the repository.",
				     conf ? conf : "conf.py");
	}
	if (job->config && job->config->sphinx_builder) {
		builder = job->config->sphinx_builder;
		if (strcmp(builder, "htmldir") == 0)
			builder = "dirhtml";
	}
	lec__job_note_file(job, conf);
	sphinx_state(job, conf);
	/* A kept environment Sphinx cannot load (a build spoiled it) is
	 * rebuilt by Sphinx itself: the notes then say so. */
	lec__job_listen(job, SPHINX_ENV_FAILED);
	srcdir = dir_of(conf);
	if (srcdir && !job->doctrees) {
		struct lec__buf b = LEC__BUF_INIT;

		lec__buf_printf(&b, "%s/%s%s_build/doctrees", job->checkout,
				srcdir, *srcdir ? "/" : "");
		doctrees = lec__buf_take(&b);
	}
	run.root = job->checkout;
	run.srcdir = srcdir;
	run.doctrees = job->doctrees ? job->doctrees : doctrees;
	run.html = outdir;
	run.dirhtml = strcmp(builder, "dirhtml") == 0;
	/* A preview's kept environment is trusted with its warnings only
	 * (a second run of one build has them already). */
	if (job->sink && !job->warnings_off && !job->sphinx_prev_ok &&
	    !sphinx_kept_load(job) && job->doctrees)
		lec__remove_tree(job->doctrees);
	if (job->sphinx_prev_ok && run.doctrees)
		lec__sphinx_force(&job->sphinx_prev, &run);
	warnings_begin(job, &parser, LEC__WARN_SPHINX, srcdir, conf);
	if (job->warn_parser)
		parser.trace = &job->sphinx_trace;
	rc = outdir ? run_sphinx(job, conf, builder, outdir,
				 "$READTHEDOCS_OUTPUT/html", 1)
		    : lec__job_fail(job, "out of memory");
	warnings_end(job);
	if (rc == LEC_OK && !job->warnings_off && srcdir && run.doctrees && outdir)
		job->sphinx_next_ok =
			lec__sphinx_carry(&job->warnings, &job->sphinx_trace,
					  job->sphinx_prev_ok ? &job->sphinx_prev
							      : NULL,
					  &run, &job->sphinx_next) == LEC_OK;
	lec__free(srcdir);
	lec__free(doctrees);
	if (job->listen.heard) {
		lec__job_cache_note(job, "doctrees", 0, "Sphinx could not read "
							"its kept environment");
		lec__job_cache_note(job, "html", 0, "Sphinx could not read its "
						    "kept environment");
	}
	lec__job_listen(job, NULL);
	lec__free(outdir);
	return rc;
}

static int build_mkdocs_html(struct lec__job *job)
{
	const char *conf = job->config && job->config->mkdocs_configuration
				   ? job->config->mkdocs_configuration
				   : "mkdocs.yml";
	int strict = job->config && job->config->mkdocs_fail_on_warning;
	char *outdir = lec__path_join(job->output, "html");
	struct lec__buf b = LEC__BUF_INIT;
	struct lec__warn_parser parser;
	const char *argv[12];
	char *display, *docs_dir;
	int n = 0, rc;

	if (!job->env->has_mkdocs) {
		lec__free(outdir);
		return generator_missing(job, "MkDocs", "mkdocs", "mkdocs");
	}
	argv[n++] = lec__job_python(job);
	argv[n++] = "-m";
	argv[n++] = "mkdocs";
	argv[n++] = "build";
	argv[n++] = "--clean";
	argv[n++] = "--site-dir";
	argv[n++] = outdir;
	argv[n++] = "--config-file";
	argv[n++] = conf;
	if (strict)
		argv[n++] = "--strict";
	argv[n] = NULL;
	lec__buf_printf(&b, "python -m mkdocs build --clean --site-dir "
			    "$READTHEDOCS_OUTPUT/html --config-file %s%s",
			conf, strict ? " --strict" : "");
	display = lec__buf_take(&b);
	docs_dir = mkdocs_docs_dir(job, conf);
	/* Said where a Sphinx build would have one. */
	if (warm_wanted(job))
		lec__job_cache_note(job, "generator", 0,
				    "MkDocs has no warm generator: every "
				    "build starts a new Python");
	warnings_begin(job, &parser, LEC__WARN_MKDOCS, docs_dir, conf);
	rc = display && outdir ? lec__job_run(job, display, argv,
					      job->checkout, 0)
			       : lec__job_fail(job, "out of memory");
	warnings_end(job);
	lec__free(docs_dir);
	lec__free(display);
	lec__free(outdir);
	return rc;
}

/* The generator's warnings (a skipped symlink, an unreadable page) go into
 * the step's log, and those about a source file into the build's
 * warnings. */
struct markdown_output {
	struct lec__job_output out;
	const char *source; /* the source directory, relative to the tree */
};

static void markdown_warning(const char *message, void *payload)
{
	struct markdown_output *m = payload;

	lec__job_record_text(m->out.job, m->out.id, message);
	lec__job_record_text(m->out.job, m->out.id, "\n");
	if (!m->out.job->warnings_off) {
		m->out.job->warnings.secrets =
			(const char *const *)m->out.job->secrets;
		lec__warnings_markdown(&m->out.job->warnings, m->source,
				       message);
	}
}

/* The Markdown sources: docs/ when the repository has that directory
 * (MkDocs' default docs_dir), else the whole repository. */
static const char *markdown_source(const struct lec__job *job)
{
	char *docs = lec__path_join(job->checkout, "docs");
	struct stat sb;
	int has_docs = docs && lstat(docs, &sb) == 0 && S_ISDIR(sb.st_mode);

	lec__free(docs);
	return has_docs ? "docs" : ".";
}

/* Lectern's own generator runs in-process: it is our code, reading the
 * checkout (never following a link) and writing the output, and needs no
 * sandbox or Python. */
static int build_markdown_html(struct lec__job *job)
{
	struct lec_mdsite_options opts = LEC_MDSITE_OPTIONS_INIT;
	struct lec_mdsite_stats stats = { 0 };
	const char *rel = markdown_source(job);
	struct markdown_output out = { { job, 0 }, rel };
	char *outdir = lec__path_join(job->output, "html");
	char *src = lec__path_join(job->checkout, rel);
	struct lec__buf b = LEC__BUF_INIT;
	char text[256], *display, *state;
	int64_t id;
	int rc;

	lec__buf_printf(&b, "lectern markdown %s $READTHEDOCS_OUTPUT/html", rel);
	display = lec__buf_take(&b);
	if (outdir == NULL || src == NULL || display == NULL ||
	    lec__job_record_start(job, display, &id) < 0) {
		lec__free(outdir);
		lec__free(src);
		lec__free(display);
		return LEC_ERROR;
	}
	lec__free(display);
	opts.title = job->project->name;
	out.out.id = id;
	opts.warn = markdown_warning;
	opts.warn_payload = &out;
	/* Pages kept beside the version's tree, the engine's own: a fresh
	 * build starts without them. */
	state = job->sink ? lec__strdup(job->mdsite_state)
			  : state_path(job, "mdsite");
	if (state && job->build && job->build->fresh)
		lec__remove_tree(state);
	opts.state_dir = state;
	rc = lec_mdsite_build(src, outdir, &opts, &stats);
	if (state && rc == LEC_OK && job->build)
		lec__job_cache_note(job, "markdown", stats.pages_reused > 0,
				    stats.pages_reused > 0 ? NULL : "%s",
				    job->build->fresh
					    ? "a fresh build was asked for"
					    : stats.rebuild_reason);
	lec__free(state);
	lec__free(src);
	/* Later steps (a zip of the site) run as the build user. */
	if (rc == LEC_OK)
		rc = lec__chown_tree(job->env, job->output, 1, 1);
	/* Nothing to publish: a repository without documentation, or a
	 * tree of built HTML mistaken for its sources. */
	if (rc == LEC_OK && stats.bytes_in == 0)
		rc = lec__error(LEC_ENOTFOUND,
				"the repository has no documentation: no "
				".readthedocs.yaml, conf.py, mkdocs.yml or "
				"Markdown file in %s%s",
				rel,
				stats.html_skipped
					? " (only HTML: a built site? give "
					  "the tree it is built from)"
					: "");
	/* The message before recording, which clears the engine's error. */
	if (rc < 0)
		snprintf(text, sizeof(text), "%s\n", lec_error_last());
	else
		snprintf(text, sizeof(text),
			 "%zu pages, %zu other files, %zu bytes of Markdown "
			 "→ %zu bytes of HTML\n",
			 stats.pages, stats.assets, stats.bytes_in,
			 stats.bytes_out);
	lec__job_record_text(job, id, text);
	lec__job_record_finish(job, id, rc < 0 ? 1 : 0);
	lec__free(outdir);
	if (rc < 0) {
		text[strcspn(text, "\n")] = '\0';
		return lec__job_fail(job, "The Markdown build failed: %s", text);
	}
	return LEC_OK;
}

/* build.commands: the user's commands alone (notes §5.3). */
static int build_commands(struct lec__job *job)
{
	size_t i;

	for (i = 0; i < job->config->commands.len; i++) {
		const char *cmd = job->config->commands.items[i];
		const char *argv[] = { "/bin/sh", "-c", cmd, NULL };

		if (lec__job_run(job, cmd, argv, job->checkout, 0) < 0)
			return LEC_ERROR;
	}
	return LEC_OK;
}

/* Formats ------------------------------------------------------------------- */

/* Zip a directory into <output>/htmlzip/<slug>.zip with Python's zipfile
 * (no zip library among Lectern's dependencies; Python is). */
static int zip_dir(struct lec__job *job, const char *src)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *dir = lec__path_join(job->output, "htmlzip");
	char *zip = NULL;
	int rc;

	if (dir == NULL || lec__job_real_dirs(job, job->checkout, "_readthedocs") < 0 ||
	    lec__mkdirs(dir) < 0 || lec__chown_tree(job->env, dir, 1, 0) < 0) {
		lec__free(dir);
		return lec__job_fail(job, "%s", lec_error_last());
	}
	lec__buf_printf(&b, "%s/%s.zip", dir, job->project->slug);
	zip = lec__buf_take(&b);
	{
		const char *argv[] = { lec__job_python(job),
				       "-m", "zipfile", "-c", zip, src, NULL };

		rc = zip ? lec__job_run(job, "python -m zipfile -c "
					     "$READTHEDOCS_OUTPUT/htmlzip/"
					     "project.zip html",
					argv, job->build_dir, 0)
			 : lec__job_fail(job, "out of memory");
	}
	lec__free(zip);
	lec__free(dir);
	return rc;
}

/* Move the one regular file named *.ext from <build>/<fmt> into
 * <output>/<fmt>/<slug>.ext; neither directory may be a link the build
 * made (the server would move files of its own choosing). */
static int keep_single(struct lec__job *job, const char *from,
		       const char *fmt, const char *ext)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *dir = lec__path_join(job->output, fmt), *src = NULL, *dst = NULL;
	DIR *d = NULL;
	struct dirent *e;
	struct stat sb;
	int found = 0, rc = LEC_ERROR;

	if (lec__job_real_dirs(job, job->build_dir, fmt) == 1 &&
	    lec__job_real_dirs(job, job->checkout, "_readthedocs") >= 0)
		d = opendir(from);
	while (d && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name), m = strlen(ext);

		if (n > m && strcmp(e->d_name + n - m, ext) == 0 && !found &&
		    fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) ==
			    0 &&
		    S_ISREG(sb.st_mode)) {
			src = lec__path_join(from, e->d_name);
			found = 1;
		}
	}
	if (d)
		closedir(d);
	lec__buf_printf(&b, "%s/%s%s", dir ? dir : "", job->project->slug, ext);
	dst = lec__buf_take(&b);
	if (!found)
		lec__job_fail(job, "The %s build produced no %s file.", fmt, ext);
	else if (dir == NULL || dst == NULL || lec__mkdirs(dir) < 0 ||
		 rename(src, dst) < 0)
		lec__job_fail(job, "Keeping the %s file failed.", fmt);
	else
		rc = LEC_OK;
	lec__free(dir);
	lec__free(src);
	lec__free(dst);
	return rc;
}

static int sphinx_format(struct lec__job *job, const char *builder,
			 const char *fmt, const char *ext)
{
	char *tmp = lec__path_join(job->build_dir, fmt);
	struct lec__buf b = LEC__BUF_INIT;
	char *display;
	int rc;

	lec__buf_printf(&b, "$READTHEDOCS_OUTPUT/%s", fmt);
	display = lec__buf_take(&b);
	rc = tmp && display ? run_sphinx(job, find_conf(job), builder, tmp,
					 display, 0)
			    : lec__job_fail(job, "out of memory");
	if (rc == LEC_OK && strcmp(fmt, "pdf") == 0) {
		char jobname[300];
		const char *argv[] = { LATEXMK, "-pdf", "-f", "-dvi-", "-ps-",
				       jobname, "-interaction=nonstopmode",
				       NULL };

		snprintf(jobname, sizeof(jobname), "-jobname=%s",
			 job->project->slug);
		rc = lec__job_run(job, "latexmk -pdf -f -dvi- -ps- "
				       "-interaction=nonstopmode",
				  argv, tmp, 0);
	}
	if (rc == LEC_OK)
		rc = strcmp(fmt, "htmlzip") == 0 ? zip_dir(job, tmp)
						 : keep_single(job, tmp, fmt, ext);
	lec__free(display);
	lec__free(tmp);
	return rc;
}

static int format_htmlzip(struct lec__job *job, int sphinx)
{
	char *html;
	int rc;

	if (sphinx)
		return sphinx_format(job, "singlehtml", "htmlzip", ".zip");
	if ((html = lec__path_join(job->output, "html")) == NULL)
		return lec__job_fail(job, "out of memory");
	rc = zip_dir(job, html);
	lec__free(html);
	return rc;
}

static int format_pdf(struct lec__job *job, int sphinx)
{
	if (!sphinx)
		lec__job_note(job, "pdf", "PDF is built for Sphinx projects "
					  "only; skipped.\n");
	else if (access(LATEXMK, X_OK) != 0)
		lec__job_note(job, "pdf", "PDF needs latexmk and LaTeX, which "
					  "are not installed (Debian: latexmk, "
					  "texlive-latex-extra); skipped.\n");
	else
		return sphinx_format(job, "latex", "pdf", ".pdf");
	return LEC_OK;
}

static int format_epub(struct lec__job *job, int sphinx)
{
	if (sphinx)
		return sphinx_format(job, "epub", "epub", ".epub");
	lec__job_note(job, "epub", "EPUB is built for Sphinx projects only; "
				   "skipped.\n");
	return LEC_OK;
}

/* The download formats, in the order the service builds them. */
static const struct {
	unsigned bit;		/* LEC_FORMAT_* */
	enum lec_rtd_job job;	/* the project's own commands for it */
	int (*build)(struct lec__job *job, int sphinx);
} download_formats[] = {
	{ LEC_FORMAT_HTMLZIP, LEC_RTD_JOB_BUILD_HTMLZIP, format_htmlzip },
	{ LEC_FORMAT_PDF, LEC_RTD_JOB_BUILD_PDF, format_pdf },
	{ LEC_FORMAT_EPUB, LEC_RTD_JOB_BUILD_EPUB, format_epub },
};

/* Each format the configuration lists, as the service's director does:
 * never for a pull request's build; the project's own commands when it
 * names them; else the generator's, Sphinx's (the built-in Markdown
 * builder zips its pages too); a generic build has none of its own. */
static int build_formats(struct lec__job *job, enum lec__generator gen)
{
	unsigned formats = job->config ? job->config->formats : 0;
	size_t i;
	int rc = LEC_OK;

	if (job->version && job->version->type == LEC_VERSION_EXTERNAL)
		return LEC_OK;
	for (i = 0; rc == LEC_OK && i < sizeof(download_formats) /
					   sizeof(download_formats[0]);
	     i++) {
		if (!(formats & download_formats[i].bit))
			continue;
		if (lec__job_overrides(job, download_formats[i].job))
			rc = lec__job_hook(job, download_formats[i].job);
		else if (gen != LEC__GEN_JOBS)
			rc = download_formats[i].build(job,
						       gen == LEC__GEN_SPHINX);
	}
	return rc;
}

enum lec__generator lec__job_generator(const struct lec__job *job)
{
	const struct lec_rtd_config *c = job->config;

	if (c && c->commands.len > 0)
		return LEC__GEN_COMMANDS;
	if (c && c->doctype == LEC_DOCTYPE_GENERIC)
		return LEC__GEN_JOBS;
	if (c && c->doctype == LEC_DOCTYPE_MKDOCS)
		return LEC__GEN_MKDOCS;
	/* A configuration without a generator means Sphinx, as at the
	 * service; without a configuration, conf.py decides. */
	if (c || find_conf(job))
		return LEC__GEN_SPHINX;
	if (exists_in(job->checkout, "mkdocs.yml"))
		return LEC__GEN_MKDOCS;
	return LEC__GEN_MARKDOWN;
}

/* The generator's HTML. */
static int build_html(struct lec__job *job, enum lec__generator gen)
{
	switch (gen) {
	case LEC__GEN_COMMANDS:
		return build_commands(job);
	case LEC__GEN_JOBS: /* a generic build without build.html: nothing */
		return LEC_OK;
	case LEC__GEN_MKDOCS:
		job->doctype = LEC_DOCTYPE_MKDOCS;
		return build_mkdocs_html(job);
	case LEC__GEN_SPHINX:
		return build_sphinx_html(job);
	case LEC__GEN_MARKDOWN:
		job->doctype = LEC_DOCTYPE_GENERIC;
		return build_markdown_html(job);
	}
	return LEC_OK;
}

int lec__job_build_docs(struct lec__job *job)
{
	const struct lec_rtd_config *c = job->config;
	enum lec__generator gen = lec__job_generator(job);
	int own_html = gen != LEC__GEN_COMMANDS &&
		       lec__job_overrides(job, LEC_RTD_JOB_BUILD_HTML);
	int rc;

	if (lec__job_hook(job, LEC_RTD_JOB_PRE_BUILD) < 0)
		return LEC_ERROR;
	/* The version's documentation_type follows the generator that ran:
	 * the configuration's, else the one detected, and the built-in
	 * Markdown site has the clean URLs of "generic". */
	job->doctype = c ? c->doctype : LEC_DOCTYPE_SPHINX;
	/* Only Sphinx builds on the pages it kept (sphinx_state); the
	 * project's own commands and any other generator start from an empty
	 * output, whatever ran before. */
	if ((gen != LEC__GEN_SPHINX || own_html) && !job->sink)
		lec__remove_beneath(job->checkout, "_readthedocs/html");
	if (gen == LEC__GEN_MKDOCS && !own_html)
		lec__job_cache_note(job, "mkdocs", 0,
				    "MkDocs has no incremental mode: every "
				    "page is built");
	rc = own_html ? lec__job_hook(job, LEC_RTD_JOB_BUILD_HTML)
		      : build_html(job, gen);
	if (rc == LEC_OK && !job->html_only && gen != LEC__GEN_COMMANDS)
		rc = build_formats(job, gen);
	if (rc == LEC_OK)
		rc = lec__job_hook(job, LEC_RTD_JOB_POST_BUILD);
	return rc;
}
