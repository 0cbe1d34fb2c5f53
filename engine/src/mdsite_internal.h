/*
 * What the Markdown site generator's files share: a string map, the text
 * helpers (UTF-8 repair, HTML and URL escaping, heading slugs), link
 * rewriting, the md4c renderer that turns one page's Markdown into its
 * HTML body, and the manifest of the state kept for incremental builds.
 * mdsite.c builds the site from these; the unit tests call them directly.
 */
#ifndef LECTERN_MDSITE_INTERNAL_H
#define LECTERN_MDSITE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "internal.h"

/* Longest heading id in bytes: ids end up in URLs, and a whole paragraph
 * set as a heading should not make one kilobytes long. */
#define LEC_MDSITE_SLUG_MAX 120

/* Map --------------------------------------------------------------------- */

/* Strings (copied) to numbers, by open addressing. */
struct lec_mdsite__map_slot {
	char *key; /* NULL: empty */
	size_t value;
};
struct lec_mdsite__map {
	struct lec_mdsite__map_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t len;
};
#define LEC_MDSITE__MAP_INIT { NULL, 0, 0 }

/* The value stored for key (n bytes), or NULL when absent. */
size_t *lec_mdsite__map_get(const struct lec_mdsite__map *m, const char *key,
			    size_t n);
/* Store value for key, replacing an older one. LEC_OK or LEC_ENOMEM. */
int lec_mdsite__map_put(struct lec_mdsite__map *m, const char *key, size_t n,
			size_t value);
void lec_mdsite__map_dispose(struct lec_mdsite__map *m);

/* Text -------------------------------------------------------------------- */

/* If s is not valid UTF-8 or holds characters HTML text must not (control
 * characters other than whitespace, NUL included; noncharacters), append to
 * out a copy with each of them, and each maximal invalid subsequence (the
 * WHATWG decoder's rule), replaced by U+FFFD and return how many were
 * replaced; return 0 and leave out alone when s is fine as it is. */
size_t lec_mdsite__utf8_repair(const char *s, size_t n,
			       struct lec__buf *out);

/* Append s escaped for HTML text and double-quoted attributes. */
void lec_mdsite__html_escape(struct lec__buf *out, const char *s,
			     size_t n);

/* Append a URL for a double-quoted attribute: bytes outside the URL-safe
 * set are percent-encoded (existing %XX kept), '&' becomes &amp;. */
void lec_mdsite__url_escape(struct lec__buf *out, const char *s,
			    size_t n);

/* Append the UTF-8 text an entity stands for ("&amp;", "&#233;",
 * "&#xE9;"); returns 0 without appending when the name is unknown. Invalid
 * code points give U+FFFD, as CommonMark says. */
int lec_mdsite__entity_decode(struct lec__buf *out, const char *s,
			      size_t n);

/* Append the slug of a heading's text as GitHub makes it, so that links
 * written for GitHub find their anchors: the text trimmed and lowercased,
 * letters, marks, digits, '_' and '-' kept, each space a '-', the rest
 * dropped; at most LEC_MDSITE_SLUG_MAX bytes (a cut one ends in no '-');
 * "section" when nothing is left. */
void lec_mdsite__slugify(struct lec__buf *out, const char *s,
			 size_t n);

/* Make the slug in id unique among the ids already handed out on the page
 * (`used`), GitHub's way: the first "x" stays "x", later ones become
 * "x-1", "x-2", ..., skipping any taken. LEC_OK or LEC_ENOMEM. */
int lec_mdsite__unique_id(struct lec_mdsite__map *used,
			  struct lec__buf *id);

/* Links ------------------------------------------------------------------- */

/* The output path (e.g. "guide/index.html") of the page made from the
 * source path src_rel (normalised, relative to the source root), or NULL
 * when no page comes from it. */
typedef const char *(*lec_mdsite__resolve_fn)(const char *src_rel,
					       void *payload);

struct lec_mdsite__links {
	const char *page_dir; /* the page's directory: "" or "guide/sub" */
	lec_mdsite__resolve_fn resolve;
	void *payload;
};

/* Append href as the generated page must carry it: a relative link to a .md
 * file points at the .html page made from it (README.md that became its
 * directory's index.html points there), keeping ?query and #fragment;
 * anything else (URLs with a scheme, mailto:, paths from the root, #anchors,
 * other files) is appended unchanged. Not escaped. */
