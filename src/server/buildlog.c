/*
 * A response body holding build logs (buildlog.h): a list of pieces, text
 * and commands' outputs, written in turn. An output is read from the
 * store SRV_BUILDLOG_CHUNK bytes at a time (lec_build_command_read), and
 * a slice of those at a time is cleaned (NUL bytes out, U+FFFD for what
 * is not UTF-8) and, in JSON, escaped, so that what a body holds at once
 * is a chunk and a slice, whatever the log's size. A character split by a
 * chunk's or a slice's end waits for the rest of its bytes: each is
 * cleaned and escaped whole, and the bytes are those of the whole output
 * cleaned and escaped at once (v2's, before logs were sent as read).
 *
 * Sent as it is read, the body reads after its request's snapshot has
 * ended, each chunk in a snapshot of its own. An output's first bytes
 * never change while its command runs (output is only appended), so
 * reading only the size a listing gave keeps the body what the request
 * saw; an output gone since (its build reset or deleted) ends there, and
 * the document around it stays whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildlog.h"
#include "cache.h"
#include "text.h"

/* Output bytes cleaned and escaped at a time: a slice makes at most 6
 * bytes of each (a control character's \u00xx; what is not UTF-8 becomes
 * 3 bytes, which JSON leaves as they are). */
#define SLICE 4096
#define SLICE_CLEAN (SLICE * 3)
#define SLICE_OUT (SLICE * 6)

/* The JSON raw value standing for an output. */
#define MARK '\x01'

/* Bytes drained at a time into a small body's text. */
#define DRAIN 16384

struct piece {
	char *text;  /* owned; NULL: an output */
	size_t len;
	/* An output: the command (its id, build, start and size only), and
	 * whether it is written as a JSON string. */
	struct lec_build_command cmd;
	int json;
};

struct srv_buildlog {
	struct lec_store *store;
	struct piece *pieces;
	size_t n, cap;
	/* Outputs of a JSON document's raw values, in order. */
	struct lec_build_command *marks;
	size_t nmarks, marks_cap;
	size_t output_bytes; /* the outputs' sizes, all together */
	size_t largest;      /* the largest output's */
	int failed;          /* out of memory, or the store failed */
	/* Writing: the piece at hand and how far it is written (text) or
	 * read (an output); an output's opening quote is written. */
	size_t at, done;
	int opened;
	/* One allocation, made for the first output written: an output's
	 * bytes read (chunk_len of chunk_cap) and cleaned (chunk_pos), a
	 * slice of them cleaned, and what waits to be sent (out). */
	char *chunk, *clean, *out;
	size_t chunk_cap, chunk_len, chunk_pos;
	size_t out_len, out_pos;
};

struct srv_buildlog *srv_buildlog_new(struct lec_store *store)
{
	struct srv_buildlog *log = calloc(1, sizeof(*log));

	if (log)
		log->store = store;
	return log;
}

void srv_buildlog_free(struct srv_buildlog *log)
{
	size_t i;

	if (log == NULL)
		return;
	for (i = 0; i < log->n; i++)
		free(log->pieces[i].text);
	free(log->pieces);
	free(log->marks);
	free(log->chunk);
	free(log);
}

/* Building ------------------------------------------------------------- */

/* Room for one more item in a growing array. */
static int grow(void **items, size_t *cap, size_t n, size_t size)
{
	size_t more = *cap ? *cap * 2 : 16;
	void *grown;

	if (n < *cap)
		return 0;
	if ((grown = realloc(*items, more * size)) == NULL)
		return -1;
	*items = grown;
	*cap = more;
	return 0;
}

/* What names an output, and nothing of its command's text. */
static struct lec_build_command output_of(const struct lec_build_command *c)
{
	struct lec_build_command o;

	memset(&o, 0, sizeof(o));
	o.id = c->id;
	o.build_id = c->build_id;
	o.start_time = c->start_time;
	o.output_len = c->output_len;
	return o;
}

static struct piece *add_piece(struct srv_buildlog *log)
{
	struct piece *p;

	if (log->failed || grow((void **)&log->pieces, &log->cap, log->n,
				sizeof(*log->pieces)) < 0) {
		log->failed = 1;
		return NULL;
	}
	p = &log->pieces[log->n++];
	memset(p, 0, sizeof(*p));
	return p;
}

void srv_buildlog_text(struct srv_buildlog *log, const char *s, size_t n)
{
	struct piece *p;

	if (n == 0 || (p = add_piece(log)) == NULL)
		return;
	if ((p->text = malloc(n)) == NULL) {
		log->n--;
		log->failed = 1;
		return;
	}
	memcpy(p->text, s, n);
	p->len = n;
}

void srv_buildlog_puts(struct srv_buildlog *log, const char *s)
{
	srv_buildlog_text(log, s, strlen(s));
}

