/*
 * The engine's YAML reader (yaml.h): libyaml's event API turned into a
 * small tree with the line of every key and value, its plain scalars typed
 * by PyYAML's implicit resolvers (YAML 1.1), which is what the hosted
 * service and MkDocs read YAML with. One reader for every YAML the engine
 * reads, so that a line number, a type or a refusal means the same in each.
 *
 * The tree is built by recursion, which the rules' depth bounds: a strict
 * read fails past it, a lenient one skips what lies deeper with a loop, so
 * a hostile page's "[[[[..." costs neither stack nor memory.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "yaml_reader.h"

/* Digits of an integer value: more cannot fit in a long long anyway. */
#define YAML_INT_DIGITS_MAX 72

/* The tree ------------------------------------------------------------------- */

void lec__yaml_free(struct lec__yaml_node *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->len; i++) {
		lec__free(n->entries[i].key);
		lec__yaml_free(n->entries[i].value);
	}
	lec__free(n->entries);
	lec__free(n->text);
	lec__free(n);
}

/* Append an entry; on failure the caller still owns key and value. */
static int node_add(struct lec__yaml_node *n, char *key,
		    enum lec__yaml_type key_type, size_t line,
		    struct lec__yaml_node *value)
{
	struct lec__yaml_entry *grown;
	size_t cap;

	if (n->len == n->cap) {
		cap = n->cap ? n->cap * 2 : 4;
		grown = lec__realloc(n->entries, cap * sizeof(*grown));
		if (grown == NULL)
			return lec__error_oom();
		n->entries = grown;
		n->cap = cap;
	}
	n->entries[n->len].key = key;
	n->entries[n->len].key_type = key_type;
	n->entries[n->len].line = line;
	n->entries[n->len].value = value;
	n->entries[n->len].used = 0;
	n->len++;
	return LEC_OK;
}

const struct lec__yaml_entry *lec__yaml_find(const struct lec__yaml_node *map,
					     const char *key)
{
	size_t i;

	if (map == NULL || map->kind != LEC__YAML_MAP)
		return NULL;
	for (i = 0; i < map->len; i++)
		if (strcmp(map->entries[i].key, key) == 0)
			return &map->entries[i];
	return NULL;
}

/* YAML 1.1 scalar types (PyYAML's implicit resolvers) ---------------------- */
static size_t span(const char *s, const char *set)
{
	return strspn(s, set);
}

/* Skip (":" [0-5]?[0-9])* at *s: how many groups, -1 for a malformed
 * one (*s is then left as it was). */
static int sexagesimal_groups(const char **s)
{
	const char *p = *s;
	int groups = 0;

	while (*p == ':') {
		p++;
		if (p[0] >= '0' && p[0] <= '5' && p[1] >= '0' && p[1] <= '9')
			p += 2;
		else if (p[0] >= '0' && p[0] <= '9')
			p++;
		else
			return -1;
		groups++;
	}
	*s = p;
	return groups;
}

/* (":" [0-5]?[0-9])+ to the end of s. */
static int sexagesimal_tail(const char *s)
{
	return sexagesimal_groups(&s) > 0 && *s == '\0';
}

static int is_int(const char *s)
{
	size_t n;

	if (*s == '-' || *s == '+')
		s++;
	if (s[0] == '0' && s[1] == 'b')
		return s[2] && s[2 + span(s + 2, "01_")] == '\0';
	if (s[0] == '0' && s[1] == 'x')
		return s[2] &&
		       s[2 + span(s + 2, "0123456789abcdefABCDEF_")] == '\0';
	if (s[0] == '0')
		return s[1] == '\0' || s[1 + span(s + 1, "01234567_")] == '\0';
	if (s[0] < '1' || s[0] > '9')
		return 0;
	n = span(s, "0123456789_");
	return s[n] == '\0' || sexagesimal_tail(s + n);
}

/* ([eE][-+][0-9]+)? to the end of s. */
static int exponent_tail(const char *s)
{
	if (*s == '\0')
		return 1;
	if ((s[0] != 'e' && s[0] != 'E') || (s[1] != '-' && s[1] != '+') ||
	    s[2] < '0' || s[2] > '9')
		return 0;
	return s[2 + span(s + 2, "0123456789")] == '\0';
}

