/*
 * Cache keys (job.h): what a cache kept between builds depends on, and
 * why it cannot be used. A key is a list of named parts, each a file's
 * SHA-256 ("docs/conf.py changed" when it differs) or a version ("Sphinx
 * 5.3.0 → 7.2.6"); the key a cache was made with is kept in a small file
 * of the engine's own, beside the version's tree, where no build writes.
 * A cache is used only when every part is unchanged; otherwise the first
 * part that differs is the reason the build records.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "job.h"

/* A key file is a few lines. */
#define KEY_FILE_MAX 8192
/* Largest file hashed whole into a key; a larger one hashes its size and
 * time only (a configuration or requirements file is never that big). */
#define KEY_FILE_HASH_MAX ((size_t)16 * 1024 * 1024)

void lec__cache_key_text(struct lec__cache_key *key, const char *label,
			 const char *value, int version)
{
	struct lec__cache_part *p;

	if (key->n == LEC__CACHE_KEY_PARTS)
		return;
	p = &key->parts[key->n++];
	p->version = version;
	snprintf(p->label, sizeof(p->label), "%s", label);
	snprintf(p->value, sizeof(p->value), "%s", value ? value : "-");
}

void lec__cache_key_file(struct lec__cache_key *key, const char *dir,
			 const char *rel)
{
	struct lec__cache_part *p;
	char *data = NULL;
	size_t len = 0;

	if (key->n == LEC__CACHE_KEY_PARTS)
		return;
	p = &key->parts[key->n++];
	p->version = 0;
	snprintf(p->label, sizeof(p->label), "%s", rel);
	/* Absent, unreadable or not a file: a value of its own. */
	if (lec__read_in(dir, rel, KEY_FILE_HASH_MAX, &data, &len) < 0) {
		snprintf(p->value, sizeof(p->value), "absent");
		lec_error_clear();
	} else if (lec__sha256_hex(data, len, p->value) < 0) {
		snprintf(p->value, sizeof(p->value), "unhashed");
	}
	lec__free(data);
}

/* Parse "label\tV|F\tvalue\n" lines. */
static int key_parse(struct lec__cache_key *key, char *text)
{
	char *line, *save = NULL;

	memset(key, 0, sizeof(*key));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *kind = strchr(line, '\t'), *value;

		if (kind == NULL || (value = strchr(kind + 1, '\t')) == NULL ||
		    key->n == LEC__CACHE_KEY_PARTS)
			return LEC_ECORRUPT;
		*kind++ = '\0';
		*value++ = '\0';
		snprintf(key->parts[key->n].label,
			 sizeof(key->parts[key->n].label), "%s", line);
		snprintf(key->parts[key->n].value,
			 sizeof(key->parts[key->n].value), "%s", value);
		key->parts[key->n++].version = *kind == 'V';
	}
	return LEC_OK;
}

int lec__cache_key_same(const struct lec__cache_key *was,
			const struct lec__cache_key *now, char *reason,
			size_t cap)
{
	size_t i;

	for (i = 0; i < now->n; i++) {
		const struct lec__cache_part *p = &now->parts[i];
		const struct lec__cache_part *q = i < was->n ? &was->parts[i]
							     : NULL;

		if (q && strcmp(q->label, p->label) == 0 &&
		    strcmp(q->value, p->value) == 0)
			continue;
		if (q && p->version && strcmp(q->label, p->label) == 0)
			snprintf(reason, cap, "%s %s → %s", p->label, q->value,
				 p->value);
		else
			snprintf(reason, cap, "%s changed", p->label);
		return 0;
	}
	if (was->n != now->n) {
		snprintf(reason, cap, "what it depends on changed");
		return 0;
	}
	return 1;
}

int lec__cache_key_check(const struct lec__cache_key *key, const char *path,
			 char *reason, size_t cap)
{
	struct lec__cache_key kept;
	char *dir = lec__strdup(path), *name, *text = NULL;
	size_t len;
	int same = 0;

	snprintf(reason, cap, "no earlier build to reuse");
	if (dir == NULL || (name = strrchr(dir, '/')) == NULL) {
		lec__free(dir);
		return 0;
	}
	*name++ = '\0';
	if (lec__read_in(dir, name, KEY_FILE_MAX, &text, &len) < 0)
		lec_error_clear();
	else if (key_parse(&kept, text) < 0)
		snprintf(reason, cap, "its record was damaged");
	else
		same = lec__cache_key_same(&kept, key, reason, cap);
	lec__free(text);
	lec__free(dir);
	return same;
}

int lec__cache_key_save(const struct lec__cache_key *key, const char *path)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *text, *tmp;
	size_t i, len;
	int fd, error = LEC_OK;

	for (i = 0; i < key->n; i++)
		lec__buf_printf(&b, "%s\t%c\t%s\n", key->parts[i].label,
				key->parts[i].version ? 'V' : 'F',
				key->parts[i].value);
	len = b.len;
	if ((text = lec__buf_take(&b)) == NULL)
		return lec__error_oom();
	lec__buf_printf(&b, "%s.tmp", path);
	if ((tmp = lec__buf_take(&b)) == NULL) {
		lec__free(text);
		return lec__error_oom();
	}
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len ||
	    rename(tmp, path) != 0) {
		error = lec__error(LEC_EIO, "cannot record a cache key: %s",
				   strerror(errno));
		unlink(tmp);
	}
	if (fd >= 0)
		close(fd);
	lec__free(tmp);
	lec__free(text);
	return error;
}

void lec__cache_key_forget(const char *path)
{
	unlink(path);
}