static void add_output(struct srv_buildlog *log,
		       const struct lec_build_command *c, int json)
{
	struct piece *p = add_piece(log);

	if (p == NULL)
		return;
	p->cmd = output_of(c);
	p->json = json;
	log->output_bytes += c->output_len;
	if (c->output_len > log->largest)
		log->largest = c->output_len;
}

void srv_buildlog_output(struct srv_buildlog *log,
			 const struct lec_build_command *c)
{
	add_output(log, c, 0);
}

cJSON *srv_buildlog_json_output(struct srv_buildlog *log,
				const struct lec_build_command *c)
{
	static const char mark[] = { MARK, '\0' };

	if (log->failed || grow((void **)&log->marks, &log->marks_cap,
				log->nmarks, sizeof(*log->marks)) < 0) {
		log->failed = 1;
		return NULL;
	}
	log->marks[log->nmarks++] = output_of(c);
	return cJSON_CreateRaw(mark);
}

/* The printed document in pieces: the text between raw values, and the
 * outputs they stand for. A raw value lost (out of memory in the tree)
 * leaves outputs without a place: a failure. */
static void split_json(struct srv_buildlog *log, const char *json,
		       size_t len)
{
	const char *at = json, *end = json + len, *mark;
	size_t k = 0;

	while ((mark = memchr(at, MARK, (size_t)(end - at))) != NULL) {
		srv_buildlog_text(log, at, (size_t)(mark - at));
		if (k == log->nmarks) {
			log->failed = 1;
			return;
		}
		add_output(log, &log->marks[k++], 1);
		at = mark + 1;
	}
	srv_buildlog_text(log, at, (size_t)(end - at));
	if (k != log->nmarks)
		log->failed = 1;
}

/* Writing ---------------------------------------------------------------- */

/* Bytes of the UTF-8 character a lead byte starts, as far as deciding it
 * goes: 1 for anything that cannot start one of several bytes. */
static size_t lead_length(unsigned char c)
{
	if (c >= 0xC2 && c <= 0xDF)
		return 2;
	if (c >= 0xE0 && c <= 0xEF)
		return 3;
	if (c >= 0xF0 && c <= 0xF4)
		return 4;
	return 1;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
	size_t len = lead_length(s[0]), i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (len == 1 || len > n)
		return 0;
	cp = s[0] & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return len;
}

/* n bytes of output as the service shows them, into out (3 * n bytes at
 * most): NUL bytes removed, bytes that are not UTF-8 as U+FFFD. With
 * more (bytes follow), a character s ends inside of is left for the next
 * call. Returns the bytes of s taken; *len, the bytes written. */
static size_t clean(const unsigned char *s, size_t n, int more, char *out,
		    size_t *len)
{
	size_t i = 0, j = 0, k;

	while (i < n) {
		if (more && lead_length(s[i]) > n - i)
			break;
		k = s[i] ? utf8_sequence(s + i, n - i) : 1;
		if (s[i] == 0) {
			i++;
		} else if (k == 0) {
			memcpy(out + j, "\xEF\xBF\xBD", 3);
			j += 3;
			i++;
		} else {
			memcpy(out + j, s + i, k);
			j += k;
			i += k;
		}
	}
	*len = j;
	return i;
}

static void next_piece(struct srv_buildlog *log)
{
	log->at++;
	log->done = 0;
	log->opened = 0;
	log->chunk_len = log->chunk_pos = 0;
}

/* The next chunk of p's output after what is left of the last (a
 * character's first bytes). An output gone, or shorter than its listing
 * said, ends where it stops. */
static void refill(struct srv_buildlog *log, struct piece *p)
{
	size_t carry = log->chunk_len - log->chunk_pos, got = 0, want;
	int rc;

	memmove(log->chunk, log->chunk + log->chunk_pos, carry);
	log->chunk_pos = 0;
	log->chunk_len = carry;
	want = p->cmd.output_len - log->done;
	if (want > log->chunk_cap - carry)
		want = log->chunk_cap - carry;
	rc = lec_build_command_read(log->store, &p->cmd, log->done,
				    log->chunk + carry, want, &got);
	if (rc == LEC_OK && got > 0) {
		log->done += got;
		log->chunk_len += got;
	} else if (rc == LEC_OK || rc == LEC_ENOTFOUND) {
		log->done = p->cmd.output_len;
	} else {
		log->failed = 1;
	}
}

/* The buffers, for the first output: a chunk no larger than the largest
 * output needs (and room for a character's first bytes carried over). */
static int buffers(struct srv_buildlog *log)
{
	size_t cap = log->largest + 4;

	if (log->chunk)
		return 0;
	if (cap > SRV_BUILDLOG_CHUNK)
		cap = SRV_BUILDLOG_CHUNK;
	if ((log->chunk = malloc(cap + SLICE_CLEAN + SLICE_OUT)) == NULL) {
		log->failed = 1;
		return -1;
	}
	log->chunk_cap = cap;
	log->clean = log->chunk + cap;
	log->out = log->clean + SLICE_CLEAN;
	return 0;
}

