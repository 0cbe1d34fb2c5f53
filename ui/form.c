/*
 * The form widget (see form.h): a view that takes every key itself, draws
 * its fields one per line with the server's message for a field on the
 * line under it, and sends one write through the app's asynchronous
 * requests, so the screen keeps drawing while the answer is on its way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "client.h"
#include "draw.h"
#include "form.h"
#include "keys.h"
#include "theme.h"

/* Columns for the labels: the longest ("programming language") fits. */
#define LABEL_WIDTH 24
/* Request tags: the form's one write; the list a choice is filled from. */
enum { TAG_SAVE = 1, TAG_CHOICES };
/* A field name in an error body, nested ones joined with dots
 * ("repository.url"); longer ones are cut and match no field. */
#define FIELD_NAME_MAX 128
/* C-u clears the field, as in the prompt. */
#define KEY_CTRL_U 21

/* Building ------------------------------------------------------------------- */

struct ui_form *ui_form_new(const char *method, const char *path,
			    ui_form_body_fn body, ui_form_saved_fn saved)
{
	struct ui_form *f = ui_xcalloc(1, sizeof(*f));

	f->method = ui_xstrdup(method);
	f->path = ui_xstrdup(path);
	f->body = body;
	f->saved = saved;
	return f;
}

static void field_set(struct ui_field *fl, const char *value)
{
	/* The old text may be a masked value: wipe it, not just cut it. */
	explicit_bzero(fl->value, sizeof(fl->value));
	snprintf(fl->value, sizeof(fl->value), "%s", value ? value : "");
	fl->len = strlen(fl->value);
}

struct ui_field *ui_form_add(struct ui_form *f, enum ui_field_kind kind,
			     const char *name, const char *label,
			     const char *value)
{
	struct ui_field *fl;

	f->fields = ui_xrealloc(f->fields, (f->len + 1) * sizeof(*f->fields));
	fl = &f->fields[f->len++];
	memset(fl, 0, sizeof(*fl));
	fl->kind = kind;
	fl->name = name;
	fl->label = label;
	if (kind == UI_FIELD_BOOL)
		fl->on = value && strcmp(value, "yes") == 0;
	else
		field_set(fl, value);
	return fl;
}

struct ui_field *ui_form_add_choice(struct ui_form *f, const char *name,
				    const char *label,
				    const char *const *choices, size_t n,
				    const char *value)
{
	struct ui_field *fl = ui_form_add(f, UI_FIELD_CHOICE, name, label, NULL);
	size_t i;

	fl->choices = ui_xcalloc(n ? n : 1, sizeof(*fl->choices));
	fl->nchoices = n;
	for (i = 0; i < n; i++) {
		fl->choices[i] = ui_xstrdup(choices[i]);
		if (value && strcmp(value, choices[i]) == 0)
			fl->choice = i;
	}
	return fl;
}

void ui_form_choices_from(struct ui_form *f, const char *name,
			  const char *path, const char *exclude)
{
	f->list_field = name;
	f->list_path = ui_xstrdup(path);
	f->list_exclude = ui_xstrdup(exclude);
}

struct ui_field *ui_form_field(const struct ui_form *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->len; i++)
		if (strcmp(f->fields[i].name, name) == 0)
			return &f->fields[i];
	return NULL;
}

const char *ui_field_text(const struct ui_field *fl)
{
	switch (fl->kind) {
	case UI_FIELD_CHOICE:
		return fl->nchoices ? fl->choices[fl->choice] : "";
	case UI_FIELD_BOOL:
		return fl->on ? "yes" : "no";
	default:
		return fl->value;
	}
}

void ui_form_put(cJSON *body, const struct ui_field *fl)
{
	if (fl->hidden)
		return;
	switch (fl->kind) {
	case UI_FIELD_BOOL:
		cJSON_AddBoolToObject(body, fl->name, fl->on);
		break;
	case UI_FIELD_NUMBER:
		cJSON_AddNumberToObject(body, fl->name, atof(fl->value));
		break;
	default:
		cJSON_AddStringToObject(body, fl->name, ui_field_text(fl));
		break;
	}
}