static int is_float(const char *s)
{
	const char *p = s;
	size_t n;

	if (strcmp(s, ".nan") == 0 || strcmp(s, ".NaN") == 0 ||
	    strcmp(s, ".NAN") == 0)
		return 1;
	if (s[0] == '.' && s[1] >= '0' && s[1] <= '9')
		return exponent_tail(s + 1 + span(s + 1, "0123456789_"));
	if (*p == '-' || *p == '+')
		p++;
	if (strcmp(p, ".inf") == 0 || strcmp(p, ".Inf") == 0 ||
	    strcmp(p, ".INF") == 0)
		return 1;
	if (*p < '0' || *p > '9')
		return 0;
	n = span(p, "0123456789_");
	if (p[n] == '.')
		return exponent_tail(p + n + 1 +
				     span(p + n + 1, "0123456789_"));
	if (p[n] != ':')
		return 0;
	/* Sexagesimal with a fraction: 1:30.5 */
	p += n;
	if (sexagesimal_groups(&p) < 0)
		return 0;
	return *p == '.' && p[1 + span(p + 1, "0123456789_")] == '\0';
}

/* Between min and max digits; advances *p. */
static int digits(const char **p, int min, int max)
{
	int n = 0;

	while (n < max && (*p)[0] >= '0' && (*p)[0] <= '9') {
		(*p)++;
		n++;
	}
	return n >= min;
}

/* 2001-12-14, or a date-time such as 2001-12-14t21:59:43.10-05:00. */
static int is_timestamp(const char *s)
{
	const char *p = s;

	if (!digits(&p, 4, 4) || *p++ != '-')
		return 0;
	if (strlen(p) == 5 && p[0] >= '0' && p[0] <= '9' && p[1] >= '0' &&
	    p[1] <= '9' && p[2] == '-' && p[3] >= '0' && p[3] <= '9' &&
	    p[4] >= '0' && p[4] <= '9')
		return 1;
	if (!digits(&p, 1, 2) || *p++ != '-' || !digits(&p, 1, 2))
		return 0;
	if (*p == 'T' || *p == 't')
		p++;
	else if (*p == ' ' || *p == '\t')
		p += span(p, " \t");
	else
		return 0;
	if (!digits(&p, 1, 2) || *p++ != ':' || !digits(&p, 2, 2) ||
	    *p++ != ':' || !digits(&p, 2, 2))
		return 0;
	if (*p == '.')
		p += 1 + span(p + 1, "0123456789");
	p += span(p, " \t");
	if (*p == 'Z')
		return p[1] == '\0';
	if (*p == '-' || *p == '+') {
		p++;
		if (!digits(&p, 1, 2))
			return 0;
		if (*p == ':') {
			p++;
			if (!digits(&p, 2, 2))
				return 0;
		}
	}
	return *p == '\0';
}

static const char *const null_words[] = { "~", "null", "Null", "NULL" };
static const char *const true_words[] = { "yes",  "Yes", "YES", "true", "True",
					  "TRUE", "on",	 "On",	"ON" };
static const char *const false_words[] = { "no",    "No",    "NO",
					   "false", "False", "FALSE",
					   "off",   "Off",   "OFF" };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int one_of(const char *s, const char *const *words, size_t n)
{
	while (n-- > 0)
		if (strcmp(words[n], s) == 0)
			return 1;
	return 0;
}

int lec__yaml_bool_value(const char *text)
{
	return one_of(text, true_words, COUNT(true_words));
}

static enum lec__yaml_type resolve_plain(const char *s)
{
	if (*s == '\0' || one_of(s, null_words, COUNT(null_words)))
		return LEC__YAML_NULL;
	if (one_of(s, true_words, COUNT(true_words)) ||
	    one_of(s, false_words, COUNT(false_words)))
		return LEC__YAML_BOOL;
	if (is_int(s))
		return LEC__YAML_INT;
	if (is_float(s))
		return LEC__YAML_FLOAT;
	if (is_timestamp(s))
		return LEC__YAML_TIMESTAMP;
	return LEC__YAML_STR;
}

