/*
 * The sandboxed runner: output arrives live through the callback, exit
 * codes and the environment are exactly what the command did and was given,
 * the sandbox holds (read-only system, nothing of the host but the mounts,
 * no network, process, /tmp and disk limits),
 * the limits stop a command (time, output, memory, cancel) and leave no
 * process behind, and secrets are masked even across chunk boundaries.
 *
 * The directories live under /var/tmp, not /tmp: the sandbox has a private
 * /tmp, which would hide a /tmp directory whether or not hiding worked.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "harness.h"
#include "internal.h"
#include "lectern/runner.h"

/* The runner's test hook (runner.c): where it looks for bubblewrap. */
extern const char *lec_runner__bwrap_path;

static char base_dir[64];   /* /var/tmp/lectern-runner-XXXXXX */
static char data_dir[96];   /* base/data: not mounted in the tests */
static char build_dir[160]; /* base/data/builds/1: writable, the cwd */
static char outside_dir[96]; /* base/outside: neither */

static const char *const base_env[] = { "PATH=/usr/bin:/bin", NULL };

struct capture {
	char *data;
	size_t len, cap;
	size_t chunks;
	double first_chunk_s; /* monotonic time of the first chunk */
	int stop_after;       /* output callback: stop after this many bytes */
	double cancel_at_s;   /* cancel callback: cancel from this time on */
	int cancel_calls;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int collect(const char *data, size_t len, void *payload)
{
	struct capture *c = payload;

	if (c->chunks++ == 0)
		c->first_chunk_s = now_s();
	if (c->len + len + 1 > c->cap) {
		c->cap = (c->len + len + 1) * 2;
		c->data = realloc(c->data, c->cap);
		if (c->data == NULL)
			exit(2);
	}
	memcpy(c->data + c->len, data, len);
	c->len += len;
	c->data[c->len] = '\0';
	return c->stop_after > 0 && c->len >= (size_t)c->stop_after;
}

static int cancel_when_due(void *payload)
{
	struct capture *c = payload;

	c->cancel_calls++;
	return c->cancel_at_s > 0 && now_s() >= c->cancel_at_s;
}

static void capture_reset(struct capture *c)
{
	free(c->data);
	memset(c, 0, sizeof(*c));
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
			struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_base(void)
{
	if (base_dir[0])
		nftw(base_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void make_dirs(void)
{
	char builds[128];

	if (base_dir[0])
		return;
	snprintf(base_dir, sizeof(base_dir), "/var/tmp/lectern-runner-XXXXXX");
	if (mkdtemp(base_dir) == NULL) {
		perror("mkdtemp");
		exit(2);
	}
	atexit(remove_base);
	snprintf(data_dir, sizeof(data_dir), "%s/data", base_dir);
	snprintf(builds, sizeof(builds), "%s/builds", data_dir);
	snprintf(build_dir, sizeof(build_dir), "%s/1", builds);
	snprintf(outside_dir, sizeof(outside_dir), "%s/outside", base_dir);
	if (mkdir(data_dir, 0700) != 0 || mkdir(builds, 0700) != 0 ||
	    mkdir(build_dir, 0700) != 0 || mkdir(outside_dir, 0700) != 0) {
		perror("mkdir");
		exit(2);
	}
	/* As root the runner runs builds as the build user, whose directory
	 * the build directory is (the pipeline gives it to them too). */
	if (geteuid() == 0 &&
	    chown(build_dir, LEC_RUNNER_DEFAULT_UID, LEC_RUNNER_DEFAULT_GID) != 0) {
		perror("chown");
		exit(2);
	}
}

/* The build directory, bound writable by spec_for. */
static struct lec_runner_mount build_mount;

/* A sandboxed spec: cwd and writable directory the build directory. */
static struct lec_runner_spec spec_for(const char *const *argv)
{
	struct lec_runner_spec spec;

	make_dirs();
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.env = base_env;
	spec.cwd = build_dir;
	build_mount.path = build_dir;
	build_mount.writable = 1;
	spec.mounts = &build_mount;
	spec.nmounts = 1;
	spec.uid = LEC_RUNNER_DEFAULT_UID;
	spec.gid = LEC_RUNNER_DEFAULT_GID;
	return spec;
}

/* Run and capture; the result's return code is checked to be LEC_OK. */
static struct lec_runner_result run(const struct lec_runner_spec *spec,
				    struct capture *c)
{
	struct lec_runner_result res;

	CHECK_OK(lec_runner_run(spec, collect, cancel_when_due, c, &res));
	return res;
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* A sleep argument unique to this test run and call: "1000.<pid><n>". */
static const char *marker_sleep(void)
{
	static char marker[64];
	static int n;

	snprintf(marker, sizeof(marker), "1000.%d%d", (int)getpid(), ++n);
	return marker;
}

/* Output and exit codes --------------------------------------------------- */

TEST(echo_output_arrives)
{
	const char *const argv[] = { "echo", "hello world", NULL };
	const char *const both[] = { "/bin/sh", "-c",
				     "echo out; echo err >&2; echo out2", NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res = run(&spec, &c);
	int64_t t0 = lec__now_us();

	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	CHECK_INT(res.exit_code, 0);
	CHECK_STR(c.data, "hello world\n");
	CHECK(res.start_us > 0 && res.start_us <= res.end_us);
	CHECK(res.end_us <= t0);
	capture_reset(&c);

	spec.argv = both; /* stderr merged into the same stream, in order */
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	CHECK_STR(c.data, "out\nerr\nout2\n");
	capture_reset(&c);
}

TEST(output_is_live)
{
	const char *const argv[] = { "/bin/sh", "-c",
				     "echo first; sleep 0.6; echo second",
				     NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res = run(&spec, &c);
	double end = now_s();

	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	CHECK_STR(c.data, "first\nsecond\n");
	CHECK(c.chunks >= 2);
	/* "first" reached us while the command was still sleeping. */
	CHECK(end - c.first_chunk_s >= 0.4);
	capture_reset(&c);
}

TEST(exit_codes)
{
	const char *const three[] = { "/bin/sh", "-c", "exit 3", NULL };
	const char *const fail[] = { "false", NULL };
	const char *const killed[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
	const char *const missing[] = { "no-such-command-lectern", NULL };
	struct lec_runner_spec spec = spec_for(three);
	struct capture c = { 0 };
	struct lec_runner_result res = run(&spec, &c);

	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	CHECK_INT(res.exit_code, 3);
	spec.argv = fail;
	res = run(&spec, &c);
	CHECK_INT(res.exit_code, 1);
	/* bubblewrap reports a signal death as 128 + signal. */
	spec.argv = killed;
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	CHECK_INT(res.exit_code, 128 + 9);
	capture_reset(&c);
	/* Not found inside the sandbox: bubblewrap says so and fails. */
	spec.argv = missing;
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	CHECK(res.exit_code != 0);
	CHECK(c.data && strstr(c.data, "no-such-command-lectern"));
	capture_reset(&c);
}

/* The environment ---------------------------------------------------------- */

TEST(environment_is_exactly_the_given_one)
{
	const char *const argv[] = { "env", NULL };
	const char *const env[] = { "PATH=/usr/bin:/bin", "FOO=bar baz=qux",
				    "EMPTY=", NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;
	char expected[512];

	setenv("LEC_RUNNER_PARENT_ONLY", "must-not-leak", 1);
	spec.env = env;
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	/* Exactly these, plus the PWD bubblewrap always sets. */
	snprintf(expected, sizeof(expected),
		 "PATH=/usr/bin:/bin\nFOO=bar baz=qux\nEMPTY=\nPWD=%s\n",
		 build_dir);
	CHECK_STR(c.data, expected);
	CHECK(c.data && strstr(c.data, "must-not-leak") == NULL);
	capture_reset(&c);

	/* An empty environment is empty (apart from PWD). */
	spec.argv = (const char *const[]){ "/usr/bin/env", NULL };
	spec.env = NULL;
	res = run(&spec, &c);
	snprintf(expected, sizeof(expected), "PWD=%s\n", build_dir);
	CHECK_STR(c.data, expected);
	capture_reset(&c);

	/* Unsandboxed, not even PWD is added. */
	spec.argv = argv;
	spec.env = env;
	spec.unsandboxed = 1;
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	CHECK_STR(c.data, "PATH=/usr/bin:/bin\nFOO=bar baz=qux\nEMPTY=\n");
	capture_reset(&c);
	unsetenv("LEC_RUNNER_PARENT_ONLY");
}

TEST(working_directory)
{
	const char *const argv[] = { "pwd", NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	char expected[256];

	snprintf(expected, sizeof(expected), "%s\n", build_dir);
	run(&spec, &c);
	CHECK_STR(c.data, expected);
	capture_reset(&c);
	spec.unsandboxed = 1;
	run(&spec, &c);
	CHECK_STR(c.data, expected);
	capture_reset(&c);
	spec.unsandboxed = 0;
	spec.cwd = NULL; /* the root by default */
	run(&spec, &c);
	CHECK_STR(c.data, "/\n");
	capture_reset(&c);
}

TEST(no_fd_leaks_into_the_command)
{
	/* ls opens the directory it lists as fd 3. */
	const char *const argv[] = { "ls", "/proc/self/fd", NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	int leaky = open("/dev/null", O_RDONLY); /* no O_CLOEXEC on purpose */

	CHECK(leaky >= 0);
	run(&spec, &c);
	CHECK_STR(c.data, "0\n1\n2\n3\n");
	capture_reset(&c);
	spec.unsandboxed = 1;
	run(&spec, &c);
	CHECK_STR(c.data, "0\n1\n2\n3\n");
	capture_reset(&c);
	close(leaky);
}

TEST(stdin_is_empty_even_without_ours)
{
	const char *const argv[] = { "/bin/sh", "-c",
				     "cat && ls /proc/self/fd", NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;
	int saved = dup(0);

	/* With fd 0 closed the runner's own pipes start at 0; the command
	 * must still get /dev/null, the pipe and nothing else. */
	close(0);
	res = run(&spec, &c);
	dup2(saved, 0);
	close(saved);
	CHECK_INT(res.exit_code, 0);
	CHECK_STR(c.data, "0\n1\n2\n3\n");
	capture_reset(&c);
}

/* The sandbox -------------------------------------------------------------- */

TEST(only_the_build_directory_is_writable)
{
	char script[1024], inside[256], outside[256], private_tmp[128];
	const char *const argv[] = { "/bin/sh", "-c", script, NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;

	snprintf(inside, sizeof(inside), "%s/inside.txt", build_dir);
	snprintf(outside, sizeof(outside), "%s/outside.txt", outside_dir);
	snprintf(private_tmp, sizeof(private_tmp), "/tmp/lectern-runner-%d",
		 (int)getpid());
	snprintf(script, sizeof(script), "echo in > %s && echo inside-ok",
		 inside);
	res = run(&spec, &c);
	CHECK_INT(res.exit_code, 0);
	CHECK_STR(c.data, "inside-ok\n");
	CHECK(file_exists(inside));
	capture_reset(&c);

	/* Beside the build directory there is nothing to write into. */
	snprintf(script, sizeof(script), "echo out > %s", outside);
	res = run(&spec, &c);
	CHECK(res.exit_code != 0);
	CHECK(c.data && (strstr(c.data, "No such file or directory") ||
			 strstr(c.data, "nonexistent")));
	CHECK(!file_exists(outside));
	capture_reset(&c);

	/* The system is read-only. */
	snprintf(script, sizeof(script), "echo out > /usr/lectern-test");
	res = run(&spec, &c);
	CHECK(res.exit_code != 0);
	CHECK(c.data && strstr(c.data, "Read-only file system"));
	capture_reset(&c);

	/* The root and /dev are read-only too: a build's bytes cannot land
	 * in a tmpfs of no size (the host's memory). */
	snprintf(script, sizeof(script),
		 "echo out > /lectern-test; echo out > /dev/lectern-test; "
		 "mkdir /run; echo null > /dev/null && echo null-ok");
	res = run(&spec, &c);
	CHECK(c.data && strstr(c.data, "/lectern-test: Read-only file system"));
	CHECK(c.data && strstr(c.data, "/dev/lectern-test: Read-only file system"));
	CHECK(c.data && strstr(c.data, "'/run': Read-only file system"));
	CHECK(c.data && strstr(c.data, "null-ok\n"));
	capture_reset(&c);

	/* /tmp is writable but private: nothing reaches the host's. */
	snprintf(script, sizeof(script), "echo t > %s && cat %s", private_tmp,
		 private_tmp);
	res = run(&spec, &c);
	CHECK_INT(res.exit_code, 0);
	CHECK_STR(c.data, "t\n");
	CHECK(!file_exists(private_tmp));
	capture_reset(&c);

	/* Mounted read-only, the build directory is read-only. */
	build_mount.writable = 0;
	snprintf(script, sizeof(script), "echo in > %s/second.txt", build_dir);
	res = run(&spec, &c);
	CHECK(res.exit_code != 0);
	CHECK(c.data && strstr(c.data, "Read-only file system"));
	capture_reset(&c);
}

TEST(only_the_mounts_are_visible)
{
	char secret[256], script[1024];
	const char *const argv[] = { "/bin/sh", "-c", script, NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;
	FILE *f;

	snprintf(secret, sizeof(secret), "%s/lectern.db", data_dir);
	CHECK((f = fopen(secret, "w")) != NULL);
	if (f) {
		fputs("token-of-the-admin\n", f);
		fclose(f);
	}
	/* The data directory around the build directory, the host's
	 * secrets and homes: none of it is there. */
	snprintf(script, sizeof(script),
		 "cat %s; cat /etc/shadow; ls /root /home /srv /opt; "
		 "ls -A %s", secret, data_dir);
	res = run(&spec, &c);
	CHECK(c.data && strstr(c.data, "token-of-the-admin") == NULL);
	CHECK(c.data && strstr(c.data, "/etc/shadow: No such file") != NULL);
	CHECK(c.data && strstr(c.data, "/root': No such file") != NULL);
	CHECK(c.data && strstr(c.data, "/srv': No such file") != NULL);
	/* Only the path down to the mount exists in the data directory. */
	CHECK(c.data && strstr(c.data, "\nbuilds\n") != NULL);
	capture_reset(&c);

	/* The build directory is there, writable; the interpreter works;
	 * the build user is named in the synthetic passwd. */
	snprintf(script, sizeof(script),
		 "echo hi > %s/x && cat %s/x && python3 -c 'print(1+1)' && "
		 "id -un && test \"$(id -u)\" != 0 && echo not-root",
		 build_dir, build_dir);
	res = run(&spec, &c);
	CHECK_INT(res.exit_code, 0);
	CHECK_STR(c.data, "hi\n2\nbuild\nnot-root\n");
	capture_reset(&c);

	/* Unsandboxed the same file is readable: the test is real. */
	spec.unsandboxed = 1;
	snprintf(script, sizeof(script), "cat %s", secret);
	res = run(&spec, &c);
	CHECK_INT(res.exit_code, 0);
	CHECK_STR(c.data, "token-of-the-admin\n");
	capture_reset(&c);
}

/* A spec's tmpfs path is an empty, writable directory in the sandbox,
 * whatever the host has there, and nothing written there reaches the
 * host (a warm generator links each build's directory into one). */
TEST(tmpfs_mounts_are_empty_and_private)
{
	char script[1024], over[160];
	const char *const argv[] = { "/bin/sh", "-c", script, NULL };
	const char *tmpfs[2] = { over, NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;

	snprintf(over, sizeof(over), "%s/scratch", data_dir);
	CHECK(mkdir(over, 0755) == 0);
	lec_test_put(over, "host-file", "the host's\n");
	spec.tmpfs = tmpfs;
	snprintf(script, sizeof(script),
		 "ls -A %s; echo x > %s/made && cat %s/made && "
		 "df -k %s | tail -1 | awk '{print $2}'",
		 over, over, over, over);
	res = run(&spec, &c);
	CHECK_INT(res.exit_code, 0);
	/* Empty; writable; LEC_RUNNER_TMPFS_MOUNT_BYTES big. */
	CHECK_STR(c.data, "x\n1024\n");
	snprintf(script, sizeof(script), "%s/made", over);
	CHECK(!file_exists(script));
	capture_reset(&c);
	/* A relative path is refused. */
	tmpfs[0] = "scratch";
	CHECK_ERR(lec_runner_run(&spec, collect, NULL, &c, &res), LEC_EINVALID);
	capture_reset(&c);
}

TEST(process_and_tmp_limits)
{
	char script[512];
	const char *const argv[] = { "/bin/sh", "-c", script, NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct capture c = { 0 };
	struct lec_runner_result res;

	/* A fork loop stops at the cap; it stops itself at twice the cap
	 * so that without one it would not harm the machine. */
	limits.nproc = 20;
	limits.tmp_bytes = (size_t)1 << 20;
	spec.limits = &limits;
	snprintf(script, sizeof(script),
		 "python3 -c '\n"
		 "import os, time\n"
		 "n = 0\n"
		 "while n < 40:\n"
		 "    try:\n"
		 "        if os.fork() == 0:\n"
		 "            time.sleep(5); os._exit(0)\n"
		 "    except OSError:\n"
		 "        break\n"
		 "    n += 1\n"
		 "print(\"started\", n)'");
	res = run(&spec, &c);
	{
		const char *at = c.data ? strstr(c.data, "started ") : NULL;
		int n = -1;

		CHECK(at && sscanf(at, "started %d", &n) == 1);
		CHECK(n >= 0 && n < 20);
	}
	capture_reset(&c);

	/* /tmp holds at most tmp_bytes, and so does /dev/shm (below its
	 * own cap), which Python's semaphores need writable. */
	snprintf(script, sizeof(script),
		 "dd if=/dev/zero of=/tmp/f bs=1024 count=4096 2>&1; "
		 "ls -l /tmp/f");
	res = run(&spec, &c);
	CHECK(c.data && strstr(c.data, "No space left on device") != NULL);
	capture_reset(&c);
	snprintf(script, sizeof(script),
		 "python3 -c 'import multiprocessing as m; m.Lock(); "
		 "print(\"lock-ok\")' && "
		 "dd if=/dev/zero of=/dev/shm/f bs=1024 count=4096 2>&1");
	res = run(&spec, &c);
	CHECK(c.data && strstr(c.data, "lock-ok\n") != NULL);
	CHECK(c.data && strstr(c.data, "No space left on device") != NULL);
	capture_reset(&c);
	(void)res;
}

TEST(disk_watchdog_stops_a_growing_build)
{
	char script[512];
	const char *const argv[] = { "/bin/sh", "-c", script, NULL };
	const char *const watched[] = { build_dir, NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct capture c = { 0 };
	struct lec_runner_result res;

	/* 8 MiB cap; the command writes up to 16 MiB slowly, then stops by
	 * itself, so the test fails without harm when there is no cap. */
	limits.disk_bytes = (size_t)8 << 20;
	spec.limits = &limits;
	spec.watch_dirs = watched;
	snprintf(script, sizeof(script),
		 "i=0; while [ $i -lt 32 ]; do "
		 "dd if=/dev/zero of=%s/fill$i bs=512k count=1 2>/dev/null; "
		 "sleep 0.1; i=$((i+1)); done; rm -f %s/fill*",
		 build_dir, build_dir);
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_DISK_LIMIT);
	capture_reset(&c);
	snprintf(script, sizeof(script), "rm -f %s/fill*", build_dir);
	spec.watch_dirs = NULL;
	run(&spec, &c);
	capture_reset(&c);

	/* The same 16 MiB at depth 135 (the watchdog once stopped at 128). */
	spec.watch_dirs = watched;
	snprintf(script, sizeof(script),
		 "cd %s && i=0; while [ $i -lt 135 ]; do mkdir deep && cd deep; "
		 "i=$((i+1)); done; i=0; while [ $i -lt 32 ]; do "
		 "dd if=/dev/zero of=fill$i bs=512k count=1 2>/dev/null; "
		 "sleep 0.1; i=$((i+1)); done",
		 build_dir);
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_DISK_LIMIT);
	capture_reset(&c);
	CHECK_OK(lec__remove_beneath(build_dir, "deep"));

	/* A tree deeper than a build may make is stopped, however small. */
	snprintf(script, sizeof(script),
		 "cd %s && i=0; while [ $i -lt %d ]; do mkdir d && cd d; "
		 "i=$((i+1)); done; sleep 5",
		 build_dir, LEC_RUNNER_TREE_MAX_DEPTH + 10);
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_TREE_LIMIT);
	capture_reset(&c);
	CHECK_OK(lec__remove_beneath(build_dir, "d"));
}

/* A listening TCP socket on 127.0.0.1; *port gets its port. */
static int listen_local(int *port)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
	    listen(fd, 8) != 0 ||
	    getsockname(fd, (struct sockaddr *)&addr, &len) != 0)
		return -1;
	*port = ntohs(addr.sin_port);
	return fd;
}

TEST(no_network_unless_asked)
{
	char script[256];
	const char *const argv[] = { "/bin/bash", "-c", script, NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;
	int port = 0, fd = listen_local(&port);

	CHECK(fd >= 0);
	snprintf(script, sizeof(script),
		 "exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port);
	res = run(&spec, &c);
	CHECK(res.exit_code != 0);
	CHECK(c.data && strstr(c.data, "connected\n") == NULL);
	capture_reset(&c);

	spec.network = LEC_RUNNER_NET_HOST;
	res = run(&spec, &c);
	CHECK_INT(res.exit_code, 0);
	CHECK_STR(c.data, "connected\n");
	capture_reset(&c);
	close(fd);
}

TEST(egress_network_is_its_socket_alone)
{
	char script[256];
	const char *const argv[] = { "/bin/bash", "-c", script, NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;
	int port = 0, fd = listen_local(&port), pair[2];
	char got[64] = "";

	CHECK(fd >= 0);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
	spec.network = LEC_RUNNER_NET_EGRESS;
	spec.egress_fd = pair[1];
	/* No route to the host's loopback; the socket as descriptor 7, and
	 * nothing else above 3 (ls's own directory). */
	snprintf(script, sizeof(script),
		 "(exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null && "
		 "echo connected; echo through the socket >&" LEC_RUNNER_EGRESS_FD_TEXT "; "
		 "ls /proc/self/fd",
		 port);
	res = run(&spec, &c);
	CHECK_INT(res.exit_code, 0);
	CHECK_STR(c.data, "0\n1\n2\n3\n7\n");
	capture_reset(&c);
	CHECK(recv(pair[0], got, sizeof(got) - 1, MSG_DONTWAIT) > 0);
	CHECK_STR(got, "through the socket\n");
	/* With no socket to hand over, the spec is refused. */
	spec.egress_fd = -1;
	CHECK_ERR(lec_runner_run(&spec, NULL, NULL, NULL, &res), LEC_EINVALID);
	close(pair[0]);
	close(pair[1]);
	close(fd);
}

TEST(a_launcher_runs_outside_the_address_space_cap)
{
	/* The launcher says its own cap, then runs the command, which says
	 * its own. */
	const char *const launcher[] = {
		"/bin/sh", "-c",
		"grep 'Max address space' /proc/self/limits; exec \"$@\"", "sh",
		NULL
	};
	const char *const argv[] = { "grep", "Max address space",
				     "/proc/self/limits", NULL };
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;

	limits.memory_bytes = (size_t)256 << 20;
	spec.limits = &limits;
	spec.launcher = launcher;
	res = run(&spec, &c);
	CHECK_INT(res.exit_code, 0);
	CHECK(c.data && strstr(c.data, "unlimited") != NULL &&
	      strstr(c.data, "unlimited") < strstr(c.data, "268435456"));
	capture_reset(&c);
}

/* Limits ------------------------------------------------------------------- */

TEST(time_limit)
{
	const char *const argv[] = { "sleep", "5", NULL };
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;
	double t0 = now_s(), took;

	limits.time_limit_s = 1;
	spec.limits = &limits;
	res = run(&spec, &c);
	took = now_s() - t0;
	CHECK_INT(res.end, LEC_RUNNER_TIMED_OUT);
	/* The upper bound only has to tell "stopped by the limit" from "ran
	 * its 5 s": a loaded CI machine (2 cores, sanitizers) needs slack. */
	CHECK(took >= 0.9 && took < 4.5);
	CHECK(res.end_us - res.start_us >= 900000);
	capture_reset(&c);
}

TEST(sigkill_after_the_grace_period)
{
	/* Unsandboxed, SIGTERM reaches the command itself: ignoring it
	 * earns SIGKILL after the grace period. */
	char script[128];
	const char *const argv[] = { "/bin/sh", "-c", script, NULL };
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;
	const char *marker = marker_sleep();
	double t0 = now_s(), took;

	snprintf(script, sizeof(script), "trap '' TERM; sleep %s", marker);
	limits.time_limit_s = 1;
	spec.limits = &limits;
	spec.unsandboxed = 1;
	res = run(&spec, &c);
	took = now_s() - t0;
	CHECK_INT(res.end, LEC_RUNNER_TIMED_OUT);
	CHECK_INT(res.exit_code, 128 + 9);
	CHECK(took >= 1.0 + LEC_RUNNER_KILL_GRACE_MS / 1000.0 - 0.1);
	CHECK(took < 1.0 + LEC_RUNNER_KILL_GRACE_MS / 1000.0 + 5.0);
	CHECK_INT(lec_test_processes(marker, NULL), 0);
	capture_reset(&c);
}

TEST(output_cap)
{
	const char *const argv[] = { "/bin/sh", "-c", "yes | head -c 10M",
				     NULL };
	const char *const exact[] = { "head", "-c", "65536", "/dev/zero",
				      NULL };
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;

	limits.output_bytes = 64 * 1024;
	spec.limits = &limits;
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_OUTPUT_LIMIT);
	CHECK_INT(c.len, 64 * 1024); /* up to the cap, not a byte more */
	CHECK(c.data && strncmp(c.data, "y\ny\n", 4) == 0);
	capture_reset(&c);

	/* Writing exactly the cap is not exceeding it. */
	spec.argv = exact;
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	CHECK_INT(res.exit_code, 0);
	CHECK_INT(c.len, 64 * 1024);
	capture_reset(&c);
}

TEST(memory_limit)
{
	const char *const argv[] = { "python3", "-c",
				     "b = bytearray(512 << 20); print('ok')",
				     NULL };
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;

	limits.memory_bytes = (size_t)256 << 20;
	spec.limits = &limits;
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	CHECK(res.exit_code != 0);
	CHECK(c.data && strstr(c.data, "MemoryError"));
	capture_reset(&c);

	/* The same command fits in a larger limit. */
	limits.memory_bytes = (size_t)2 << 30;
	res = run(&spec, &c);
	CHECK_INT(res.exit_code, 0);
	CHECK_STR(c.data, "ok\n");
	capture_reset(&c);
}

TEST(cancel)
{
	const char *const argv[] = { "sleep", "30", NULL };
	const char *const chatty[] = { "/bin/sh", "-c",
				       "echo one; echo two; sleep 30", NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;
	double t0 = now_s(), took;

	c.cancel_at_s = t0 + 0.3;
	res = run(&spec, &c);
	took = now_s() - t0;
	CHECK_INT(res.end, LEC_RUNNER_CANCELLED);
	/* Well before the command's 30 s, with slack for a loaded machine. */
	CHECK(took >= 0.3 && took < 10.0);
	/* Asked about every LEC_RUNNER_CANCEL_POLL_MS, not in a busy loop. */
	CHECK(c.cancel_calls >= 1 &&
	      c.cancel_calls <=
		      (int)(took * 1000 / LEC_RUNNER_CANCEL_POLL_MS) + 3);
	capture_reset(&c);

	/* The output callback can stop it too. */
	spec.argv = chatty;
	c.stop_after = 1;
	t0 = now_s();
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_CANCELLED);
	CHECK(now_s() - t0 < 10.0);
	CHECK(c.data && strncmp(c.data, "one\n", 4) == 0);
	capture_reset(&c);
}

TEST(no_process_survives)
{
	char script[256];
	const char *const argv[] = { "/bin/sh", "-c", script, NULL };
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;
	const char *marker = marker_sleep();
	int i;

	/* Timed out: the foreground and both background sleeps die, even
	 * the one that no longer holds the output pipe. Checked at once:
	 * the runner returns only when the namespace is gone. */
	snprintf(script, sizeof(script),
		 "sleep %s >/dev/null 2>&1 & sleep %s & sleep %s", marker,
		 marker, marker);
	limits.time_limit_s = 1;
	spec.limits = &limits;
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_TIMED_OUT);
	CHECK_INT(lec_test_processes(marker, NULL), 0);

	/* Cancelled. */
	marker = marker_sleep();
	snprintf(script, sizeof(script),
		 "sleep %s >/dev/null 2>&1 & sleep %s", marker, marker);
	c.cancel_at_s = now_s() + 0.3;
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_CANCELLED);
	CHECK_INT(lec_test_processes(marker, NULL), 0);
	c.cancel_at_s = 0;

	/* Exited normally, leaving a daemon behind. */
	marker = marker_sleep();
	snprintf(script, sizeof(script),
		 "sleep %s >/dev/null 2>&1 & echo done", marker);
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	CHECK_INT(res.exit_code, 0);
	CHECK_INT(lec_test_processes(marker, NULL), 0);

	/* Unsandboxed, its process group is killed (SIGKILL is sent before
	 * the runner returns; the kernel may take a moment). */
	marker = marker_sleep();
	snprintf(script, sizeof(script), "sleep %s >/dev/null 2>&1 &",
		 marker);
	spec.unsandboxed = 1;
	res = run(&spec, &c);
	CHECK_INT(res.end, LEC_RUNNER_EXITED);
	for (i = 0; i < 100 && lec_test_processes(marker, NULL) != 0; i++)
		usleep(10000);
	CHECK_INT(lec_test_processes(marker, NULL), 0);
	capture_reset(&c);
}

/* A cancel at any moment of the sandbox's start, also before bubblewrap
 * has said which process is the namespace's init, leaves nothing running
 * once the runner returns (a project deleted while its build started kept
 * its command alive on CI). */
TEST(cancel_during_start_leaves_nothing)
{
	char script[128];
	const char *const argv[] = { "/bin/sh", "-c", script, NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct capture c = { 0 };
	struct lec_runner_result res;
	int i, left = 0;

	for (i = 0; i < 40 && left == 0; i++) {
		const char *marker = marker_sleep();

		snprintf(script, sizeof(script), "sleep %s", marker);
		/* From at once to 40 ms in: the first check, or a later one. */
		c.cancel_at_s = now_s() + (i % 5) * 0.01;
		res = run(&spec, &c);
		CHECK_INT(res.end, LEC_RUNNER_CANCELLED);
		left = lec_test_processes(marker, NULL);
		capture_reset(&c);
	}
	CHECK_INT(left, 0);
}

/* Errors ------------------------------------------------------------------- */

TEST(bad_specs_are_refused)
{
	const char *const argv[] = { "true", NULL };
	const char *const empty[] = { NULL };
	const char *const bad_env[] = { "NOEQUALS", NULL };
	const char *const missing[] = { "no-such-command-lectern", NULL };
	struct lec_runner_mount missing_mount = { NULL, 0 };
	struct lec_runner_limits limits = LEC_RUNNER_LIMITS_INIT;
	struct lec_runner_spec spec = spec_for(argv);
	struct lec_runner_result res;
	char file[256];
	FILE *f;

	CHECK_ERR(lec_runner_run(NULL, NULL, NULL, NULL, &res), LEC_EINVALID);
	CHECK_INT(res.end, LEC_RUNNER_START_FAILED);
	spec.argv = empty;
	CHECK_ERR(lec_runner_run(&spec, NULL, NULL, NULL, &res), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "no command to run");
	spec.argv = argv;
	spec.env = bad_env;
	CHECK_ERR(lec_runner_run(&spec, NULL, NULL, NULL, &res), LEC_EINVALID);
	CHECK_STR(lec_error_last(),
		  "environment entry 'NOEQUALS' is not KEY=VALUE");
	CHECK_INT(res.end, LEC_RUNNER_START_FAILED);
	spec.env = base_env;
	spec.cwd = "relative/dir";
	CHECK_ERR(lec_runner_run(&spec, NULL, NULL, NULL, &res), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "the working directory must be an "
				    "absolute path, not 'relative/dir'");
	spec.cwd = build_dir;
	limits.version = 99;
	spec.limits = &limits;
	CHECK_ERR(lec_runner_run(&spec, NULL, NULL, NULL, &res), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "unknown runner limits version 99");
	spec.limits = NULL;

	snprintf(file, sizeof(file), "%s/a-file", outside_dir);
	CHECK((f = fopen(file, "w")) != NULL);
	if (f)
		fclose(f);
	/* A mount must exist; a build never runs as root. */
	missing_mount.path = "/nonexistent/lectern";
	spec.mounts = &missing_mount;
	spec.nmounts = 1;
	CHECK_ERR(lec_runner_run(&spec, NULL, NULL, NULL, &res),
		  LEC_ENOTFOUND);
	spec.nmounts = 0;
	spec.uid = 0;
	CHECK_ERR(lec_runner_run(&spec, NULL, NULL, NULL, &res), LEC_EINVALID);
	spec.uid = LEC_RUNNER_DEFAULT_UID;

	/* Unsandboxed, a command not on the command's PATH cannot start. */
	spec.argv = missing;
	spec.unsandboxed = 1;
	CHECK_ERR(lec_runner_run(&spec, NULL, NULL, NULL, &res),
		  LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(),
		  "command not found: no-such-command-lectern");
	CHECK_INT(res.end, LEC_RUNNER_START_FAILED);
	/* ... nor one that is there but not executable. */
	spec.argv = (const char *const[]){ file, NULL };
	CHECK_ERR(lec_runner_run(&spec, NULL, NULL, NULL, &res), LEC_ERROR);
	CHECK(strstr(lec_error_last(), "Permission denied") != NULL);
	CHECK_INT(res.end, LEC_RUNNER_START_FAILED);
}

TEST(sandbox_availability)
{
	const char *const argv[] = { "true", NULL };
	struct lec_runner_spec spec = spec_for(argv);
	struct lec_runner_result res;
	static char unset[] = "unset";
	char *why = unset;

	CHECK_INT(lec_runner_sandbox_available(&why), 1);
	CHECK(why == NULL);
	CHECK_INT(lec_runner_sandbox_available(NULL), 1);

	lec_runner__bwrap_path = "/nonexistent/bwrap";
	CHECK_INT(lec_runner_sandbox_available(&why), 0);
	CHECK_STR(why, "bubblewrap is not installed: /nonexistent/bwrap");
	free(why);
	CHECK_INT(lec_runner_sandbox_available(NULL), 0);
	CHECK_ERR(lec_runner_run(&spec, NULL, NULL, NULL, &res), LEC_ERROR);
	CHECK_STR(lec_error_last(), "cannot run /nonexistent/bwrap: No such "
				    "file or directory");
	CHECK_INT(res.end, LEC_RUNNER_START_FAILED);

	/* Present but unable to sandbox: `false` stands in for it. */
	lec_runner__bwrap_path = "/bin/false";
	CHECK_INT(lec_runner_sandbox_available(&why), 0);
	CHECK_STR(why, "bubblewrap cannot create its sandbox here: it failed "
		       "without a message");
	free(why);
	lec_runner__bwrap_path = LEC_RUNNER_BWRAP;
}

/* Masking ------------------------------------------------------------------ */

TEST(mask_buffer)
{
	const char *const secrets[] = { "s3cr3t-value", "ab", "abcd", "bcdef",
					NULL };
	char text[] = "key=s3cr3t-value, again s3cr3t-value; ab xabcdefx ab";

	lec_runner_mask(text, strlen(text), secrets);
	/* Overlapping occurrences are both masked; "ab" is too short. */
	CHECK_STR(text, "key=************, again ************; ab x******x ab");

	lec_runner_mask(text, strlen(text), NULL);
	CHECK_STR(text, "key=************, again ************; ab x******x ab");
	lec_runner_mask(NULL, 0, secrets);

	/* Only len bytes are looked at. */
	{
		char partial[] = "s3cr3t-value";

		lec_runner_mask(partial, 11, secrets);
		CHECK_STR(partial, "s3cr3t-value");
	}
}

/* Feed text to a masker in chunks of the given sizes (cycled) and return
 * everything it released (malloc'd). */
static char *mask_stream(const char *const *secrets, const char *text,
			 const size_t *sizes, size_t nsizes)
{
	struct lec_runner_masker m;
	size_t len = strlen(text), pos = 0, outlen = 0, k = 0;
	char *result = malloc(len + 1);
	const char *out;
	size_t n;

	lec_runner_masker_init(&m, secrets);
	while (pos < len) {
		size_t chunk = sizes[k++ % nsizes];

		if (chunk > len - pos)
			chunk = len - pos;
		CHECK_OK(lec_runner_masker_feed(&m, text + pos, chunk, &out,
						&n));
		memcpy(result + outlen, out, n);
		outlen += n;
		pos += chunk;
	}
	lec_runner_masker_flush(&m, &out, &n);
	memcpy(result + outlen, out, n);
	outlen += n;
	result[outlen] = '\0';
	lec_runner_masker_dispose(&m);
	return result;
}

TEST(masker_across_chunks)
{
	const char *const secrets[] = { "s3cr3t-value", "ab", "abcd", "bcdef",
					NULL };
	const char *text = "key=s3cr3t-value, again s3cr3t-value; ab xabcdefx "
			   "ab tail s3cr3t-value";
	const char *masked = "key=************, again ************; ab "
			     "x******x ab tail ************";
	size_t len = strlen(text), split;
	const size_t one[] = { 1 }, odd[] = { 3, 7, 2, 11 }, all[] = { 4096 };
	char *got;

	/* Every two-chunk split, so the boundary falls inside every
	 * secret at every offset. */
	for (split = 0; split <= len; split++) {
		const size_t sizes[] = { split ? split : len, len };

		got = mask_stream(secrets, text, sizes, 2);
		CHECK_STR(got, masked);
		free(got);
	}
	got = mask_stream(secrets, text, one, 1);
	CHECK_STR(got, masked);
	free(got);
	got = mask_stream(secrets, text, odd, 4);
	CHECK_STR(got, masked);
	free(got);
	got = mask_stream(secrets, text, all, 1);
	CHECK_STR(got, masked);
	free(got);
	/* No secrets: the stream passes through unchanged, nothing held. */
	got = mask_stream(NULL, text, odd, 4);
	CHECK_STR(got, text);
	free(got);
}

TEST(masker_holds_back_only_a_tail)
{
	const char *const secrets[] = { "0123456789", NULL };
	struct lec_runner_masker m;
	const char *out;
	size_t n;

	lec_runner_masker_init(&m, secrets);
	CHECK_OK(lec_runner_masker_feed(&m, "hello world, ", 13, &out, &n));
	/* Only longest - 1 = 9 bytes are held back. */
	CHECK_INT(n, 4);
	CHECK(strncmp(out, "hell", 4) == 0);
	CHECK_OK(lec_runner_masker_feed(&m, "012345", 6, &out, &n));
	CHECK_INT(n, 6);
	CHECK(strncmp(out, "o worl", 6) == 0);
	CHECK_OK(lec_runner_masker_feed(&m, "6789!", 5, &out, &n));
	CHECK_INT(n, 5);
	CHECK(strncmp(out, "d, **", 5) == 0);
	lec_runner_masker_flush(&m, &out, &n);
	CHECK_INT(n, 9);
	CHECK(strncmp(out, "********!", 9) == 0);
	/* Empty after a flush, and reusable. */
	lec_runner_masker_flush(&m, &out, &n);
	CHECK_INT(n, 0);
	CHECK_OK(lec_runner_masker_feed(&m, "", 0, &out, &n));
	CHECK_INT(n, 0);
	lec_runner_masker_dispose(&m);
	lec_runner_masker_dispose(NULL);

	/* Out of memory: an error, and nothing is released. */
	lec_runner_masker_init(&m, secrets);
	lec__alloc_fail_after(1);
	CHECK_ERR(lec_runner_masker_feed(&m, "abc", 3, &out, &n), LEC_ENOMEM);
	CHECK_INT(n, 0);
	lec__alloc_fail_after(0);
	lec_runner_masker_dispose(&m);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(echo_output_arrives),
	TEST_ENTRY(output_is_live),
	TEST_ENTRY(exit_codes),
	TEST_ENTRY(environment_is_exactly_the_given_one),
	TEST_ENTRY(working_directory),
	TEST_ENTRY(no_fd_leaks_into_the_command),
	TEST_ENTRY(stdin_is_empty_even_without_ours),
	TEST_ENTRY(only_the_build_directory_is_writable),
	TEST_ENTRY(only_the_mounts_are_visible),
	TEST_ENTRY(tmpfs_mounts_are_empty_and_private),
	TEST_ENTRY(process_and_tmp_limits),
	TEST_ENTRY(disk_watchdog_stops_a_growing_build),
	TEST_ENTRY(no_network_unless_asked),
	TEST_ENTRY(egress_network_is_its_socket_alone),
	TEST_ENTRY(a_launcher_runs_outside_the_address_space_cap),
	TEST_ENTRY(time_limit),
	TEST_ENTRY(sigkill_after_the_grace_period),
	TEST_ENTRY(output_cap),
	TEST_ENTRY(memory_limit),
	TEST_ENTRY(cancel),
	TEST_ENTRY(cancel_during_start_leaves_nothing),
	TEST_ENTRY(no_process_survives),
	TEST_ENTRY(bad_specs_are_refused),
	TEST_ENTRY(sandbox_availability),
	TEST_ENTRY(mask_buffer),
	TEST_ENTRY(masker_across_chunks),
	TEST_ENTRY(masker_holds_back_only_a_tail),
};

LEC_TEST_MAIN(tests)