static void clear_errors(struct ui_form *f)
{
	size_t i;

	for (i = 0; i < f->len; i++)
		ui_set_str(&f->fields[i].error, NULL);
	ui_set_str(&f->error, NULL);
}

static void wipe_secrets(struct ui_form *f)
{
	size_t i;

	for (i = 0; i < f->len; i++)
		if (f->fields[i].kind == UI_FIELD_SECRET) {
			explicit_bzero(f->fields[i].value,
				       sizeof(f->fields[i].value));
			f->fields[i].len = 0;
		}
}

static void form_free(struct ui_form *f)
{
	size_t i, j;

	wipe_secrets(f);
	for (i = 0; i < f->len; i++) {
		for (j = 0; j < f->fields[i].nchoices; j++)
			free(f->fields[i].choices[j]);
		free(f->fields[i].choices);
		free(f->fields[i].error);
	}
	free(f->fields);
	free(f->list_path);
	free(f->list_exclude);
	free(f->error);
	free(f->method);
	free(f->path);
	free(f->note);
	free(f);
}

void ui_form_note(struct ui_form *f, const char *note)
{
	ui_set_str(&f->note, note);
}

/* Sending --------------------------------------------------------------------- */

/* The body's copies of masked values, wiped before the body is freed. */
static void wipe_body(const struct ui_form *f, cJSON *body)
{
	cJSON *item;
	size_t i;

	for (i = 0; i < f->len; i++) {
		if (f->fields[i].kind != UI_FIELD_SECRET)
			continue;
		item = cJSON_GetObjectItemCaseSensitive(body, f->fields[i].name);
		if (cJSON_IsString(item))
			explicit_bzero(item->valuestring,
				       strlen(item->valuestring));
	}
}

/* The form's own check said no: its message goes next to its field (or
 * under the form), and nothing is sent. */
static int refused(struct ui_form *f)
{
	const char *field = NULL, *why;
	struct ui_field *fl;

	if (f->check == NULL || (why = f->check(f, &field)) == NULL)
		return 0;
	if (field && (fl = ui_form_field(f, field)) != NULL)
		ui_set_str(&fl->error, why);
	else
		ui_set_str(&f->error, why);
	return 1;
}

static void submit(struct ui_view *v)
{
	struct ui_form *f = v->priv;
	cJSON *body;
	char *text;

	if (f->sending)
		return;
	if (f->list_field && ui_app_pending(v->app, v, TAG_CHOICES)) {
		ui_app_error(v->app, "wait: the choices are still loading");
		return;
	}
	clear_errors(f);
	if (refused(f))
		return;
	text = NULL;
	if ((body = f->body(f)) != NULL) {
		text = cJSON_PrintUnformatted(body);
		wipe_body(f, body);
		cJSON_Delete(body);
		if (text == NULL)
			ui_die("out of memory");
	}
	if (ui_app_send(v->app, v, TAG_SAVE, f->method, f->path, text, NULL) == 0)
		f->sending = 1;
	if (text)
		explicit_bzero(text, strlen(text));
	cJSON_free(text);
	wipe_secrets(f);
}

/* A DRF message list (or a lone string) as one line into *out. */
static void join_messages(const cJSON *msgs, char **out)
{
	struct ui_buf b = UI_BUF_INIT;
	const cJSON *m;

	if (cJSON_IsString(msgs))
		ui_buf_puts(&b, msgs->valuestring);
	else if (cJSON_IsArray(msgs))
		cJSON_ArrayForEach(m, msgs)
			if (cJSON_IsString(m))
				ui_buf_printf(&b, "%s%s", b.len ? " " : "",
					      m->valuestring);
	free(*out);
	*out = ui_buf_take(&b);
}

