/*
 * Publishing a tree as a version's docs (build_publish.c), as more than
 * the publish step needs it: the offline copies of another instance's
 * docs (mirror.c) publish their trees this way, and the pipeline's
 * recovery (pipeline.c) finishes a publication a crash interrupted.
 */
#ifndef LECTERN_BUILD_PUBLISH_H
#define LECTERN_BUILD_PUBLISH_H

#include <stdint.h>

#include "lectern/build.h"
#include "lectern/store.h"

/* Remove from a finished build's tree whatever is not a regular file or a
 * directory (links, devices, fifos, sockets), drop set-id bits, and give
 * it to the server's user: nothing in it can then lead out of it. */
int lec__sanitize_tree(const char *dir);
/* Which output becomes which version's published docs (a build's, or a
 * mirror's refresh, mirror.c). Strings borrowed. */
struct lec__publish {
	struct lec_store *st;
	const char *data_dir;
	const char *project_slug;
	int64_t project_id;
	int64_t version_id;
	const char *version_slug;
	int64_t build_id;  /* the output is <data>/outputs/<build_id> */
	unsigned keep;     /* outputs kept per version; 0: the default */
};
/* Move the sanitized tree src (holding html/) to outputs/<build_id>, make
 * it the version's published output with one rename() of its link, then
 * remove the version's passed outputs beyond the newest keep. LEC_OK;
 * LEC_EIO (nothing published, the message says why); LEC_ENOMEM. */
int lec__publish_tree(const struct lec__publish *p, const char *src);
/* A build interrupted (kill -9) after its output became the version's
 * published docs: bring the version's downloads and search index in line
 * with what is served and return 1 (the build did publish); 0 when its
 * output is not the one published. */
int lec__publish_recover(struct lec_store *st, const char *data_dir,
			 const struct lec_build *build);

#endif