/* The next bytes of output piece p into out: its opening quote, a slice,
 * or its closing quote and the next piece. */
static void write_output(struct srv_buildlog *log, struct piece *p)
{
	size_t take, used, len = 0;
	int more;

	if (buffers(log) < 0)
		return;
	if (p->json && !log->opened) {
		log->out[log->out_len++] = '"';
		log->opened = 1;
		return;
	}
	/* Enough bytes at hand to decide a character, or the last ones. */
	if (log->chunk_len - log->chunk_pos < 4 &&
	    log->done < p->cmd.output_len)
		refill(log, p);
	if (log->failed)
		return;
	if (log->chunk_pos == log->chunk_len) {
		if (p->json)
			log->out[log->out_len++] = '"';
		next_piece(log);
		return;
	}
	take = log->chunk_len - log->chunk_pos;
	if (take > SLICE)
		take = SLICE;
	more = log->chunk_pos + take < log->chunk_len ||
	       log->done < p->cmd.output_len;
	used = clean((const unsigned char *)log->chunk + log->chunk_pos, take,
		     more, p->json ? log->clean : log->out, &len);
	log->chunk_pos += used;
	log->out_len = p->json ? srv_json_escape(log->out, log->clean, len)
			       : len;
}

/* Up to max bytes of what comes next; 0 at the end, -1 on a failure. */
static long log_read(void *state, char *buf, size_t max)
{
	struct srv_buildlog *log = state;
	struct piece *p;
	size_t n = 0, k;

	while (n < max && !log->failed) {
		if (log->out_pos < log->out_len) {
			k = log->out_len - log->out_pos;
			k = k < max - n ? k : max - n;
			memcpy(buf + n, log->out + log->out_pos, k);
			log->out_pos += k;
			n += k;
			continue;
		}
		log->out_len = log->out_pos = 0;
		if (log->at == log->n)
			break;
		p = &log->pieces[log->at];
		if (p->text == NULL) {
			write_output(log, p);
			continue;
		}
		k = p->len - log->done < max - n ? p->len - log->done : max - n;
		memcpy(buf + n, p->text + log->done, k);
		n += k;
		if ((log->done += k) == p->len)
			next_piece(log);
	}
	return log->failed ? -1 : (long)n;
}

static void log_done(void *state)
{
	srv_buildlog_free(state);
}

/* Answering -------------------------------------------------------------- */

/* A small body: the whole of it, read now, in the request's snapshot.
 * NULL after a failure. */
static char *drain(struct srv_buildlog *log, size_t *len)
{
	struct srv_text t = { 0 };
	char buf[DRAIN];
	long n;

	while ((n = log_read(log, buf, sizeof(buf))) > 0)
		srv_text_put(&t, buf, (size_t)n);
	if (n < 0) {
		srv_text_dispose(&t);
		return NULL;
	}
	return srv_text_take(&t, len);
}

/* The entity tag of a body sent as it is read: a hash of its text and of
 * what names each output's bytes (command, build, start, size), which
 * fix them, outputs being only appended to. */
static void tag(const struct srv_buildlog *log, char *etag, size_t cap)
{
	uint64_t h = 0;
	size_t i;

	for (i = 0; i < log->n; i++) {
		const struct piece *p = &log->pieces[i];
		int64_t names[4] = { p->cmd.id, p->cmd.build_id,
				     p->cmd.start_time,
				     (int64_t)p->cmd.output_len };

		h = p->text ? srv_fnv1a(p->text, p->len, h)
			    : srv_fnv1a(names, sizeof(names), h);
	}
	snprintf(etag, cap, "\"%016llx\"", (unsigned long long)h);
}

int srv_buildlog_respond(struct srv_response *res, int status,
			 const char *type, struct srv_buildlog *log)
{
	if (log == NULL || log->failed) {
		srv_buildlog_free(log);
		return srv_respond_internal(res, "out of memory writing a log");
	}
	res->status = status;
	res->content_type = type;
	if (log->output_bytes <= SRV_BUILDLOG_INLINE) {
		res->body = drain(log, &res->body_len);
		srv_buildlog_free(log);
		if (res->body == NULL)
			return srv_respond_internal(res, "reading a build log");
		return status;
	}
	tag(log, res->etag, sizeof(res->etag));
	res->reader.read = log_read;
	res->reader.done = log_done;
	res->reader.state = log;
	return status;
}

int srv_buildlog_respond_json(struct srv_response *res, int status,
			      cJSON *json, struct srv_buildlog *log)
{
	size_t len = 0;
	char *text = json ? srv_json_print(json, &len) : NULL;

	cJSON_Delete(json);
	if (text == NULL) {
		srv_buildlog_free(log);
		return srv_respond_internal(res, "out of memory rendering JSON");
	}
	if (log)
		split_json(log, text, len);
	free(text);
	return srv_buildlog_respond(res, status, "application/json", log);
}