/* Put each message of a 400 body next to its field (nested objects name
 * "outer.inner", as the import's "repository.url"); the rest, with its
 * key unless it stands alone, goes to rest. */
static void place_errors(struct ui_form *f, const cJSON *obj,
			const char *prefix, struct ui_buf *rest)
{
	const cJSON *item;
	struct ui_field *fl;
	char name[FIELD_NAME_MAX];
	char *msg = NULL;

	cJSON_ArrayForEach(item, obj) {
		snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "",
			 item->string);
		if (cJSON_IsObject(item)) {
			place_errors(f, item, name, rest);
			continue;
		}
		join_messages(item, &msg);
		fl = ui_form_field(f, name);
		if (fl && !fl->hidden)
			ui_set_str(&fl->error, msg);
		else if (strcmp(name, "non_field_errors") == 0 ||
			 strcmp(name, "detail") == 0)
			ui_buf_printf(rest, "%s%s", rest->len ? " " : "", msg);
		else
			ui_buf_printf(rest, "%s%s: %s", rest->len ? " " : "",
				      name, msg);
	}
	free(msg);
}

static void focus_first_error(struct ui_form *f)
{
	size_t i;

	for (i = 0; i < f->len; i++)
		if (f->fields[i].error) {
			f->focus = i;
			return;
		}
}

/* The list for list_field arrived: its slugs become the choices. */
static void take_choices(struct ui_form *f, const struct lc_response *resp,
			 const struct lc_error *err)
{
	struct ui_field *fl = ui_form_field(f, f->list_field);
	const cJSON *item, *slug;

	if (err->code != LC_OK) {
		ui_set_str(&f->error, err->message);
		return;
	}
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(resp->json,
								  "results")) {
		slug = cJSON_GetObjectItemCaseSensitive(item, "slug");
		if (!cJSON_IsString(slug) ||
		    (f->list_exclude &&
		     strcmp(slug->valuestring, f->list_exclude) == 0))
			continue;
		fl->choices = ui_xrealloc(fl->choices, (fl->nchoices + 1) *
							       sizeof(*fl->choices));
		fl->choices[fl->nchoices++] = ui_xstrdup(slug->valuestring);
	}
	if (fl->nchoices == 0)
		ui_set_str(&f->error, "nothing to choose from");
}

static void form_data(struct ui_view *v, int tag, struct lc_response *resp,
		      const struct lc_error *err)
{
	struct ui_form *f = v->priv;
	struct ui_buf rest = UI_BUF_INIT;
	struct ui_view *parent = f->parent;
	ui_form_saved_fn saved = f->saved;
	struct ui_app *app = v->app;

	if (tag == TAG_CHOICES) {
		take_choices(f, resp, err);
		return;
	}
	f->sending = 0;
	if (err->code == LC_OK) {
		/* Close first: what saved opens must land above the parent. */
		ui_app_pop(app);
		if (ui_app_has_view(app, parent))
			saved(parent, resp);
		return;
	}
	/* A 400's fields go next to their fields; anything else (a bare
	 * list, a 404, no answer) is the client's one line under the form. */
	if (resp && err->code == LC_EHTTP && cJSON_IsObject(resp->json))
		place_errors(f, resp->json, "", &rest);
	else
		ui_set_str(&f->error, err->message);
	if (rest.len)
		f->error = ui_buf_take(&rest);
	ui_buf_dispose(&rest);
	focus_first_error(f);
	ui_app_error(app, "not saved: %s", err->message);
}

/* Keys ------------------------------------------------------------------------- */

static void move_focus(struct ui_form *f, int step)
{
	size_t i, n = f->len;

	for (i = 1; i <= n; i++) {
		size_t j = (f->focus + n + (size_t)((long)step * (long)i)) % n;

		if (!f->fields[j].hidden) {
			f->focus = j;
			return;
		}
	}
}

