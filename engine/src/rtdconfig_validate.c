/*
 * The values of `.readthedocs.yaml`, one at a time, as the service's
 * config/validation.py checks them: a string, one of a list of choices, a
 * boolean, a list of strings, a path inside the repository, a path pattern
 * under the built site; and how a value is named in a message when it is
 * none of those. The checks of the file's sections (rtdconfig.c) are built
 * on them, and nothing here knows a section.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "rtdconfig_internal.h"

int lec_rtd__index_of(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

int lec_rtd__is_str(const struct lec__yaml_node *n)
{
	return n->kind == LEC__YAML_SCALAR && n->type == LEC__YAML_STR;
}

int lec_rtd__is_null(const struct lec__yaml_node *n)
{
	return n->kind == LEC__YAML_SCALAR && n->type == LEC__YAML_NULL;
}

int lec_rtd__is_word(const struct lec__yaml_node *n, const char *word)
{
	return lec_rtd__is_str(n) && strcmp(n->text, word) == 0;
}

/* Python truthiness, which the service applies to build.tools. */
int lec_rtd__truthy(const struct lec__yaml_node *n)
{
	long long v;

	if (n->kind != LEC__YAML_SCALAR)
		return n->len > 0;
	switch (n->type) {
	case LEC__YAML_NULL:
		return 0;
	case LEC__YAML_BOOL:
		return lec__yaml_bool_value(n->text);
	case LEC__YAML_INT:
		return lec__yaml_int_value(n->text, &v) < 0 || v != 0;
	case LEC__YAML_STR:
		return n->text[0] != '\0';
	case LEC__YAML_FLOAT:
	case LEC__YAML_TIMESTAMP:
		break;
	}
	return 1;
}

/* How a value looks in a message: "a string ('3.1O')", "a list", ... */
const char *lec_rtd__describe(const struct lec__yaml_node *n, char *buf,
			      size_t size)
{
	static const char *const kinds[] = { "a string",  "null",
					     "a boolean", "an integer",
					     "a number",  "a date" };
	char shown[LEC__YAML_SHOW_MAX + 8];
	int quoted;

	if (n->kind != LEC__YAML_SCALAR)
		return n->kind == LEC__YAML_MAP ? "a map" : "a list";
	if (n->type == LEC__YAML_NULL)
		return "null";
	quoted = n->type == LEC__YAML_STR;
	lec__yaml_show(shown, sizeof(shown), n->text, LEC__YAML_SHOW_MAX);
	snprintf(buf, size, "%s (%s%s%s)", kinds[n->type], quoted ? "'" : "",
		 shown, quoted ? "'" : "");
	return buf;
}

const char *lec_rtd__choices_text(const char *const *names, size_t n, char *buf,
				  size_t size)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i ? ", " : "", names[i]);
	return buf;
}

int lec_rtd__want_kind(const struct lec_rtd__ctx *cx,
		       const struct lec__yaml_node *n, const char *key,
		       enum lec__yaml_kind kind)
{
	char got[LEC__YAML_PROBLEM_MAX / 2];

	if (n->kind == kind)
		return LEC_OK;
	return LEC_RTD__REFUSE(cx,
			       kind == LEC__YAML_MAP ? LEC_RTD__INVALID_DICT
						     : LEC_RTD__INVALID_LIST,
			       n, n->line, key, "expected %s, got %s",
			       kind == LEC__YAML_MAP ? "a map" : "a list",
			       lec_rtd__describe(n, got, sizeof(got)));
}

int lec_rtd__want_string(const struct lec_rtd__ctx *cx,
			 const struct lec__yaml_node *n, const char *key)
{
	char got[LEC__YAML_PROBLEM_MAX / 2];

	if (lec_rtd__is_str(n))
		return LEC_OK;
	return LEC_RTD__REFUSE(cx, LEC_RTD__INVALID_STRING, n, n->line, key,
			       "expected a string, got %s",
			       lec_rtd__describe(n, got, sizeof(got)));
}

/* One of names; *index gets which. */
int lec_rtd__want_choice(const struct lec_rtd__ctx *cx,
			 const struct lec__yaml_node *n, const char *key,
			 const char *const *names, size_t count, int *index)
{
	char got[LEC__YAML_PROBLEM_MAX / 2], list[LEC_RTD__CHOICES_MAX];

	if (lec_rtd__is_str(n) &&
	    (*index = lec_rtd__index_of(names, count, n->text)) >= 0)
		return LEC_OK;
	lec_rtd__choices_text(names, count, list, sizeof(list));
	lec_rtd__problem(LEC_RTD__INVALID_CHOICE, key, n);
	lec_rtd__problem_add("choices", list);
	return LEC_RTD__FAIL(cx, n->line, key, "expected one of %s, got %s",
			     list, lec_rtd__describe(n, got, sizeof(got)));
}

/* The service's validate_bool: true/false (and the YAML 1.1 spellings), 0
 * or 1. */
int lec_rtd__want_bool(const struct lec_rtd__ctx *cx,
		       const struct lec__yaml_node *n, const char *key,
		       int *out)
{
	char got[LEC__YAML_PROBLEM_MAX / 2];
	long long v;

	if (n->kind == LEC__YAML_SCALAR && n->type == LEC__YAML_BOOL) {
		*out = lec__yaml_bool_value(n->text);
		return LEC_OK;
	}
	if (n->kind == LEC__YAML_SCALAR && n->type == LEC__YAML_INT &&
	    lec__yaml_int_value(n->text, &v) == LEC_OK && (v == 0 || v == 1)) {
		*out = (int)v;
		return LEC_OK;
	}
	return LEC_RTD__REFUSE(cx, LEC_RTD__INVALID_BOOL, n, n->line, key,
			       "expected true or false, got %s",
			       lec_rtd__describe(n, got, sizeof(got)));
}

