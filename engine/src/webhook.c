/*
 * Outgoing webhooks: their rows and sealed secrets, the payloads the
 * service sends (its default, or the project's template with its
 * {{ variables }}), and the delivery queue the server's sender drains.
 *
 * A secret is sealed with its project's id as associated data, like an
 * environment variable's value, so a blob moved to another project's row
 * does not open. Bodies are rendered when queued: a retry sends the same
 * bytes, and its signature matches them.
 */
#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hash.h"
#include "lectern/build.h"
#include "lectern/notification.h"
#include "lectern/org.h"
#include "lectern/project.h"
#include "lectern/resolve.h"
#include "lectern/version.h"
#include "lectern/webhook.h"
#include "secret.h"
#include "store_internal.h"

/* Room for "lectern webhooks project " and any int64. */
#define WEBHOOK_AAD_MAX 64
/* The service's cap on each variable's replacements ("small protection
 * for DDoS"): a template cannot grow a body without bound. */
#define SUBSTITUTIONS_MAX 99
/* Most bytes of a delivery's recorded error. */
#define DELIVERY_ERROR_MAX 500

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char not_found[] = "No WebHook matches the given query.";

static const struct {
	enum lec_webhook_event bit;
	const char *code;
} events[] = {
	{ LEC_WEBHOOK_BUILD_TRIGGERED, "build:triggered" },
	{ LEC_WEBHOOK_BUILD_PASSED, "build:passed" },
	{ LEC_WEBHOOK_BUILD_FAILED, "build:failed" },
	{ LEC_WEBHOOK_BUILD_NEW_WARNINGS, "build:new-warnings" },
};

static const char *const delivery_states[] = {
	[LEC_WEBHOOK_PENDING] = "pending",
	[LEC_WEBHOOK_DELIVERED] = "delivered",
	[LEC_WEBHOOK_FAILED] = "failed",
};

const char *lec_webhook_event_code(enum lec_webhook_event event)
{
	size_t i;

	for (i = 0; i < COUNT(events); i++)
		if (events[i].bit == event)
			return events[i].code;
	return NULL;
}

int lec_webhook_event_lookup(const char *code, enum lec_webhook_event *out)
{
	size_t i;

	for (i = 0; code && i < COUNT(events); i++)
		if (strcmp(events[i].code, code) == 0) {
			*out = events[i].bit;
			return LEC_OK;
		}
	return lec__error_field(LEC_EINVALID, "events",
				"\"%s\" is not a valid choice.",
				code ? code : "");
}

const char *lec_webhook_delivery_state_code(
	enum lec_webhook_delivery_state state)
{
	return (size_t)state < COUNT(delivery_states) ? delivery_states[state]
						      : "pending";
}

static size_t webhook_aad(int64_t project_id, char buf[WEBHOOK_AAD_MAX])
{
	int n = snprintf(buf, WEBHOOK_AAD_MAX, "lectern webhooks project %lld",
			 (long long)project_id);

	return n > 0 ? (size_t)n : 0;
}

/* Rows ------------------------------------------------------------------------ */

static const struct lec__column webhook_columns[] = {
	LEC__INT64(lec_webhook, id, "id"),
	LEC__INT64(lec_webhook, project_id, "project_id"),
	LEC__TEXT(lec_webhook, url, "url"),
	LEC__INT(lec_webhook, events, "events"),
	LEC__TEXT_OPT(lec_webhook, payload, "payload"),
	LEC__TIME(lec_webhook, created, "created"),
	LEC__TIME(lec_webhook, modified, "modified"),
};
static const struct lec__row webhook_row =
	LEC__ROW(lec_webhook, webhook_columns, NULL, NULL);
static const struct lec__table webhooks = {
	.row = &webhook_row, .from = "webhooks",
	.scope = "project_id = ?", .id = "id = ?",
	.order = "id", .not_found = not_found,
};

