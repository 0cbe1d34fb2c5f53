/*
 * Running one build command in a sandbox, with limits, live output and
 * cancellation.
 *
 * A command runs under bubblewrap (LEC_RUNNER_BWRAP) in a filesystem built
 * up from nothing: read-only /usr (with the /bin, /lib* and /sbin links), a
 * short list of /etc files interpreters need (the dynamic linker's cache,
 * certificates, alternatives, MIME types, font and Python configuration), a
 * synthetic /etc/passwd and /etc/group naming only the build user, a fresh
 * /proc and /dev, a size-capped private /tmp and /dev/shm, and the spec's
 * mounts (the checkout, the output, a project's virtualenv) each at its own
 * path. The root and /dev are read-only, so every byte a build writes lands
 * in a capped tmpfs or a watched directory, never in uncounted memory. Nothing
 * else of the host is there: no /root, /home, /srv, /var, no data directory,
 * no other build. Every namespace is unshared, so a command has no network
 * but its own loopback unless the spec asks for more: the egress proxy
 * (LEC_RUNNER_NET_EGRESS, egress.h: the dependency-install step, whose
 * commands run the repository's code) or, for Lectern's own git helper
 * alone, the host's network (LEC_RUNNER_NET_HOST). The command runs as a
 * pid namespace whose whole tree dies with it: when the runner returns,
 * nothing the command started is still running.
 *
 * Identity: when the runner's process is root, the forked child drops to the
 * spec's build uid and gid (setgroups, setgid, setuid) before it execs
 * bubblewrap, because bubblewrap under root maps the sandbox's user back to
 * host root. The mounts' sources may then lie below directories the build
 * user cannot enter (a data directory in /root): the child, still root,
 * opens each source, gives itself a private mount namespace with a tmpfs
 * over /tmp and binds the sources there, where bubblewrap finds them. When
 * the runner is not root, bubblewrap runs as the runner's own user.
 *
 * Limits (struct lec_runner_limits): wall-clock time and output (enforced by
 * the runner), address space, file size, open files and CPU time (rlimits of
 * every process of the command), processes (RLIMIT_NPROC set inside the
 * sandbox's own user namespace by prlimit(1), where it counts the sandbox's
 * processes only), the size of /tmp, and the size of a watched directory
 * (measured at most once a second; the command is stopped past the cap).
 *
 * Secrets never reach an argv (ps shows every argv): bubblewrap is exec'd
 * with the command's environment as its own, which it passes on unchanged.
 *
 * Stopping a command (time limit, output or disk cap, cancel) sends SIGTERM
 * to its process group and SIGKILL after LEC_RUNNER_KILL_GRACE_MS. Under
 * bubblewrap the group is bubblewrap itself, and its death kills the
 * namespace at once.
 *
 * The output of the command (stdout and stderr merged, in order) reaches the
 * caller in chunks as it arrives. Recorded output must not show secrets:
 * lec_runner_mask masks one buffer, and struct lec_runner_masker masks a
 * stream of chunks so that a secret split between two chunks is still found.
 *
 * lec_runner_run blocks the calling thread until the command has ended; the
 * calling thread must not exit meanwhile (the command is killed when the
 * thread that started it dies, so a crashed server leaves nothing running).
 * The process must not ignore SIGCHLD (the runner waits for its child).
 */
#ifndef LECTERN_RUNNER_H
#define LECTERN_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "lectern/build.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Debian's bubblewrap. An absolute path: the sandbox tool is never looked up
 * on a PATH someone else may control. */
#define LEC_RUNNER_BWRAP "/usr/bin/bwrap"

/* The service's build time limit. */
#define LEC_RUNNER_DEFAULT_TIME_LIMIT_S (15 * 60)
/* Address space per process: Sphinx on a large project stays well below;
 * a runaway allocation fails instead of swapping the machine to death. */
#define LEC_RUNNER_DEFAULT_MEMORY ((size_t)4 * 1024 * 1024 * 1024)
/* No more output than a command may keep in the database. */
#define LEC_RUNNER_DEFAULT_OUTPUT ((size_t)LEC_BUILD_OUTPUT_MAX)
/* Processes in one sandbox: Sphinx with parallel readers and pip building a
 * wheel use a few dozen; a fork bomb stops here instead of at the machine's
 * limit. */
#define LEC_RUNNER_DEFAULT_NPROC 256
/* Open files per process: far above what generators use, far below the
 * machine's limit. */
#define LEC_RUNNER_DEFAULT_NOFILE 1024
/* Largest single file a build may write: a PDF or a zip of a big site is
 * a few hundred MiB at most. */
