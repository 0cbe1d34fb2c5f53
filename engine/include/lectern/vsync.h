/*
 * Version sync: bring a project's versions in line with the branches and
 * tags of its repository (behaviour notes §6.1-§6.2), from the refs that
 * lec_repo_list_refs read out of the project's repo cache.
 *
 * Tags are synced before branches, as the service does. For each ref: a
 * branch is identified by its name and a tag by its commit; the version's
 * verbose_name is the ref's name. A ref literally named `latest` or
 * `stable` takes over the version with that slug (which stops being
 * machine-managed); when such a ref is gone, the version it held goes back
 * to the engine. A version with the ref's name and type gets the ref's
 * identifier; a new ref becomes a new, inactive version. Versions whose ref
 * vanished are deleted unless active, uploaded, machine-managed or `latest`
 * / `stable` (tags are matched by name, branches by identifier). Then
 * `latest` follows the project's default branch (the remote's when the
 * project names none) and `stable` the highest final PEP 440 release.
 */
#ifndef LECTERN_VSYNC_H
#define LECTERN_VSYNC_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/repo.h"
#include "lectern/store.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lec_vsync_result {
	size_t added;   /* versions created for new refs */
	size_t updated; /* versions given a new identifier, or handed between
			   a `latest`/`stable` ref and the engine */
	size_t removed; /* versions deleted because their ref vanished */
	/* The version `stable` now stands for when the sync created or moved
	 * stable (the service's "promoted" version), else 0. */
	int64_t promoted_stable_id;
	/* The build of `stable` the sync triggered (it was created or moved,
	 * it is active, and no build of it was queued or running), else 0. */
	int64_t stable_build_id;
};

/**
 * Sync a project's versions with its repository's refs.
 *
 * Not one transaction: lec_version_create, lec_version_update_latest and
 * lec_version_update_stable each commit their own, and SQLite transactions
 * do not nest. Each step moves the versions toward what the refs determine
 * and none depends on a later one, so a sync that fails part-way leaves a
 * subset of its changes, and running it again (as the next sync does)
 * completes them: the call is idempotent. Deletes are conditional in the
 * database, so a version activated meanwhile is never deleted. Two syncs of
 * one project must not run at once (each could add the same new ref); the
 * pipeline's sync queue hands a project to one worker at a time.
 *
 * Refs whose name or identifier is longer than a version allows
 * (LEC_VERSION_NAME_MAX) are ignored: they cannot be versions.
 *
 * As the service's sync_versions_task, a sync that creates or moves an
 * active `stable` triggers a build of it, so /en/stable/ is served; not
 * when a build of it is already queued or running (that one resolves the
 * new commit itself, and a trigger would cancel it).
 * @param refs what lec_repo_list_refs returned
 * @param out  counts of what changed; zeroed first
 * @return LEC_OK; LEC_ENOTFOUND (no such project); LEC_EINVALID (refs or
 *         out missing); store errors
 */
int lec_vsync_apply(struct lec_store *store, int64_t project_id,
		    const struct lec_repo_refs *refs,
		    struct lec_vsync_result *out);

#ifdef __cplusplus
}
#endif
#endif