static const struct lec__column delivery_columns[] = {
	LEC__INT64(lec_webhook_delivery, id, "id"),
	LEC__INT64(lec_webhook_delivery, webhook_id, "webhook_id"),
	LEC__TEXT(lec_webhook_delivery, event, "event"),
	LEC__INT64(lec_webhook_delivery, build_id, "build_id"),
	LEC__TEXT(lec_webhook_delivery, body, "body"),
	LEC__CODE(lec_webhook_delivery, state, "state",
		  delivery_states, LEC_WEBHOOK_PENDING),
	LEC__INT(lec_webhook_delivery, attempts, "attempts"),
	LEC__TIME(lec_webhook_delivery, next_attempt, "next_attempt"),
	LEC__INT(lec_webhook_delivery, status_code, "status_code"),
	LEC__TEXT_OPT(lec_webhook_delivery, error, "error"),
	LEC__TIME(lec_webhook_delivery, created, "created"),
	LEC__TIME(lec_webhook_delivery, modified, "modified"),
};
static const struct lec__row delivery_row =
	LEC__ROW(lec_webhook_delivery, delivery_columns, NULL, NULL);
/* Newest first. */
static const struct lec__table deliveries = {
	.row = &delivery_row, .from = "webhook_deliveries",
	.scope = "webhook_id = ?",
	.order = "id DESC",
};

LEC__DEFINE_FREES(lec_webhook, &webhook_row)
LEC__DEFINE_LIST_DISPOSE(lec_webhook_delivery, &delivery_row)

void lec_webhook_outgoing_dispose(struct lec_webhook_outgoing *out)
{
	if (out == NULL)
		return;
	lec__free(out->url);
	lec__free(out->event);
	lec__free(out->body);
	memset(out, 0, sizeof(*out));
}

/* Validation ------------------------------------------------------------------ */

/* An http(s) URL with a host and no spaces or control characters (what
 * Django's URLField takes, near enough), at most _URL_MAX characters. */
