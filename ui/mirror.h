/*
 * `m` on a remote context's Projects screen: copy the selected project's
 * docs into the local engine for offline reading, by running `lectern
 * mirror add` as a detached background process. The copy is paced and can
 * take minutes; the TUI never waits for it, and it goes on if the TUI is
 * quit. Its output goes to a log file beside the data directory's others.
 */
#ifndef LECTERN_UI_MIRROR_H
#define LECTERN_UI_MIRROR_H

#include <stddef.h>

/*
 * Start `lectern [--data DATA] mirror add CONTEXT PROJECT` detached.
 * @param data_dir the CLI's data directory (the local engine's), or NULL
 *        for the child's own default
 * @param log set to the log file's path (owned by the caller) on success
 * @return 0, or -1 with a one-line message in err
 */
int ui_mirror_start(const char *data_dir, const char *context,
		    const char *project, char **log, char *err,
		    size_t errsize);

#endif
