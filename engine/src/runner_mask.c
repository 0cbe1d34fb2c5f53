/*
 * Secrets masked in what a build records (lectern/runner.h): every byte of
 * each occurrence of a secret (a private environment variable's value, a
 * token in a URL) becomes '*', in one buffer or in a stream of chunks,
 * where an occurrence may straddle chunks, so the end of each is held back
 * until the next shows whether a secret goes on there. Kept apart from
 * running commands: it knows nothing of processes, and what a build
 * records goes through it whatever wrote it.
 */
#include <string.h>

#include "internal.h"
#include "lectern/runner.h"

static size_t longest_secret(const char *const *secrets)
{
	size_t longest = 0, i;

	for (i = 0; secrets && secrets[i]; i++) {
		size_t n = strlen(secrets[i]);

		if (n >= LEC_RUNNER_MASK_MIN_LEN && n > longest)
			longest = n;
	}
	return longest;
}

/*
 * Mask buf[0, scan): look for secrets starting at each position below scan
 * (they may end anywhere below len), and mask every byte up to the end of
 * the furthest occurrence seen so far. A byte is overwritten only after
 * every occurrence starting at or before it was looked for, so overlapping
 * occurrences are all found in the original text. mask_end is the end of
 * the furthest occurrence seen before buf; returns the new one.
 */
static size_t mask_scan(char *buf, size_t len, size_t scan,
			const char *const *secrets, size_t mask_end)
{
	size_t i, s;

	for (i = 0; i < scan; i++) {
		for (s = 0; secrets && secrets[s]; s++) {
			size_t n = strlen(secrets[s]);

			if (n >= LEC_RUNNER_MASK_MIN_LEN && n <= len - i &&
			    buf[i] == secrets[s][0] &&
			    memcmp(buf + i, secrets[s], n) == 0 &&
			    i + n > mask_end)
				mask_end = i + n;
		}
		if (i < mask_end)
			buf[i] = '*';
	}
	return mask_end;
}

void lec_runner_mask(char *buf, size_t len, const char *const *secrets)
{
	lec_error_clear();
	if (buf != NULL)
		mask_scan(buf, len, len, secrets, 0);
}

void lec_runner_masker_init(struct lec_runner_masker *m,
			    const char *const *secrets)
{
	lec_error_clear();
	memset(m, 0, sizeof(*m));
	m->secrets = secrets;
	m->keep = longest_secret(secrets);
	if (m->keep > 0)
		m->keep--;
}

int lec_runner_masker_feed(struct lec_runner_masker *m, const char *data,
			   size_t len, const char **out, size_t *out_len)
{
	size_t held = m->len - m->start, release;

	lec_error_clear();
	*out = "";
	*out_len = 0;
	if (held > 0)
		memmove(m->buf, m->buf + m->start, held);
	m->start = 0;
	m->len = held;
	if (held + len > m->cap) {
		size_t cap = held + len;
		char *grown = lec__realloc(m->buf, cap);

		if (grown == NULL)
			return lec__error_oom();
		m->buf = grown;
		m->cap = cap;
	}
	if (len > 0)
		memcpy(m->buf + held, data, len);
	m->len = held + len;
	/* A secret starting before `release` ends inside what we have. */
	release = m->len > m->keep ? m->len - m->keep : 0;
	m->pending = mask_scan(m->buf, m->len, release, m->secrets,
			       m->pending);
	m->pending = m->pending > release ? m->pending - release : 0;
	m->start = release;
	*out = m->buf;
	*out_len = release;
	return LEC_OK;
}

void lec_runner_masker_flush(struct lec_runner_masker *m, const char **out,
			     size_t *out_len)
{
	size_t held = m->len - m->start;

	lec_error_clear();
	*out = "";
	*out_len = held;
	if (held > 0) {
		mask_scan(m->buf + m->start, held, held, m->secrets,
			  m->pending);
		*out = m->buf + m->start;
	}
	m->start = m->len = m->pending = 0;
}

void lec_runner_masker_dispose(struct lec_runner_masker *m)
{
	if (m == NULL)
		return;
	lec__free(m->buf);
	m->buf = NULL;
	m->start = m->len = m->cap = m->pending = 0;
}