#define LEC_RUNNER_DEFAULT_FSIZE ((size_t)1024 * 1024 * 1024)
/* CPU seconds per process: the wall-clock limit already bounds a build;
 * this only stops a spinning process early on a loaded machine. */
#define LEC_RUNNER_DEFAULT_CPU_S (15 * 60)
/* The private /tmp lives in RAM: big enough for Sphinx's and pip's
 * temporary files, small enough that a build cannot eat the memory. */
#define LEC_RUNNER_DEFAULT_TMP ((size_t)512 * 1024 * 1024)
/* The checkout and output together: a large documentation repository with
 * its built site and formats stays below this. */
#define LEC_RUNNER_DEFAULT_DISK ((size_t)5 * 1024 * 1024 * 1024)
/* What a build may create in its watched directories (runner.c stops it
 * past either): a documentation tree is a dozen levels deep and a
 * virtualenv tens of thousands of files. */
#define LEC_RUNNER_TREE_MAX_DEPTH 256
#define LEC_RUNNER_TREE_MAX_ENTRIES 2000000u
/* Whom a build runs as when the runner is root: nobody:nogroup. */
#define LEC_RUNNER_DEFAULT_UID 65534
#define LEC_RUNNER_DEFAULT_GID 65534

/* How often the cancel callback is asked, in milliseconds: often enough that
 * cancelling feels immediate, rarely enough to cost nothing. */
#define LEC_RUNNER_CANCEL_POLL_MS 200
/* Between SIGTERM and SIGKILL when a command is stopped: time for a tool to
 * clean up, short enough that a stuck one does not hold a build worker. */
#define LEC_RUNNER_KILL_GRACE_MS 2000

/* The network a command has (struct lec_runner_spec.network). */
/* None: a network namespace of its own, with its own loopback only. */
#define LEC_RUNNER_NET_NONE 0
/* The host's: its loopback and local network too. Only for Lectern's own
 * code (the git helper fetching the repository), never a command that
 * runs the repository's. */
#define LEC_RUNNER_NET_HOST 1
/* A namespace of its own, and the egress proxy's socket (egress_fd) as
 * descriptor LEC_RUNNER_EGRESS_FD: the command reaches the network only
 * through the proxy, and the launcher (Lectern's forwarder) is what
 * points it there. */
#define LEC_RUNNER_NET_EGRESS 2
/* The descriptor the proxy's socket has in the command: the first one
 * after those the runner sets up for bubblewrap. */
#define LEC_RUNNER_EGRESS_FD 7
#define LEC_RUNNER_EGRESS_FD_TEXT "7"

/* Secrets shorter than this are not masked: masking every "a" or "1" of a
 * log would destroy it and hide nothing worth hiding. */
#define LEC_RUNNER_MASK_MIN_LEN 4

struct lec_runner_limits {
	unsigned int version;  /* LEC_RUNNER_LIMITS_VERSION */
	unsigned time_limit_s; /* wall-clock seconds; 0: none */
	size_t memory_bytes;   /* RLIMIT_AS of each process; 0: none */
	size_t output_bytes;   /* stop the command once it has written more
				  than this; 0: none */
	unsigned nproc;        /* processes in the sandbox; 0: none */
	unsigned nofile;       /* RLIMIT_NOFILE of each process; 0: none */
	size_t fsize_bytes;    /* RLIMIT_FSIZE of each process; 0: none */
	unsigned cpu_s;        /* RLIMIT_CPU of each process; 0: none */
	size_t tmp_bytes;      /* size of the private /tmp; 0: no cap */
	size_t disk_bytes;     /* size of spec->watch_dirs; 0: not watched */
};
#define LEC_RUNNER_LIMITS_VERSION 2
#define LEC_RUNNER_LIMITS_INIT                                               \
	{ LEC_RUNNER_LIMITS_VERSION, LEC_RUNNER_DEFAULT_TIME_LIMIT_S,        \
	  LEC_RUNNER_DEFAULT_MEMORY, LEC_RUNNER_DEFAULT_OUTPUT,              \
	  LEC_RUNNER_DEFAULT_NPROC, LEC_RUNNER_DEFAULT_NOFILE,               \
	  LEC_RUNNER_DEFAULT_FSIZE, LEC_RUNNER_DEFAULT_CPU_S,                \
	  LEC_RUNNER_DEFAULT_TMP, LEC_RUNNER_DEFAULT_DISK }

/* A spec's tmpfs mount's size: it holds a few links, not a build's
 * files. */
#define LEC_RUNNER_TMPFS_MOUNT_BYTES ((size_t)1024 * 1024)

/* A host path made visible in the sandbox at the same path. */
struct lec_runner_mount {
	const char *path; /* absolute; must exist */
	int writable;     /* 0: read-only */
};

