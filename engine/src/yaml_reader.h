/*
 * The engine's YAML reader (yaml.c; the header is not yaml.h, which is
 * libyaml's): a file's first document as a small
 * tree that keeps the line of every key and value, its plain scalars typed
 * as PyYAML's safe_load types them (YAML 1.1), so that a check written
 * against the tree sees what the hosted service's parser sees. Every YAML
 * the engine reads goes through it: `.readthedocs.yaml` (rtdconfig.c), a
 * Markdown page's front matter (mdsite_meta.c) and mkdocs.yml's docs_dir
 * (build_steps.c).
 *
 * A read is strict or lenient. Strict is for a file whose problems the
 * writer is shown: it refuses what a configuration never needs and an
 * attacker could abuse (anchors, aliases, tags, duplicate keys, deep
 * nesting, a second document), each with a message
 *
 *     <name>:<line>: <dotted.key>: <problem>
 *
 * Lenient is for a file read for one or two of its values, written for
 * another program (MkDocs' `!!python/name:` tags, YAML anchors): it keeps
 * what it cannot use out of the tree instead of refusing it.
 */
#ifndef LECTERN_YAML_READER_H
#define LECTERN_YAML_READER_H

#include <stddef.h>

#include "internal.h"

/* A dotted key in a message ("python.install.0.extra_requirements"). */
#define LEC__YAML_PATH_MAX 256
/* Characters of a value quoted in a message; values can be long. */
#define LEC__YAML_SHOW_MAX 60
/* A problem text before the file name, line and key are added. */
#define LEC__YAML_PROBLEM_MAX 600

enum lec__yaml_kind {
	LEC__YAML_SCALAR,
	LEC__YAML_MAP,
	LEC__YAML_SEQ,
	LEC__YAML_ALIAS /* lenient reads only; text is NULL */
};

/* What a scalar means to the service's YAML 1.1 parser: a plain scalar is
 * typed by its text, a quoted or tagged one is a string. */
enum lec__yaml_type {
	LEC__YAML_STR,
	LEC__YAML_NULL,
	LEC__YAML_BOOL,
	LEC__YAML_INT,
	LEC__YAML_FLOAT,
	LEC__YAML_TIMESTAMP
};

struct lec__yaml_node;

/* A map's key/value pair, or a sequence item (key NULL). */
struct lec__yaml_entry {
	char *key;
	enum lec__yaml_type key_type;
	size_t line; /* of the key; of the item in a sequence */
	struct lec__yaml_node *value;
	int used; /* 0 from the reader; a check marks the keys it read */
};

struct lec__yaml_node {
	enum lec__yaml_kind kind;
	size_t line; /* 1-based */
	char *text;  /* scalars: the value, cut at a NUL in lenient reads */
	enum lec__yaml_type type;
	struct lec__yaml_entry *entries; /* maps and sequences, in file order */
	size_t len, cap;
};

/* How a read treats what a configuration never needs. */
struct lec__yaml_rules {
	const char *name; /* the file, in messages */
	/* 1: anchors, aliases, tags other than the plain ones, duplicate
	 * keys, keys that are maps or lists, NUL characters, bytes that are
	 * not UTF-8, nesting past depth_max and a second document are
	 * errors. 0: the first document is read; a pair whose key is not a
	 * scalar is left out, an alias is a LEC__YAML_ALIAS node, duplicate
	 * keys are all kept, in order. */
	int strict;
	/* Levels of nesting the tree holds (the top value is level 1). Past
	 * them a strict read fails; a lenient one keeps the collection
	 * empty, skipping what it holds without recursion. */
	int depth_max;
	size_t nodes_max; /* values in the tree; 0: no limit */
	size_t keys_max;  /* keys in one map; 0: no limit */
};

/* Read data (len bytes, no NUL needed) into *root, NULL when the stream has
 * no document. On an error *root still holds what was read before it (the
 * pairs and items completed), which a lenient reader may use; the caller
 * frees *root in either case. @return LEC_OK, LEC_EINVALID with the
 * message above, or LEC_ENOMEM. */
int lec__yaml_read(const char *data, size_t len,
		   const struct lec__yaml_rules *rules,
		   struct lec__yaml_node **root);
void lec__yaml_free(struct lec__yaml_node *n);

/* The first pair of key in map (not marked used); NULL when map is NULL or
 * not a map, or has no such key. */
const struct lec__yaml_entry *lec__yaml_find(const struct lec__yaml_node *map,
					     const char *key);

/* Values -------------------------------------------------------------------- */

/* The truth of a LEC__YAML_BOOL scalar's text ("yes", "On", "false"...). */
int lec__yaml_bool_value(const char *text);
/* The value of a LEC__YAML_INT scalar's text (signs, 0b, 0x, 0-octal, base
 * 60, '_' separators). @return LEC_OK, or LEC_ERROR (no message set) when
 * it does not fit a long long. */
int lec__yaml_int_value(const char *text, long long *out);

/* Messages ------------------------------------------------------------------ */

/* Record "<name>:<line>: <key>: <problem>" ("<name>:<line>: <problem>"
 * without a key) and return LEC_EINVALID. */
int lec__yaml_fail(const char *name, size_t line, const char *key,
		   const char *fmt, ...) LEC__PRINTF(4, 5);
/* Copy text for a message: at most max bytes, cut at a character, control
 * characters shown as '?', "..." when cut. */
void lec__yaml_show(char *dst, size_t size, const char *src, size_t max);
/* parent.child (child alone at the top), child cleaned for a message, into
 * buf of LEC__YAML_PATH_MAX bytes; "..." ends a path cut to fit. */
const char *lec__yaml_path(char *buf, const char *parent, const char *child);
/* parent.i, likewise. */
const char *lec__yaml_path_index(char *buf, const char *parent, size_t i);

#endif