/* Append code point c as UTF-8 when it fits. */
static void type_char(struct ui_field *fl, int c)
{
	char enc[4];
	size_t n;

	if (c < 0x80) {
		enc[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		enc[0] = (char)(0xC0 | (c >> 6));
		enc[1] = (char)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		enc[0] = (char)(0xE0 | (c >> 12));
		enc[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		enc[2] = (char)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		enc[0] = (char)(0xF0 | (c >> 18));
		enc[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		enc[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		enc[3] = (char)(0x80 | (c & 0x3F));
		n = 4;
	}
	if (fl->len + n >= sizeof(fl->value))
		return;
	memcpy(fl->value + fl->len, enc, n);
	fl->len += n;
	fl->value[fl->len] = '\0';
}

/* Backspace: drop the last character (all its UTF-8 bytes). */
static void erase_char(struct ui_field *fl)
{
	while (fl->len > 0) {
		fl->len--;
		if (((unsigned char)fl->value[fl->len] & 0xC0) != 0x80)
			break;
	}
	explicit_bzero(fl->value + fl->len, sizeof(fl->value) - fl->len);
}

/* Keys for a choice or a bool; 1 when the value changed. */
static int toggle_key(struct ui_field *fl, int key)
{
	int back = key == (UI_KEY_FN | KEY_LEFT);

	if (key != ' ' && !back && key != (UI_KEY_FN | KEY_RIGHT))
		return 0;
	if (fl->kind == UI_FIELD_BOOL)
		fl->on = !fl->on;
	else if (fl->nchoices)
		fl->choice = (fl->choice + (back ? fl->nchoices - 1 : 1)) %
			     fl->nchoices;
	return 1;
}

static void edit_key(struct ui_field *fl, int key)
{
	if (key == (UI_KEY_FN | KEY_BACKSPACE))
		erase_char(fl);
	else if (key == KEY_CTRL_U)
		field_set(fl, NULL);
	else if (key >= ' ' && key < UI_KEY_FN && key != 127 &&
		 (fl->kind != UI_FIELD_NUMBER || (key >= '0' && key <= '9')))
		type_char(fl, key);
}

static void form_key(struct ui_view *v, int key)
{
	struct ui_form *f = v->priv;
	struct ui_field *fl = f->len ? &f->fields[f->focus] : NULL;

	if (key == UI_KEY_ESC) {
		struct ui_app *app = v->app;

		ui_app_pop(app); /* frees v and f */
		ui_app_message(app, "cancelled: nothing changed");
	} else if (key == '\n') {
		submit(v);
	} else if (key == '\t' || key == (UI_KEY_FN | KEY_DOWN)) {
		move_focus(f, 1);
	} else if (key == (UI_KEY_FN | KEY_BTAB) || key == (UI_KEY_FN | KEY_UP)) {
		move_focus(f, -1);
	} else if (fl == NULL || f->sending) {
		return;
	} else if (fl->kind == UI_FIELD_CHOICE || fl->kind == UI_FIELD_BOOL) {
		if (toggle_key(fl, key)) {
			fl->changed = 1;
			if (f->on_change)
				f->on_change(f);
		}
	} else {
		edit_key(fl, key);
		fl->changed = 1;
	}
}

/* Drawing ------------------------------------------------------------------------ */

/* The value as shown: masked fields as one star per character. */
static void shown_value(const struct ui_field *fl, char *out, size_t size)
{
	size_t i, n = 0;

	switch (fl->kind) {
	case UI_FIELD_SECRET:
		for (i = 0; i < fl->len && n + 1 < size; i++)
			if (((unsigned char)fl->value[i] & 0xC0) != 0x80)
				out[n++] = '*';
		out[n] = '\0';
		break;
	case UI_FIELD_CHOICE:
		snprintf(out, size, "< %s >",
			 fl->nchoices ? ui_field_text(fl) : "...");
		break;
	case UI_FIELD_BOOL:
		snprintf(out, size, "[%c]", fl->on ? 'x' : ' ');
		break;
	default:
		snprintf(out, size, "%s", fl->value);
		break;
	}
}

static int draw_field(const struct ui_form *f, size_t i, WINDOW *w, int y,
		      int width)
{
	const struct ui_field *fl = &f->fields[i];
	int focused = i == f->focus, x = LABEL_WIDTH + 2, room = width - x;
	char shown[UI_FIELD_MAX + 8];
	const char *s = shown;
	int tw;

	ui_draw_text(w, y, 0, 2, focused ? ui_glyph(UI_GLYPH_BULLET) : " ",
		     ui_attr(UI_SLOT_HEADING));
	ui_draw_text(w, y, 2, LABEL_WIDTH, fl->label,
		     ui_attr(focused ? UI_SLOT_HEADING : UI_SLOT_NORMAL));
	shown_value(fl, shown, sizeof(shown));
	/* A long text being typed shows its end, where the typing is. */
	tw = ui_text_width(shown);
	if (focused && tw >= room)
		s = ui_text_skip(shown, tw - room + 2);
	x += ui_draw_text(w, y, x, room, s,
			  ui_attr(focused ? UI_SLOT_CURSOR : UI_SLOT_NORMAL));
	if (focused && fl->kind != UI_FIELD_CHOICE && fl->kind != UI_FIELD_BOOL)
		ui_draw_text(w, y, x, width - x, "_", ui_attr(UI_SLOT_CURSOR));
	if (fl->error == NULL)
		return 1;
	ui_draw_text(w, y + 1, LABEL_WIDTH + 2, room, "! ",
		     ui_attr(UI_SLOT_STATUS_ERROR));
	ui_draw_text(w, y + 1, LABEL_WIDTH + 4, room - 2, fl->error,
		     ui_attr(UI_SLOT_STATUS_ERROR));
	return 2;
}

static int form_header(struct ui_view *v, WINDOW *w, int width)
{
	struct ui_form *f = v->priv;
	int rows = getmaxy(w), y;
	size_t i;

	/* Wrapped at 80 columns rather than cut. */
	y = 1 + ui_draw_wrapped(w, 0, 0, width, 2,
				"Enter saves, Tab/BTab move between fields, "
				"Space or Left/Right changes a choice, Esc "
				"cancels",
				ui_attr(UI_SLOT_DIM));
	if (f->note)
		y += 1 + ui_draw_wrapped(w, y, 2, width - 2, 3, f->note,
					 ui_attr(UI_SLOT_HEADING));
	for (i = 0; i < f->len && y < rows - 2; i++)
		if (!f->fields[i].hidden)
			y += draw_field(f, i, w, y, width);
	if (f->sending)
		ui_draw_text(w, y + 1, 2, width - 2, "saving...",
			     ui_attr(UI_SLOT_DIM));
	else if (f->error)
		/* Wrapped, not cut: a refusal such as a 429's says why in a
		 * sentence or two. */
		ui_draw_wrapped(w, y + 1, 2, width - 2, 3, f->error,
				ui_attr(UI_SLOT_STATUS_ERROR));
	return rows;
}

static void form_open(struct ui_view *v)
{
	struct ui_form *f = v->priv;

	if (f->list_field)
		ui_app_get(v->app, v, TAG_CHOICES, f->list_path, NULL, NULL);
}

static void form_close(struct ui_view *v)
{
	form_free(v->priv);
}

static const struct ui_view_ops form_ops = {
	.name = "form",
	.open = form_open,
	.close = form_close,
	.draw_header = form_header,
	.on_data = form_data,
	.on_key = form_key,
	.grab_keys = 1,
};

void ui_form_open(struct ui_app *app, struct ui_view *parent,
		  const char *title, struct ui_form *f)
{
	f->parent = parent;
	if (f->on_change)
		f->on_change(f);
	if (f->len && f->fields[0].hidden)
		move_focus(f, 1);
	ui_app_push(app, ui_view_new(app, &form_ops, title, f));
}