struct lec_runner_spec {
	/* The command, NULL-terminated. argv[0] is looked up on the PATH of
	 * env (inside the sandbox); for a shell line use "/bin/sh", "-c",
	 * line. Never build a shell line from untrusted pieces. */
	const char *const *argv;
	/* NULL-terminated "KEY=VALUE" strings: the command's whole
	 * environment, nothing is inherited (NULL: empty). Under bubblewrap
	 * the command also gets PWD (its working directory): bubblewrap
	 * always sets it, as a shell would. */
	const char *const *env;
	/* The working directory (inside a mount); NULL: "/". */
	const char *cwd;
	/* What the sandbox sees besides the system (see the top of this
	 * file), in order: a later mount may lie inside an earlier one. */
	const struct lec_runner_mount *mounts;
	size_t nmounts;
	/* NULL-terminated absolute paths where the sandbox has an empty,
	 * writable tmpfs of LEC_RUNNER_TMPFS_MOUNT_BYTES instead of anything
	 * of the host's (a warm generator links each build's own directory
	 * into one), after the mounts; NULL: none. Ignored unsandboxed. */
	const char *const *tmpfs;
	/* Directories whose size together limits->disk_bytes caps (the
	 * build's directory, the project's virtualenvs), NULL-terminated;
	 * NULL: none. */
	const char *const *watch_dirs;
	/* LEC_RUNNER_NET_NONE (0), _HOST or _EGRESS (see above); ignored
	 * unsandboxed but for _EGRESS's descriptor, which is passed all the
	 * same (a warm generator's control socket rides it too). */
	int network;
	/* With LEC_RUNNER_NET_EGRESS: the proxy's end for the command
	 * (lec_egress_start), given to it as LEC_RUNNER_EGRESS_FD; still the
	 * caller's to close after the run. */
	int egress_fd;
	/* NULL, or a NULL-terminated argv of a program of Lectern's own that
	 * runs the command inside the sandbox (`lectern __egress FD --`,
	 * which argv is appended to); it must be visible there (a mount).
	 * It runs outside the address-space cap, which the runner then sets
	 * on the command alone (Lectern under AddressSanitizer reserves
	 * terabytes of address space). Ignored unsandboxed. */
	const char *const *launcher;
	/* Whom the command runs as when the runner is root; ignored
	 * otherwise. Must not be 0. */
	unsigned uid, gid;
	/* 1: run as the runner's own user even when that is root (still in
	 * the sandbox, with no capabilities): only for Lectern's own helper
	 * reading a local repository that only its owner can read. */
	int same_user;
	/* NULL: LEC_RUNNER_LIMITS_INIT. */
	const struct lec_runner_limits *limits;
	/* 1: run the command directly, without bubblewrap: only for a
	 * writer's own tree on their own machine (`lectern preview`) and the
	 * engine's own probes. Then the whole host is visible, the network is
	 * the host's, PWD is not added, nothing changes identity, and a
	 * process that leaves the command's process group (setsid) can
	 * outlive it; the time, output, memory, file-size, open-file and CPU
	 * limits, the environment and the working directory still apply. */
	int unsandboxed;
};

/* Called with each chunk of combined stdout+stderr as it arrives (a chunk
 * may split lines and UTF-8 characters). Return non-zero to stop the command
 * (it then ends LEC_RUNNER_CANCELLED). */
typedef int (*lec_runner_output_cb)(const char *data, size_t len,
				    void *payload);
/* The first bytes of a short command's output (a probe's line or two),
 * NUL-terminated: the payload of lec_runner_keep_output. Zero it first. */
#define LEC_RUNNER_KEPT_MAX 512
struct lec_runner_kept {
	char text[LEC_RUNNER_KEPT_MAX];
	size_t len;
};
/* A lec_runner_output_cb keeping what fits in a struct lec_runner_kept
 * (payload) and dropping the rest. */
int lec_runner_keep_output(const char *data, size_t len, void *payload);

/* Asked about every LEC_RUNNER_CANCEL_POLL_MS; return non-zero to cancel the
 * command (its whole process tree is killed). */
typedef int (*lec_runner_cancel_cb)(void *payload);

enum lec_runner_end {
	LEC_RUNNER_EXITED,  /* it exited by itself; see exit_code */
	LEC_RUNNER_SIGNALED, /* a signal killed it (unsandboxed), or killed
				bubblewrap itself (the OOM killer) */
	LEC_RUNNER_TIMED_OUT,    /* the time limit expired; it was killed */
	LEC_RUNNER_CANCELLED,    /* the cancel or output callback said stop */
	LEC_RUNNER_OUTPUT_LIMIT, /* it wrote more than output_bytes */
	LEC_RUNNER_DISK_LIMIT,   /* watch_dirs grew past disk_bytes */
	LEC_RUNNER_TREE_LIMIT,   /* watch_dirs held a tree deeper or with
				    more entries than LEC_RUNNER_TREE_MAX_* */
	LEC_RUNNER_START_FAILED  /* it could not be started */
};

