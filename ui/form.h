/*
 * Forms: a small screen of labelled fields (text, masked text, a choice
 * among fixed values, a yes/no box, a number) that sends one write to the
 * API when the user presses Enter. Tab/BTab (or Down/Up) move between
 * fields, Esc cancels. A 400 answer's DRF body ({"field": ["msg"]}) puts
 * each message next to the field it names and any other message under
 * the form; a success closes the form and hands the answer to a callback
 * on the screen that opened it.
 *
 * Masked fields are drawn as stars, never as their text, and are wiped
 * (explicit_bzero) as soon as the request carrying them is queued, along
 * with the JSON text built from them.
 */
#ifndef LECTERN_UI_FORM_H
#define LECTERN_UI_FORM_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct ui_app;
struct ui_view;
struct lc_response;

/* The longest value typed into a field: URLs and descriptions fit. */
#define UI_FIELD_MAX 512

enum ui_field_kind {
	UI_FIELD_TEXT,
	UI_FIELD_SECRET, /* typed masked: env var values */
	UI_FIELD_CHOICE, /* Left/Right/Space cycle through the choices */
	UI_FIELD_BOOL,   /* Space/Left/Right toggle */
	UI_FIELD_NUMBER, /* digits only */
};

struct ui_field {
	const char *name;  /* the API's key: errors name it */
	const char *label;
	enum ui_field_kind kind;
	char value[UI_FIELD_MAX]; /* text, secret, number */
	size_t len;
	char **choices;    /* owned copies */
	size_t nchoices;
	size_t choice;     /* index of the chosen one */
	int on;            /* a bool's value */
	int hidden;        /* not shown nor sent (set by on_change) */
	int changed;       /* edited since the form opened */
	char *error;       /* the server's message for it; owned */
};

struct ui_form;

/* Builds the JSON body from the fields (a new object). */
typedef cJSON *(*ui_form_body_fn)(const struct ui_form *f);
/* A choice or bool changed: show or hide the fields that depend on it. */
typedef void (*ui_form_change_fn)(struct ui_form *f);
/* The write succeeded; parent is the screen that opened the form (still
 * open), resp the answer (NULL body for 204). */
typedef void (*ui_form_saved_fn)(struct ui_view *parent,
				 const struct lc_response *resp);
/* Before sending: NULL to send, else why not (a message for the field it
 * names in *field). */
typedef const char *(*ui_form_check_fn)(const struct ui_form *f,
					const char **field);

struct ui_form {
	char *method;           /* POST, PATCH, PUT */
	char *path;             /* the API path */
	struct ui_field *fields;
	size_t len;
	size_t focus;
	char *error;            /* a message for no field; owned */
	int sending;            /* the request is on its way */
	const char *list_field; /* a choice filled from list_path, or NULL */
	char *list_path;
	char *list_exclude;
	struct ui_view *parent;
	ui_form_body_fn body;   /* may return NULL: no body (a DELETE) */
	ui_form_change_fn on_change;
	ui_form_saved_fn saved;
	ui_form_check_fn check; /* NULL: none */
	char *note;             /* a line over the fields, or NULL; owned */
};

/* A new form sending method to path; open it with ui_form_open. */
struct ui_form *ui_form_new(const char *method, const char *path,
			    ui_form_body_fn body, ui_form_saved_fn saved);
/* Add a field with its first value (text; "yes"/"no" for a bool; NULL:
 * empty); the field (valid until the next add). */
struct ui_field *ui_form_add(struct ui_form *f, enum ui_field_kind kind,
			     const char *name, const char *label,
			     const char *value);
/* Add a choice field over choices (copied); the first value is value
 * when it is one of them, else the first choice. */
struct ui_field *ui_form_add_choice(struct ui_form *f, const char *name,
				    const char *label,
				    const char *const *choices, size_t n,
				    const char *value);
/* Fill choice field name, when the form opens, from the slugs of the
 * list at path (one page; the user's own projects, say), leaving out
 * exclude (may be NULL). Until then the form cannot be sent. */
void ui_form_choices_from(struct ui_form *f, const char *name,
			  const char *path, const char *exclude);
/* The field named name, or NULL. */
struct ui_field *ui_form_field(const struct ui_form *f, const char *name);
/* A field's value as the API takes it: text, the chosen choice, or
 * "yes"/"no". */
const char *ui_field_text(const struct ui_field *fl);
/* Add a field to a JSON body by kind (number: a JSON number, bool: true
 * or false, else a string); hidden fields are left out. */
void ui_form_put(cJSON *body, const struct ui_field *fl);
/* A line shown over the fields (what the form will do); copied. */
void ui_form_note(struct ui_form *f, const char *note);
/* Open f over parent, titled title (the form is the view's from now on). */
void ui_form_open(struct ui_app *app, struct ui_view *parent,
		  const char *title, struct ui_form *f);

#endif