void lec_mdsite__rewrite_href(struct lec__buf *out, const char *href,
			      size_t n, const struct lec_mdsite__links *links);

/* Normalise dir + "/" + path ("." and ".." resolved, empty segments
 * dropped) into out; returns 0 when ".." climbs above the root. */
int lec_mdsite__join_path(struct lec__buf *out, const char *dir,
			  const char *path, size_t n);

/* Rendering --------------------------------------------------------------- */

/* Render one page's Markdown (valid UTF-8) with GitHub's dialect, appending
 * its HTML to body. *title gets the text of the first h1 (owned by the
 * caller) or NULL. Headings carry unique ids and a headerlink anchor; links
 * are rewritten through `links`. LEC_OK, LEC_ENOMEM or LEC_ERROR. */
int lec_mdsite__render(const char *md, size_t n,
		       const struct lec_mdsite__links *links,
		       struct lec__buf *body, char **title);

/* A page's front matter (mdsite_meta.c): when md (valid UTF-8) opens with
 * a "---" line, a "---" or "..." line closes the block within 64 KiB and
 * the block is a YAML mapping (or empty), *skip is the bytes it takes (the
 * Markdown starts after them) and *title a copy of its top-level "title"
 * (owned by the caller) or NULL. Else *skip is 0 and *title NULL. LEC_OK
 * or LEC_ENOMEM. */
int lec_mdsite__front_matter(const char *md, size_t n, size_t *skip,
			     char **title);

/* The stylesheet, themes/site.css compiled in. */
extern const char lec_mdsite__css[];
extern const size_t lec_mdsite__css_len;

/* Kept state -------------------------------------------------------------- */

/* Longest generator stamp: two build ids of up to 32 bytes in hex and the
 * '+' between them (mdsite_state.c). */
#define LEC_MDSITE__STAMP_MAX 129

/* A page of the previous build, as its manifest line says. */
struct lec_mdsite__kept_page {
	char *out_rel; /* "guide/index.html", never empty */
	char *src_rel; /* "guide/README.md"; "" for the generated index */
	char *title;   /* its first h1; NULL: none */
	char hash[LEC__SHA256_HEX_LEN + 1]; /* of the source; "": never reuse */
	char html[LEC__SHA256_HEX_LEN + 1]; /* of its HTML (<state>/pages) */
	uint64_t size;                      /* of its HTML */
};

/* A manifest read whole. */
struct lec_mdsite__state {
	char *generator;                     /* the stamp that wrote it */
	char site[LEC__SHA256_HEX_LEN + 1];  /* digest of the site's frame */
	struct lec_mdsite__kept_page *pages;
	size_t npages;
	struct lec_mdsite__map by_out;       /* out_rel -> pages index */
};

/* Parse a manifest (len bytes, not NUL-terminated) into *out, which the
 * caller disposes of after LEC_OK. LEC_EINVALID for anything but a whole,
 * well-formed manifest of this format (*out is then empty); LEC_ENOMEM. */
int lec_mdsite__state_parse(const char *text, size_t len,
			    struct lec_mdsite__state *out);
/* Whether text starts as a manifest of another format does, which another
 * Lectern wrote. */
int lec_mdsite__state_foreign(const char *text, size_t len);
/* Free what *st holds and empty it; st may be NULL. */
void lec_mdsite__state_dispose(struct lec_mdsite__state *st);
/* The kept page written at out_rel, or NULL. */
const struct lec_mdsite__kept_page *
lec_mdsite__state_find(const struct lec_mdsite__state *st,
		       const char *out_rel);

/* Append a manifest: the header, one line per page, the end line. */
void lec_mdsite__state_put_header(struct lec__buf *out,
				  const char *generator, const char *site);
void lec_mdsite__state_put_page(struct lec__buf *out,
				const struct lec_mdsite__kept_page *k);
void lec_mdsite__state_put_end(struct lec__buf *out, size_t npages);
/* Append s as the manifest writes strings, its length first ("5:guide"):
 * what follows it cannot be mistaken for part of it. */
void lec_mdsite__state_put_string(struct lec__buf *out, const char *s);

/* What tells this build of the generator from any other: the GNU build
 * ids of the program or library holding mdsite (its code and the compiled
 * in stylesheet) and of md4c's, which a package upgrade can change under
 * an unchanged Lectern. NULL when one has no build id: no state is kept
 * then, as nothing would tell a changed generator. Static storage. */
const char *lec_mdsite__generator_stamp(void);

#endif