static int check_url(const char *url)
{
	const char *host, *p;

	if (url == NULL)
		return lec__error_required("url");
	if (lec__utf8_chars(url) > LEC_WEBHOOK_URL_MAX)
		return lec__error_too_long("url", LEC_WEBHOOK_URL_MAX);
	if (strncmp(url, "http://", 7) == 0)
		host = url + 7;
	else if (strncmp(url, "https://", 8) == 0)
		host = url + 8;
	else
		host = NULL;
	for (p = url; host && *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			host = NULL;
	if (host == NULL || *host == '\0' || *host == '/' || *host == ':')
		return lec__error_field(LEC_EINVALID, "url",
					"Enter a valid URL.");
	return LEC_OK;
}

/* A template: a JSON object (the service's form loads it as JSON), at
 * most _PAYLOAD_MAX characters. */
static int check_payload(const char *payload)
{
	cJSON *json;
	int ok;

	if (payload == NULL)
		return LEC_OK;
	if (lec__utf8_chars(payload) > LEC_WEBHOOK_PAYLOAD_MAX)
		return lec__error_too_long("payload", LEC_WEBHOOK_PAYLOAD_MAX);
	json = cJSON_Parse(payload);
	ok = cJSON_IsObject(json);
	cJSON_Delete(json);
	if (!ok)
		return lec__error_field(LEC_EINVALID, "payload",
					"The payload must be a valid JSON "
					"object.");
	return LEC_OK;
}

static int check_fields(const struct lec_webhook_fields *in)
{
	int error;

	if ((in->fields & LEC_WEBHOOK_FIELD_URL) &&
	    (error = check_url(in->url)) < 0)
		return error;
	if ((in->fields & LEC_WEBHOOK_FIELD_EVENTS) &&
	    ((in->events & LEC_WEBHOOK_EVENTS_ALL) == 0 ||
	     (in->events & ~LEC_WEBHOOK_EVENTS_ALL) != 0))
		return lec__error_field(LEC_EINVALID, "events",
					"This list may not be empty.");
	if ((in->fields & LEC_WEBHOOK_FIELD_PAYLOAD) &&
	    (error = check_payload(in->payload)) < 0)
		return error;
	return LEC_OK;
}

/* Webhooks -------------------------------------------------------------------- */

static int insert_webhook(struct lec_store *st, int64_t project_id,
			  const struct lec_webhook_fields *in,
			  const unsigned char *blob, size_t blob_len,
			  int64_t *id)
{
	sqlite3_stmt *stmt = NULL;
	int64_t now = lec__now_us();
	int error;

	if ((error = lec__project_exists(st, project_id)) < 0)
		return error;
	/* The count and the insert in one statement: two creates at once
	 * cannot both take the last place. */
	if ((error = lec_store__prepare(
		     st, &stmt,
		     "INSERT INTO webhooks (project_id, url, events, payload, "
		     "secret, created, modified) SELECT ?1, ?2, ?3, ?4, ?5, "
		     "?6, ?7 WHERE (SELECT count(*) FROM webhooks WHERE "
		     "project_id = ?1) < ?8")) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, project_id);
	if ((error = lec_store__bind_text(stmt, 2, in->url)) < 0)
		goto done;
	sqlite3_bind_int(stmt, 3, (int)in->events);
	if ((error = lec_store__bind_text(stmt, 4, in->payload)) < 0)
		goto done;
	if (sqlite3_bind_blob64(stmt, 5, blob, blob_len, SQLITE_STATIC) !=
	    SQLITE_OK) {
		error = lec__error_oom();
		goto done;
	}
	sqlite3_bind_int64(stmt, 6, now);
	sqlite3_bind_int64(stmt, 7, now);
	sqlite3_bind_int(stmt, 8, LEC_WEBHOOK_PROJECT_MAX);
	error = lec_store__step_done(st, stmt, "creating a webhook");
	if (error == LEC_OK && sqlite3_changes(sqlite3_db_handle(stmt)) == 0)
		error = lec__error(LEC_ELIMIT,
				   "This project has %d webhooks, the most a "
				   "project may have; delete one to add "
				   "another.",
				   LEC_WEBHOOK_PROJECT_MAX);
	*id = sqlite3_last_insert_rowid(sqlite3_db_handle(stmt));
done:
	lec_store__finalize(st, stmt);
	return error;
}

int lec_webhook_create(struct lec_store *st, int64_t project_id,
		       const struct lec_webhook_fields *in, const char *secret,
		       struct lec_webhook **out, char **secret_out)
{
	char aad[WEBHOOK_AAD_MAX];
	struct lec_webhook_fields all = *in;
	struct lec__new_secret ns;
	int64_t id = 0;
	int error;

	lec_error_clear();
	if (out)
		*out = NULL;
	if (secret_out)
		*secret_out = NULL;
	all.fields |= LEC_WEBHOOK_FIELD_URL | LEC_WEBHOOK_FIELD_EVENTS;
	if ((error = check_fields(&all)) < 0)
		return error;
	error = lec__secret_seal_new(st, secret, LEC_WEBHOOK_SECRET_MAX,
				     LEC_WEBHOOK_SECRET_LEN, aad,
				     webhook_aad(project_id, aad),
				     secret_out != NULL, &ns);
	if (error == LEC_OK)
		error = insert_webhook(st, project_id, &all, ns.blob,
				       ns.blob_len, &id);
	if (error == LEC_OK && out)
		error = lec_webhook_get(st, project_id, id, out);
	lec__new_secret_end(&ns, error, secret_out);
	return error;
}

LEC__DEFINE_SCOPED_GET(lec_webhook, &webhooks)
LEC__DEFINE_SCOPED_LIST(lec_webhook, &webhooks)

int lec_webhook_update(struct lec_store *st, int64_t project_id, int64_t id,
		       const struct lec_webhook_fields *patch)
{
	struct lec_webhook *w = NULL;
	sqlite3_stmt *stmt = NULL;
	int error;

	lec_error_clear();
	if ((error = check_fields(patch)) < 0 ||
	    (error = lec_webhook_get(st, project_id, id, &w)) < 0)
		return error;
	if ((error = lec_store__prepare(st, &stmt,
					"UPDATE webhooks SET url = ?, "
					"events = ?, payload = ?, "
					"modified = ? WHERE id = ?")) < 0)
		goto done;
	if ((error = lec_store__bind_text(
		     stmt, 1,
		     patch->fields & LEC_WEBHOOK_FIELD_URL ? patch->url
							   : w->url)) < 0)
		goto done;
	sqlite3_bind_int(stmt, 2,
			 (int)(patch->fields & LEC_WEBHOOK_FIELD_EVENTS
				       ? patch->events
				       : w->events));
	if ((error = lec_store__bind_text(
		     stmt, 3,
		     patch->fields & LEC_WEBHOOK_FIELD_PAYLOAD
			     ? patch->payload
			     : w->payload)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 4, lec__now_us());
	sqlite3_bind_int64(stmt, 5, id);
	error = lec_store__step_done(st, stmt, "updating a webhook");
done:
	lec_store__finalize(st, stmt);
	lec_webhook_free(w);
	return error;
}

LEC__DEFINE_SCOPED_DELETE(lec_webhook, &webhooks)
LEC__DEFINE_SCOPED_LIST(lec_webhook_delivery, &deliveries)

/* Payloads -------------------------------------------------------------------- */

/* What a payload is made of: the build, its project, version and
 * organization (each may be missing but the build and project), and the
 * variables of a template, named as the service names them. */
struct payload_vars {
	struct lec_build *build;
	struct lec_project *project;
	struct lec_version *version;
	struct lec_org *org;
	const char *event;
	char id[24];
	char start_date[32];
	char *build_url;
	char *project_url;
	char *docs_url;
};

static void payload_vars_dispose(struct payload_vars *v)
{
	lec_build_free(v->build);
	lec_project_free(v->project);
	lec_version_free(v->version);
	lec_org_free(v->org);
	lec__free(v->build_url);
	lec__free(v->project_url);
	lec__free(v->docs_url);
}

/* The build's date as the service formats it: UTC without microseconds,
 * with "T" (template) or " " (default payload) between date and time. */
static void format_date(int64_t us, char sep, char out[32])
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	if (strftime(out, 32, sep == 'T' ? "%Y-%m-%dT%H:%M:%S"
					 : "%Y-%m-%d %H:%M:%S",
		     &tm) == 0)
		out[0] = '\0';
}

static int payload_vars_load(struct lec_store *st, int64_t build_id,
			     const struct lec_webhook_site *site,
			     struct payload_vars *v)
{
	const char *api = site && site->production_domain
				  ? site->production_domain
				  : "localhost";
	struct lec__buf b = LEC__BUF_INIT;
	char *docs;
	int error;

	if ((error = lec_build_get(st, build_id, &v->build)) < 0 ||
	    (error = lec_project_get_by_id(st, v->build->project_id,
					   &v->project)) < 0)
		return error;
	if (v->build->version_id)
		lec_version_get_by_id(st, v->build->version_id, &v->version);
	lec_org_of_project(st, v->project->id, &v->org);
	lec_error_clear();
	snprintf(v->id, sizeof(v->id), "%lld", (long long)build_id);
	format_date(v->build->created, 'T', v->start_date);
	/* Lectern has no dashboard: the build's and project's pages are
	 * their API objects. */
	lec__buf_printf(&b, "http://%s/api/v3/projects/%s/builds/%lld/", api,
			v->project->slug, (long long)build_id);
	v->build_url = lec__buf_take(&b);
	lec__buf_printf(&b, "http://%s/api/v3/projects/%s/", api,
			v->project->slug);
	v->project_url = lec__buf_take(&b);
	docs = v->version
		       ? lec_resolve_docs_url(v->project, v->version->slug,
					      site && site->docs_domain
						      ? site->docs_domain
						      : "localhost")
		       : NULL;
	v->docs_url = lec__strdup(docs ? docs : "");
	lec__free(docs);
	if (v->build_url == NULL || v->project_url == NULL ||
	    v->docs_url == NULL)
		return lec__error_oom();
	return LEC_OK;
}

/* The service's payload for a webhook without a template. */
static char *default_payload(const struct payload_vars *v)
{
	cJSON *o = cJSON_CreateObject(), *b;
	char date[32];
	char *text = NULL, *copy;

	if (o == NULL)
		return NULL;
	format_date(v->build->created, ' ', date);
	cJSON_AddStringToObject(o, "name", v->project->name);
	cJSON_AddStringToObject(o, "slug", v->project->slug);
	b = cJSON_AddObjectToObject(o, "build");
	if (b) {
		cJSON_AddNumberToObject(b, "id", (double)v->build->id);
		if (v->build->commit)
			cJSON_AddStringToObject(b, "commit", v->build->commit);
		else
			cJSON_AddNullToObject(b, "commit");
		cJSON_AddStringToObject(b, "state",
					lec_build_state_code(v->build->state));
		cJSON_AddBoolToObject(b, "success", v->build->success);
		cJSON_AddStringToObject(b, "date", date);
	}
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	copy = text ? lec__strdup(text) : NULL;
	cJSON_free(text);
	return copy;
}

/* A value as it goes between the quotes of a JSON string. The service
 * pastes values raw; escaping keeps a template that was valid JSON valid
 * whatever a project's name holds. */
static char *json_inner(const char *value)
{
	cJSON *s = cJSON_CreateString(value ? value : "");
	char *text = s ? cJSON_PrintUnformatted(s) : NULL;
	char *inner = NULL;
	size_t n;

	cJSON_Delete(s);
	if (text && (n = strlen(text)) >= 2)
		inner = lec__strndup(text + 1, n - 2);
	cJSON_free(text);
	return inner;
}

/* Replace up to SUBSTITUTIONS_MAX of "{{ name }}" and of "{{name}}" in
 * *text by value. */
static int substitute(char **text, const char *name, const char *value)
{
	char pattern[2][64];
	int k;

	snprintf(pattern[0], sizeof(pattern[0]), "{{ %s }}", name);
	snprintf(pattern[1], sizeof(pattern[1]), "{{%s}}", name);
	for (k = 0; k < 2; k++) {
		struct lec__buf b = LEC__BUF_INIT;
		const char *p = *text, *hit;
		size_t plen = strlen(pattern[k]);
		int n = 0;

		while (n < SUBSTITUTIONS_MAX &&
		       (hit = strstr(p, pattern[k])) != NULL) {
			lec__buf_printf(&b, "%.*s%s", (int)(hit - p), p, value);
			p = hit + plen;
			n++;
		}
		if (n == 0)
			continue;
		lec__buf_puts(&b, p);
		lec__free(*text);
		if ((*text = lec__buf_take(&b)) == NULL)
			return lec__error_oom();
	}
	return LEC_OK;
}

/* A template with the service's variables replaced. */
static char *render_template(const char *payload, const struct payload_vars *v)
{
	const struct {
		const char *name, *value;
	} vars[] = {
		{ "event", v->event },
		{ "build.id", v->id },
		{ "build.commit", v->build->commit ? v->build->commit : "" },
		{ "build.url", v->build_url },
		{ "build.docs_url", v->docs_url },
		{ "build.start_date", v->start_date },
		{ "organization.name", v->org ? v->org->name : "" },
		{ "organization.slug", v->org ? v->org->slug : "" },
		{ "project.slug", v->project->slug },
		{ "project.name", v->project->name },
		{ "project.url", v->project_url },
		{ "version.slug", v->version ? v->version->slug : "" },
		{ "version.name", v->version ? v->version->verbose_name : "" },
	};
	char *text = lec__strdup(payload), *inner;
	size_t i;
	int error = text ? LEC_OK : lec__error_oom();

	for (i = 0; error == LEC_OK && i < COUNT(vars); i++) {
		if ((inner = json_inner(vars[i].value)) == NULL) {
			error = lec__error_oom();
			break;
		}
		error = substitute(&text, vars[i].name, inner);
		lec__free(inner);
	}
	if (error < 0) {
		lec__free(text);
		return NULL;
	}
	return text;
}

/* Queue a delivery to hook's URL as it is now. */
static int insert_delivery(struct lec_store *st, const struct lec_webhook *hook,
			   const char *event, int64_t build_id,
			   const char *body)
{
	sqlite3_stmt *stmt = NULL;
	int64_t now = lec__now_us();
	int error;

	if ((error = lec_store__prepare(st, &stmt,
					"INSERT INTO webhook_deliveries "
					"(webhook_id, event, build_id, body, "
					"state, next_attempt, created, "
					"modified, url) VALUES "
					"(?, ?, ?, ?, 'pending', ?, ?, ?, ?)")) <
	    0)
		return error;
	sqlite3_bind_int64(stmt, 1, hook->id);
	if ((error = lec_store__bind_text(stmt, 2, event)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 3, build_id);
	if ((error = lec_store__bind_text(stmt, 4, body)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 5, now);
	sqlite3_bind_int64(stmt, 6, now);
	sqlite3_bind_int64(stmt, 7, now);
	if ((error = lec_store__bind_text(stmt, 8, hook->url)) < 0)
		goto done;
	error = lec_store__step_done(st, stmt, "queueing a delivery");
done:
	lec_store__finalize(st, stmt);
	return error;
}

int lec_webhook_queue_build(struct lec_store *st, int64_t build_id,
			    enum lec_webhook_event event,
			    const struct lec_webhook_site *site)
{
	struct payload_vars v = { 0 };
	struct lec_webhook_list hooks = { 0 };
	char *body;
	size_t i;
	int error, external = 0;

	lec_error_clear();
	if ((v.event = lec_webhook_event_code(event)) == NULL)
		return lec__error(LEC_EINVALID, "no such webhook event");
	if ((error = lec_build_get(st, build_id, &v.build)) < 0)
		return error;
	/* The service sends a project's webhooks for its own versions
	 * only: a pull request's builds report through commit statuses
	 * (its trigger_build and send_build_notifications skip them). */
	error = lec_version_is_external(st, v.build->version_id, &external);
	if (error == LEC_OK && !external)
		error = lec_webhook_list(st, v.build->project_id, NULL, &hooks);
	lec_build_free(v.build);
	v.build = NULL;
	for (i = 0; error == LEC_OK && i < hooks.len; i++) {
		if (!(hooks.items[i].events & (unsigned)event))
			continue;
		if (v.project == NULL &&
		    (error = payload_vars_load(st, build_id, site, &v)) < 0)
			break;
		body = hooks.items[i].payload
			       ? render_template(hooks.items[i].payload, &v)
			       : default_payload(&v);
		if (body == NULL) {
			error = lec__error_oom();
			break;
		}
		error = insert_delivery(st, &hooks.items[i], v.event, build_id,
					body);
		lec__free(body);
	}
	lec_webhook_list_dispose(&hooks);
	payload_vars_dispose(&v);
	return error;
}

/* Sending ---------------------------------------------------------------------- */

/* Sign body with the webhook's secret (hex HMAC-SHA256 into sig). */
static int sign_body(struct lec_store *st, int64_t project_id,
		     const unsigned char *blob, size_t blob_len,
		     const char *body, size_t body_len,
		     char sig[LEC_WEBHOOK_SIGNATURE_LEN + 1])
{
	struct lec__secret_key key;
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;
	char aad[WEBHOOK_AAD_MAX], *secret = NULL;
	size_t secret_len = 0;
	int error;

	if ((error = lec__secret_key_load(st, 0, &key)) < 0)
		return error;
	error = lec__secret_open(&key, blob, blob_len, aad,
				 webhook_aad(project_id, aad), &secret,
				 &secret_len);
	lec__secret_key_wipe(&key);
	if (error < 0)
		return error;
	if (HMAC(EVP_sha256(), secret, (int)secret_len,
		 (const unsigned char *)body, body_len, mac,
		 &mac_len) == NULL || mac_len * 2 != LEC_WEBHOOK_SIGNATURE_LEN)
		error = lec__error(LEC_ERROR, "cannot compute a signature");
	else
		lec__hex(mac, mac_len, sig);
	lec__secret_free(secret, secret_len + 1);
	explicit_bzero(mac, sizeof(mac));
	return error;
}

/* Set a delivery's row after a try, out of the sender's hands. */
static int delivery_set(struct lec_store *st, int64_t id, const char *state,
			int attempts_add, int64_t next_attempt,
			int status_code, const char *error_text)
{
	sqlite3_stmt *stmt = NULL;
	int error;

	if ((error = lec_store__prepare(
		     st, &stmt,
		     "UPDATE webhook_deliveries SET state = ?, attempts = "
		     "attempts + ?, next_attempt = ?, status_code = "
		     "coalesce(?, status_code), error = ?, modified = ?, "
		     "sending_until = 0 WHERE id = ?")) < 0)
		return error;
	if ((error = lec_store__bind_text(stmt, 1, state)) < 0)
		goto done;
	sqlite3_bind_int(stmt, 2, attempts_add);
	sqlite3_bind_int64(stmt, 3, next_attempt);
	if (status_code > 0)
		sqlite3_bind_int(stmt, 4, status_code);
	if ((error = lec_store__bind_text(stmt, 5, error_text)) < 0)
		goto done;
	sqlite3_bind_int64(stmt, 6, lec__now_us());
	sqlite3_bind_int64(stmt, 7, id);
	error = lec_store__step_done(st, stmt, "recording a delivery");
done:
	lec_store__finalize(st, stmt);
	return error;
}

/* Put a delivery in a sender's hands until until_us: a try counted, its
 * next one put off till then, the project's turn taken now. */
static int claim(struct lec_store *st, int64_t id, int64_t now_us,
		 int64_t until_us)
{
	int64_t v[3] = { until_us, now_us, id };

	return lec_store__exec_ints(
		st,
		"UPDATE webhook_deliveries SET attempts = attempts + 1, "
		"next_attempt = ?1, sending_until = ?1, claimed = ?2, "
		"modified = ?2, error = NULL WHERE id = ?3",
		v, 3, "taking a delivery", NULL);
}

/* The due delivery to send next (see lec_webhook_delivery_next): per
 * project, its deliveries in a sender's hands (sending_until still to
 * come) and when one of them was last taken (claimed), both read only for
 * the projects that have one due; none of a webhook with one in hand. */
#define PROJECT_DELIVERIES(what)                                             \
	"(SELECT " what " FROM webhook_deliveries d2 JOIN webhooks w2 ON "   \
	"w2.id = d2.webhook_id WHERE w2.project_id = w.project_id"
#define NEXT_DUE                                                             \
	"SELECT d.id, d.event, d.body, d.attempts, d.url, w.secret, "        \
	"w.project_id, " PROJECT_DELIVERIES("max(d2.claimed)") ") AS turn "  \
	"FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id "  \
	"WHERE d.state = 'pending' AND d.next_attempt <= ?1 AND "            \
	PROJECT_DELIVERIES("count(*)") " AND d2.sending_until > ?1) < ?2 "   \
	"AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d3 WHERE "         \
	"d3.webhook_id = d.webhook_id AND d3.sending_until > ?1) "           \
	"ORDER BY turn, d.next_attempt, d.id LIMIT 1"

/* In lec_store__lease's transaction: the next due delivery, signed. */
static int take_due(struct lec_store *st, const struct lec__lease *lease)
{
	int64_t now_us = lease->now_us;
	struct lec_webhook_outgoing *out = lease->out;
	sqlite3_stmt *stmt = NULL;
	int64_t project_id = 0;
	int error, rc;

	if ((error = lec_store__prepare(st, &stmt, NEXT_DUE)) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, now_us);
	sqlite3_bind_int(stmt, 2, LEC_WEBHOOK_PROJECT_SENDING_MAX);
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		error = rc == SQLITE_DONE
				? LEC_ENOTFOUND
				: lec_store__sqlerr(st, rc,
						    "reading deliveries");
		goto done;
	}
	out->delivery_id = sqlite3_column_int64(stmt, 0);
	out->attempt = sqlite3_column_int(stmt, 3) + 1;
	project_id = sqlite3_column_int64(stmt, 6);
	if ((error = lec_store__col_text(stmt, 1, &out->event)) < 0 ||
	    (error = lec_store__col_text(stmt, 2, &out->body)) < 0 ||
	    (error = lec_store__col_text(stmt, 4, &out->url)) < 0)
		goto done;
	out->body_len = out->body ? strlen(out->body) : 0;
	error = sign_body(st, project_id, sqlite3_column_blob(stmt, 5),
			  (size_t)sqlite3_column_bytes(stmt, 5),
			  out->body ? out->body : "", out->body_len,
			  out->signature);
done:
	lec_store__finalize(st, stmt);
	if (error == LEC_ECORRUPT) {
		/* A secret that does not open never will: stop trying. */
		delivery_set(st, out->delivery_id, "failed", 1, now_us, 0,
			     "failed: the webhook's secret cannot be opened");
		lec__error(LEC_ECORRUPT, "a webhook's secret cannot be opened");
	} else if (error == LEC_OK) {
		error = claim(st, out->delivery_id, now_us, lease->until_us);
	}
	return error;
}

int lec_webhook_delivery_next(struct lec_store *st, int64_t now_us,
			      unsigned lease_ms,
			      struct lec_webhook_outgoing *out)
{
	int error = lec_store__lease(st, now_us, lease_ms, take_due, out,
				     sizeof(*out));

	if (error < 0)
		lec_webhook_outgoing_dispose(out);
	return error;
}

/* Keep the newest finished deliveries of a webhook. */
static int prune(struct lec_store *st, int64_t webhook_id)
{
	int64_t v[2] = { webhook_id, LEC_WEBHOOK_DELIVERIES_KEPT };

	return lec_store__exec_ints(
		st,
		"DELETE FROM webhook_deliveries WHERE webhook_id = ?1 AND "
		"state <> 'pending' AND id NOT IN (SELECT id FROM "
		"webhook_deliveries WHERE webhook_id = ?1 ORDER BY id DESC "
		"LIMIT ?2)",
		v, 2, "pruning deliveries", NULL);
}

/* The project's notification that its webhook keeps failing. The body
 * names the webhook by id, not URL: a receiver's URL may hold a token. */
static int raise_failing(struct lec_store *st, int64_t project_id,
			 int64_t webhook_id, int attempts, int status_code)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct lec_notification_new n = { 0 };

	lec__buf_printf(&b,
			"Webhook %lld of this project failed %d times in a "
			"row (last answer: ",
			(long long)webhook_id, attempts);
	if (status_code > 0)
		lec__buf_printf(&b, "HTTP %d", status_code);
	else
		lec__buf_puts(&b, "none");
	lec__buf_puts(&b, "); its receiver may be down or its URL wrong.");
	n.message_id = LEC_MSG_WEBHOOK_FAILING;
	n.target = LEC_NOTIFICATION_PROJECT;
	n.attached_id = project_id;
	n.type = "error";
	return lec__notification_add_texts(
		st, &n, lec__strdup("A webhook keeps failing"), lec__buf_take(&b));
}

int lec_webhook_delivery_done(struct lec_store *st, int64_t delivery_id,
			      int status_code, const char *error_text,
			      unsigned backoff_ms)
{
	static const char sql[] =
		"SELECT d.attempts, d.webhook_id, w.project_id FROM "
		"webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id "
		"WHERE d.id = ?";
	sqlite3_stmt *stmt = NULL;
	int64_t webhook_id = 0, project_id = 0, now = lec__now_us(), delay;
	char *why = NULL;
	int attempts = 0, error, rc;

	lec_error_clear();
	if ((error = lec_store__prepare(st, &stmt, sql)) < 0)
		return error;
	sqlite3_bind_int64(stmt, 1, delivery_id);
	if ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		attempts = sqlite3_column_int(stmt, 0);
		webhook_id = sqlite3_column_int64(stmt, 1);
		project_id = sqlite3_column_int64(stmt, 2);
	}
	lec_store__finalize(st, stmt);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE
			       ? lec__error(LEC_ENOTFOUND,
					    "no delivery with id %lld",
					    (long long)delivery_id)
			       : lec_store__sqlerr(st, rc,
						   "reading a delivery");
	if (status_code >= 200 && status_code < 300) {
		if ((error = delivery_set(st, delivery_id, "delivered", 0, now,
					  status_code, NULL)) == LEC_OK)
			error = lec_notification_cancel(
				st, LEC_NOTIFICATION_PROJECT, project_id,
				LEC_MSG_WEBHOOK_FAILING);
	} else {
		if (error_text)
			why = lec__strdup_cut(error_text, DELIVERY_ERROR_MAX);
		else if (status_code > 0)
			why = lec__strdup(
				"failed: the receiver did not answer 2xx");
		if (attempts >= LEC_WEBHOOK_ATTEMPTS_MAX) {
			error = delivery_set(st, delivery_id, "failed", 0, now,
					     status_code, why);
			if (error == LEC_OK)
				error = raise_failing(st, project_id,
						      webhook_id, attempts,
						      status_code);
		} else {
			delay = (int64_t)backoff_ms * 1000
				<< (attempts > 0 ? attempts - 1 : 0);
			error = delivery_set(st, delivery_id, "pending", 0,
					     now + delay, status_code, why);
		}
		lec__free(why);
	}
	if (error == LEC_OK)
		error = prune(st, webhook_id);
	return error;
}