int lec__yaml_int_value(const char *text, long long *out)
{
	char buf[YAML_INT_DIGITS_MAX];
	const char *p = text, *start;
	char *part, *end;
	size_t n = 0;
	long long v = 0, piece;
	int neg = 0, base = 10;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (; *p; p++) {
		if (*p == '_')
			continue;
		if (n + 1 >= sizeof(buf))
			return LEC_ERROR;
		buf[n++] = *p;
	}
	buf[n] = '\0';
	start = buf;
	if (strchr(buf, ':') == NULL) {
		if (buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'x')) {
			base = buf[1] == 'b' ? 2 : 16;
			start = buf + 2;
		} else if (buf[0] == '0' && buf[1]) {
			base = 8;
		}
		errno = 0;
		v = strtoll(start, &end, base);
		if (errno || end == start || *end)
			return LEC_ERROR;
	} else {
		for (part = buf; part; part = end ? end + 1 : NULL) {
			end = strchr(part, ':');
			if (end)
				*end = '\0';
			errno = 0;
			piece = strtoll(part, NULL, 10);
			if (errno || v > (LLONG_MAX - piece) / 60)
				return LEC_ERROR;
			v = v * 60 + piece;
		}
	}
	*out = neg ? -v : v;
	return LEC_OK;
}

/* Messages ------------------------------------------------------------------- */

void lec__yaml_show(char *dst, size_t size, const char *src, size_t max)
{
	size_t n = strlen(src), i;
	int cut;

	if (size < 4) {
		dst[0] = '\0';
		return;
	}
	if (max > size - 4)
		max = size - 4;
	if ((cut = n > max)) {
		n = max;
		while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
			n--;
	}
	for (i = 0; i < n; i++)
		dst[i] = ((unsigned char)src[i] < 0x20 || src[i] == 0x7f)
				 ? '?'
				 : src[i];
	dst[n] = '\0';
	if (cut && size > n + 3)
		memcpy(dst + n, "...", 4);
}

/* A key path longer than LEC__YAML_PATH_MAX ends in "..." (it is only
 * shown). */
static const char *mark_cut(char *buf, int written)
{
	if (written >= LEC__YAML_PATH_MAX)
		memcpy(buf + LEC__YAML_PATH_MAX - 4, "...", 4);
	return buf;
}

const char *lec__yaml_path(char *buf, const char *parent, const char *child)
{
	char clean[LEC__YAML_SHOW_MAX + 8];

	lec__yaml_show(clean, sizeof(clean), child, LEC__YAML_SHOW_MAX);
	return mark_cut(buf, snprintf(buf, LEC__YAML_PATH_MAX, "%s%s%s", parent,
				      *parent ? "." : "", clean));
}

const char *lec__yaml_path_index(char *buf, const char *parent, size_t i)
{
	return mark_cut(buf,
			snprintf(buf, LEC__YAML_PATH_MAX, "%s.%zu", parent, i));
}