struct lec_runner_result {
	enum lec_runner_end end;
	/* The exit status, or 128 + the signal that killed it. Under
	 * bubblewrap a command killed by a signal ends LEC_RUNNER_EXITED with
	 * 128 + signal: bubblewrap reports it that way, as shells do. */
	int exit_code;
	int64_t start_us, end_us; /* microseconds since the epoch, UTC */
};

/**
 * Run one command to its end and report how it ended.
 * @param spec    what to run and how (see struct lec_runner_spec)
 * @param out     receives the output as it arrives, or NULL to discard it;
 *                with an output cap it gets at most output_bytes in total
 * @param cancel  asked about every LEC_RUNNER_CANCEL_POLL_MS, or NULL
 * @param payload passed to both callbacks
 * @param result  filled on every return
 * @return LEC_OK when the command ran, however it ended (see result->end);
 *         LEC_EINVALID (bad spec: no argv, an env entry without '=', a
 *         relative path, a build uid of 0, unknown limits version),
 *         LEC_ENOMEM, LEC_ENOTFOUND (unsandboxed: command not on PATH;
 *         a mount's path does not exist),
 *         LEC_ERROR (could not start or watch it, e.g. bubblewrap missing);
 *         on every error result->end is LEC_RUNNER_START_FAILED and the
 *         message says why.
 */
int lec_runner_run(const struct lec_runner_spec *spec, lec_runner_output_cb out,
		   lec_runner_cancel_cb cancel, void *payload,
		   struct lec_runner_result *result);

/**
 * Whether bubblewrap can sandbox commands here: it is installed and can
 * create its namespaces (a container may refuse them). It runs `true` in the
 * same sandbox lec_runner_run builds, so it takes a few milliseconds.
 * @param why when not available and why is not NULL: the reason (bubblewrap
 *            missing, or bubblewrap's own error), owned by the caller
 *            (free()); set to NULL when available
 * @return 1 available, 0 not
 */
int lec_runner_sandbox_available(char **why);

/**
 * Mask every occurrence of each secret in buf, in place: each byte of an
 * occurrence becomes '*', so the length does not change. Occurrences may
 * overlap (all are masked). Secrets shorter than LEC_RUNNER_MASK_MIN_LEN are
 * skipped. For output that arrives in chunks use struct lec_runner_masker:
 * masking each chunk alone misses a secret split between two chunks.
 * @param secrets NULL-terminated, or NULL for none
 */
void lec_runner_mask(char *buf, size_t len, const char *const *secrets);

/*
 * A masker masks a stream. It holds back the last (longest secret - 1)
 * bytes of what it has been fed, unmasked, because a secret may start there
 * and end in the next chunk; it releases them, masked, once the following
 * chunk shows whether they start a secret, or at the end (flush). So a
 * secret split across any number of chunks is masked, and the bytes released
 * are exactly the stream's bytes, masked, in order, only a little later.
 * Usage: init; feed each chunk and record what it returns; flush at the end
 * and record that; dispose. The fields are private.
 */
struct lec_runner_masker {
	const char *const *secrets; /* not copied: must outlive the masker */
	size_t keep;    /* bytes held back: the longest secret's length - 1 */
	char *buf;      /* [0, start) released last time; [start, len) held */
	size_t start, len, cap;
	size_t pending; /* held bytes already known to be part of a secret */
};

/**
 * Start a masker for these secrets (NULL-terminated, or NULL for none; not
 * copied, so they must stay valid until lec_runner_masker_dispose).
 */
void lec_runner_masker_init(struct lec_runner_masker *m,
			    const char *const *secrets);

/**
 * Feed the next chunk of the stream.
 * @param out, out_len the masked bytes now ready to record (possibly none):
 *                     a pointer into the masker, valid until the next call
 * @return LEC_OK or LEC_ENOMEM (then nothing is released and the chunk is
 *         not taken)
 */
int lec_runner_masker_feed(struct lec_runner_masker *m, const char *data,
			   size_t len, const char **out, size_t *out_len);

/**
 * End of the stream: release the held-back bytes, masked. The masker is then
 * empty and may be fed a new stream.
 * @param out, out_len as for lec_runner_masker_feed
 */
void lec_runner_masker_flush(struct lec_runner_masker *m, const char **out,
			     size_t *out_len);

/** Free what the masker holds (not the struct). Accepts NULL. */
void lec_runner_masker_dispose(struct lec_runner_masker *m);

#ifdef __cplusplus
}
#endif
#endif