int lec_rtd__strings_push(struct lec_rtd_strings *s, const char *text)
{
	char **grown = lec__realloc(s->items, (s->len + 1) * sizeof(*grown));

	if (grown == NULL)
		return lec__error_oom();
	s->items = grown;
	if ((s->items[s->len] = lec__strdup(text)) == NULL)
		return lec__error_oom();
	s->len++;
	return LEC_OK;
}

/* A list of strings (build.commands, a job, ...). */
int lec_rtd__read_strings(const struct lec_rtd__ctx *cx,
			  const struct lec__yaml_node *n, const char *key,
			  struct lec_rtd_strings *out)
{
	size_t i;
	int rc;

	if ((rc = lec_rtd__want_kind(cx, n, key, LEC__YAML_SEQ)) < 0)
		return rc;
	for (i = 0; i < n->len; i++)
		if ((rc = lec_rtd__want_string(cx, n->entries[i].value, key)) <
			    0 ||
		    (rc = lec_rtd__strings_push(out,
						n->entries[i].value->text)) < 0)
			return rc;
	return LEC_OK;
}

/* Lexically normalise a relative path: "." and empty parts go, ".." takes
 * one part back. clamp: ".." at the top is dropped (a path pattern under
 * the site root) instead of an error. @return the result (owned), or NULL
 * when it leaves the top; "" for the top itself. */
static char *normalise(const char *path, int clamp, int *escapes)
{
	size_t len = strlen(path), out = 0, n;
	char *buf = lec__malloc(len + 1);
	const char *p = path;

	*escapes = 0;
	if (buf == NULL)
		return NULL;
	while (*p) {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (out == 0 && !clamp) {
				*escapes = 1;
				lec__free(buf);
				return NULL;
			}
			while (out > 0 && buf[out - 1] != '/')
				out--;
			out -= out > 0;
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (out > 0)
				buf[out++] = '/';
			memcpy(buf + out, p, n);
			out += n;
		}
		p += n + (p[n] == '/');
	}
	buf[out] = '\0';
	return buf;
}

/* A path inside the repository (the service's validate_path, which
 * normalises it), owned by *out. */
int lec_rtd__want_path(const struct lec_rtd__ctx *cx,
		       const struct lec__yaml_node *n, const char *key,
		       char **out)
{
	char shown[LEC__YAML_SHOW_MAX + 8];
	int rc, escapes;

	if ((rc = lec_rtd__want_string(cx, n, key)) < 0)
		return rc;
	lec__yaml_show(shown, sizeof(shown), n->text, LEC__YAML_SHOW_MAX);
	if (n->text[0] == '\0')
		return LEC_RTD__REFUSE(cx, LEC_RTD__INVALID_PATH, n, n->line,
				       key, "expected a path, got ''");
	/* The service takes these (and finds no such file later): Lectern
	 * never reads outside the checkout. */
	if (n->text[0] == '/')
		return LEC_RTD__REFUSE(
			cx, LEC_RTD__INVALID_PATH, n, n->line, key,
			"'%s' must be relative to the repository root", shown);
	*out = normalise(n->text, 0, &escapes);
	if (escapes)
		return LEC_RTD__REFUSE(cx, LEC_RTD__INVALID_PATH, n, n->line,
				       key, "'%s' leaves the repository",
				       shown);
	if (*out == NULL)
		return lec__error_oom();
	if ((*out)[0] == '\0') {
		lec__free(*out);
		*out = lec__strdup(".");
		LEC__CHECK_ALLOC(*out);
	}
	return LEC_OK;
}

/* A path pattern under the built site's root (validate_path_pattern). */
int lec_rtd__want_pattern(const struct lec_rtd__ctx *cx, const char *text,
			  size_t line, const char *key, char **out)
{
	char shown[LEC__YAML_SHOW_MAX + 8];
	int escapes;

	if ((*out = normalise(text, 1, &escapes)) == NULL)
		return lec__error_oom();
	if ((*out)[0] != '\0')
		return LEC_OK;
	lec__free(*out);
	*out = NULL;
	lec__yaml_show(shown, sizeof(shown), text, LEC__YAML_SHOW_MAX);
	lec_rtd__problem(LEC_RTD__INVALID_PATH_PATTERN, key, NULL);
	lec_rtd__problem_add("value", text);
	return LEC_RTD__FAIL(cx, line, key, "'%s' is not a valid path pattern",
			     shown);
}

/* The entry of key in a map, marked as read; NULL when absent or when map
 * is NULL. (lec__yaml_find looks without marking, as the service looks
 * without popping.) */
struct lec__yaml_entry *lec_rtd__take(const struct lec__yaml_node *map,
				      const char *key)
{
	size_t i;

	if (map == NULL)
		return NULL;
	for (i = 0; i < map->len; i++)
		if (strcmp(map->entries[i].key, key) == 0) {
			map->entries[i].used = 1;
			return &map->entries[i];
		}
	return NULL;
}

/* A top-level section's map: NULL when absent; an error unless a map. */
int lec_rtd__section(const struct lec_rtd__ctx *cx, const char *name,
		     const struct lec__yaml_node **out)
{
	const struct lec__yaml_entry *e = lec_rtd__take(cx->root, name);

	*out = NULL;
	if (e == NULL)
		return LEC_OK;
	*out = e->value;
	return lec_rtd__want_kind(cx, e->value, name, LEC__YAML_MAP);
}