int lec__yaml_fail(const char *name, size_t line, const char *key,
		   const char *fmt, ...)
{
	char problem[LEC__YAML_PROBLEM_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(problem, sizeof(problem), fmt, ap);
	va_end(ap);
	if (key && *key)
		return lec__error(LEC_EINVALID, "%s:%zu: %s: %s", name, line,
				  key, problem);
	return lec__error(LEC_EINVALID, "%s:%zu: %s", name, line, problem);
}

/* Reading -------------------------------------------------------------------- */

struct reader {
	const struct lec__yaml_rules *rules;
	const char *data; /* the file, for the line of a reader error */
	size_t len;
	size_t nodes;
	yaml_parser_t parser;
};

#define FAIL(rd, ...) lec__yaml_fail((rd)->rules->name, __VA_ARGS__)

static size_t line_at(const char *data, size_t len, size_t offset)
{
	size_t line = 1, i;

	for (i = 0; i < offset && i < len; i++)
		line += data[i] == '\n';
	return line;
}

static int next_event(struct reader *rd, yaml_event_t *ev)
{
	const yaml_parser_t *p = &rd->parser;
	size_t line;

	if (yaml_parser_parse(&rd->parser, ev))
		return LEC_OK;
	if (p->error == YAML_MEMORY_ERROR)
		return lec__error_oom();
	line = p->error == YAML_READER_ERROR
		       ? line_at(rd->data, rd->len, p->problem_offset)
		       : p->problem_mark.line + 1;
	return FAIL(rd, line, NULL, "invalid YAML: %s%s%s%s",
		    p->problem ? p->problem : "syntax error",
		    p->context ? " (" : "", p->context ? p->context : "",
		    p->context ? ")" : "");
}

static struct lec__yaml_node *node_new(struct reader *rd,
				       enum lec__yaml_kind kind, size_t line,
				       const char *key)
{
	struct lec__yaml_node *n;

	if (rd->rules->nodes_max && ++rd->nodes > rd->rules->nodes_max) {
		FAIL(rd, line, key, "too many values (more than %zu)",
		     rd->rules->nodes_max);
		return NULL;
	}
	if ((n = lec__calloc(1, sizeof(*n))) == NULL) {
		lec__error_oom();
		return NULL;
	}
	n->kind = kind;
	n->line = line;
	return n;
}

/* Anchors, and tags other than the plain ones, have no use in a strict
 * read. */
static int check_props(struct reader *rd, size_t line, const char *key,
		       const yaml_char_t *anchor, const yaml_char_t *tag,
		       const char *plain_tag)
{
	const char *t = (const char *)tag;

	if (!rd->rules->strict)
		return LEC_OK;
	if (anchor)
		return FAIL(rd, line, key,
			    "anchors and aliases are not supported");
	if (t && strcmp(t, "!") != 0 && strcmp(t, plain_tag) != 0)
		return FAIL(rd, line, key, "the YAML tag %s is not supported",
			    t);
	return LEC_OK;
}

static int read_scalar(struct reader *rd, const yaml_event_t *ev,
		       const char *key, struct lec__yaml_node **out)
{
	size_t line = ev->start_mark.line + 1;
	const char *value = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	struct lec__yaml_node *n;
	int rc;

	if ((rc = check_props(rd, line, key, ev->data.scalar.anchor,
			      ev->data.scalar.tag, YAML_STR_TAG)) < 0)
		return rc;
	if (rd->rules->strict && memchr(value, '\0', len))
		return FAIL(rd, line, key, "a value contains a NUL character");
	if ((n = node_new(rd, LEC__YAML_SCALAR, line, key)) == NULL)
		return lec_error_last_code();
	if ((n->text = lec__strndup(value, len)) == NULL) {
		lec__yaml_free(n);
		return lec__error_oom();
	}
	n->type = ev->data.scalar.tag == NULL && ev->data.scalar.style ==
							 YAML_PLAIN_SCALAR_STYLE
			  ? resolve_plain(n->text)
			  : LEC__YAML_STR;
	*out = n;
	return LEC_OK;
}

static int read_value(struct reader *rd, yaml_event_t *ev, int depth,
		      const char *key, struct lec__yaml_node **out);

/* The next event of a collection into *ev: 1 for an item's, 0 at the
 * collection's end (the event, end, already let go), < 0 an error. */
static int next_item(struct reader *rd, yaml_event_t *ev,
		     yaml_event_type_t end)
{
	int rc = next_event(rd, ev);

	if (rc < 0)
		return rc;
	if (ev->type != end)
		return 1;
	yaml_event_delete(ev);
	return 0;
}

static int read_sequence(struct reader *rd, struct lec__yaml_node *seq,
			 int depth, const char *key)
{
	char child[LEC__YAML_PATH_MAX];
	struct lec__yaml_node *value;
	yaml_event_t ev;
	int rc;

	while ((rc = next_item(rd, &ev, YAML_SEQUENCE_END_EVENT)) > 0) {
		lec__yaml_path_index(child, key, seq->len);
		if ((rc = read_value(rd, &ev, depth + 1, child, &value)) < 0 ||
		    (rc = node_add(seq, NULL, LEC__YAML_STR, value->line,
				   value)) < 0) {
			lec__yaml_free(value);
			return rc;
		}
	}
	return rc;
}

/* A map key: a scalar, unique in its map in a strict read. *key stays NULL
 * for a key a lenient read leaves out (a map, a list or an alias), which
 * ev is read as. */
static int read_key(struct reader *rd, const struct lec__yaml_node *map,
		    yaml_event_t *ev, int depth, const char *parent, char **key,
		    enum lec__yaml_type *type)
{
	char path[LEC__YAML_PATH_MAX];
	size_t line = ev->start_mark.line + 1, i;
	struct lec__yaml_node *n = NULL;
	int rc = LEC_OK;

	*key = NULL;
	if (ev->type != YAML_SCALAR_EVENT && !rd->rules->strict) {
		rc = read_value(rd, ev, depth + 1, parent, &n);
		lec__yaml_free(n);
		return rc;
	}
	if (ev->type != YAML_SCALAR_EVENT)
		rc = ev->type == YAML_ALIAS_EVENT
			     ? FAIL(rd, line, parent,
				    "anchors and aliases are not supported")
			     : FAIL(rd, line, parent,
				    "a key must be a plain value, not a map "
				    "or a list");
	else
		rc = read_scalar(rd, ev, parent, &n);
	yaml_event_delete(ev);
	if (rc < 0)
		return rc;
	lec__yaml_path(path, parent, n->text);
	for (i = 0; rd->rules->strict && i < map->len && rc == LEC_OK; i++)
		if (strcmp(map->entries[i].key, n->text) == 0)
			rc = FAIL(rd, line, path,
				  "duplicate key (first on line %zu)",
				  map->entries[i].line);
	if (rc == LEC_OK && rd->rules->keys_max &&
	    map->len >= rd->rules->keys_max)
		rc = FAIL(rd, line, parent, "too many keys (more than %zu)",
			  rd->rules->keys_max);
	if (rc == LEC_OK) {
		*key = n->text;
		*type = n->type;
		n->text = NULL;
	}
	lec__yaml_free(n);
	return rc;
}

static int read_mapping(struct reader *rd, struct lec__yaml_node *map,
			int depth, const char *parent)
{
	char path[LEC__YAML_PATH_MAX];
	struct lec__yaml_node *value;
	enum lec__yaml_type type = LEC__YAML_STR;
	yaml_event_t ev;
	size_t line;
	char *key;
	int rc;

	while ((rc = next_item(rd, &ev, YAML_MAPPING_END_EVENT)) > 0) {
		line = ev.start_mark.line + 1;
		if ((rc = read_key(rd, map, &ev, depth, parent, &key, &type)) <
		    0)
			return rc;
		lec__yaml_path(path, parent, key ? key : "?");
		value = NULL;
		if ((rc = next_event(rd, &ev)) < 0 ||
		    (rc = read_value(rd, &ev, depth + 1, path, &value)) < 0 ||
		    (key && (rc = node_add(map, key, type, line, value)) < 0)) {
			lec__free(key);
			lec__yaml_free(value);
			return rc;
		}
		if (key == NULL)
			lec__yaml_free(value);
	}
	return rc;
}

/* Drop the rest of a collection whose start was read, however deep. */
static int skip_collection(struct reader *rd)
{
	yaml_event_t ev;
	size_t open = 1;
	int rc;

	while (open > 0) {
		if ((rc = next_event(rd, &ev)) < 0)
			return rc;
		if (ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT)
			open++;
		else if (ev.type == YAML_SEQUENCE_END_EVENT ||
			 ev.type == YAML_MAPPING_END_EVENT)
			open--;
		yaml_event_delete(&ev);
	}
	return LEC_OK;
}

/* A map or a list: its contents, or none past the depth of a lenient read. */
static int read_collection(struct reader *rd, const yaml_event_t *ev, int depth,
			   const char *key, struct lec__yaml_node **out)
{
	int map = ev->type == YAML_MAPPING_START_EVENT;
	size_t line = ev->start_mark.line + 1;
	int rc;

	rc = map ? check_props(rd, line, key, ev->data.mapping_start.anchor,
			       ev->data.mapping_start.tag, YAML_MAP_TAG)
		 : check_props(rd, line, key, ev->data.sequence_start.anchor,
			       ev->data.sequence_start.tag, YAML_SEQ_TAG);
	if (rc < 0)
		return rc;
	if ((*out = node_new(rd, map ? LEC__YAML_MAP : LEC__YAML_SEQ, line,
			     key)) == NULL)
		return lec_error_last_code();
	if (depth > rd->rules->depth_max)
		return skip_collection(rd);
	return map ? read_mapping(rd, *out, depth, key)
		   : read_sequence(rd, *out, depth, key);
}

/* Read the node ev starts (ev is consumed) into *out, which holds what was
 * read of it even on an error. */
static int read_value(struct reader *rd, yaml_event_t *ev, int depth,
		      const char *key, struct lec__yaml_node **out)
{
	size_t line = ev->start_mark.line + 1;
	int rc;

	*out = NULL;
	if (depth > rd->rules->depth_max && rd->rules->strict)
		rc = FAIL(rd, line, key,
			  "nested too deeply (more than %d "
			  "levels)",
			  rd->rules->depth_max);
	else if (ev->type == YAML_SCALAR_EVENT)
		rc = read_scalar(rd, ev, key, out);
	else if (ev->type == YAML_SEQUENCE_START_EVENT ||
		 ev->type == YAML_MAPPING_START_EVENT)
		rc = read_collection(rd, ev, depth, key, out);
	else if (ev->type == YAML_ALIAS_EVENT && !rd->rules->strict)
		rc = (*out = node_new(rd, LEC__YAML_ALIAS, line, key))
			     ? LEC_OK
			     : lec_error_last_code();
	else if (ev->type == YAML_ALIAS_EVENT)
		rc = FAIL(rd, line, key,
			  "anchors and aliases are not "
			  "supported");
	else
		rc = FAIL(rd, line, key, "invalid YAML");
	yaml_event_delete(ev);
	return rc;
}

/* Expect an event of one type and drop it. */
static int skip_event(struct reader *rd, yaml_event_type_t type,
		      const char *problem)
{
	yaml_event_t ev;
	size_t line;
	int rc;

	if ((rc = next_event(rd, &ev)) < 0)
		return rc;
	line = ev.start_mark.line + 1;
	rc = ev.type == type ? LEC_OK : FAIL(rd, line, NULL, "%s", problem);
	yaml_event_delete(&ev);
	return rc;
}

/* The stream's first document, and in a strict read its only one. */
static int read_document(struct reader *rd, struct lec__yaml_node **root)
{
	yaml_event_t ev;
	int rc;

	if ((rc = skip_event(rd, YAML_STREAM_START_EVENT, "invalid YAML")) < 0)
		return rc;
	if ((rc = next_event(rd, &ev)) < 0)
		return rc;
	if (ev.type != YAML_DOCUMENT_START_EVENT) {
		yaml_event_delete(&ev);
		return LEC_OK;
	}
	yaml_event_delete(&ev);
	if ((rc = next_event(rd, &ev)) < 0 ||
	    (rc = read_value(rd, &ev, 1, "", root)) < 0 ||
	    (rc = skip_event(rd, YAML_DOCUMENT_END_EVENT, "invalid YAML")) < 0)
		return rc;
	if (!rd->rules->strict)
		return LEC_OK;
	return skip_event(rd, YAML_STREAM_END_EVENT,
			  "the file holds more than one YAML document");
}

/* Offset of the first byte that is not UTF-8 (overlong forms, surrogates
 * and code points past U+10FFFF included), or len. */
static size_t utf8_invalid_at(const unsigned char *s, size_t len)
{
	size_t i = 0, need, k;
	unsigned cp, min;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xE0) == 0xC0) {
			need = 1, cp = s[i] & 0x1F, min = 0x80;
		} else if ((s[i] & 0xF0) == 0xE0) {
			need = 2, cp = s[i] & 0x0F, min = 0x800;
		} else if ((s[i] & 0xF8) == 0xF0) {
			need = 3, cp = s[i] & 0x07, min = 0x10000;
		} else {
			return i;
		}
		for (k = 1; k <= need; k++) {
			if (i + k >= len || (s[i + k] & 0xC0) != 0x80)
				return i;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return i;
		i += need + 1;
	}
	return len;
}

int lec__yaml_read(const char *data, size_t len,
		   const struct lec__yaml_rules *rules,
		   struct lec__yaml_node **root)
{
	struct reader rd;
	size_t bad;
	int rc;

	*root = NULL;
	memset(&rd, 0, sizeof(rd));
	rd.rules = rules;
	rd.data = data;
	rd.len = len;
	bad = rules->strict ? utf8_invalid_at((const unsigned char *)data, len)
			    : len;
	if (bad < len)
		return FAIL(&rd, line_at(data, len, bad), NULL,
			    "the file is not valid UTF-8");
	if (!yaml_parser_initialize(&rd.parser))
		return lec__error_oom();
	yaml_parser_set_input_string(&rd.parser, (const unsigned char *)data,
				     len);
	rc = read_document(&rd, root);
	yaml_parser_delete(&rd.parser);
	return rc;
}
