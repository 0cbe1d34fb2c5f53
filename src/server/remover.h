/*
 * The project remover: one thread of the server that deletes the files of
 * removed projects (lec_project_removal_finish), so that DELETE
 * /api/v3/projects/<slug>/ answers once the project's rows are gone,
 * however big its files, and a removal a killed server left half done is
 * finished by the next one to start on the data directory. The same
 * thread removes what closed pull requests left once their grace period
 * is over (lec_external_sweep).
 */
#ifndef LECTERN_SRV_REMOVER_H
#define LECTERN_SRV_REMOVER_H

/* How often the thread looks for a removal to finish: the delay before a
 * removed project's files start to go (a build's start waits as long). */
#define SRV_REMOVER_POLL_MS 200u
/* How often closed pull requests' versions are looked for: their grace
 * period is a day by default, so a second late is nothing. */
#define SRV_REMOVER_SWEEP_MS 1000u

struct srv_remover;

/* Start the thread on its own store handle of data_dir; closed pull
 * requests' files go external_grace_s after they closed (0:
 * LEC_EXTERNAL_GRACE_DEFAULT_S). Returns 0, or -1 after logging why. */
int srv_remover_start(struct srv_remover **out, const char *data_dir,
		      unsigned external_grace_s);
/* Stop it, after the removal under way (its files' deletion is not cut
 * short; a killed server's is finished by the next). Accepts NULL. */
void srv_remover_stop(struct srv_remover *remover);

#endif
