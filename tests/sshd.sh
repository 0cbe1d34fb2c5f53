# A private OpenSSH server on 127.0.0.1 for the ssh tests (sourced, not
# run): host key, client key and config generated in a test directory,
# `sshd -D -f CONF` in the foreground on a free port, stopped by its pid.
# The remote machine is this one: a wrapper runs the built lectern with a
# HOME, data and runtime directory of its own, as a remote user would have.
#
# sshd_start DIR: sets SSHD_PORT, SSHD_PID, SSH_KEY, SSH_OPTS (the client's
# options: the key, a known_hosts holding the host key, no user config) and
# REMOTE_LECTERN (the wrapper); the remote side lives in DIR/remote.
# sshd_stop: stops it. Tests run as root in CI, hence PermitRootLogin with
# keys only and AllowUsers naming the user running the test.

SSHD=/usr/sbin/sshd

# A free TCP port on 127.0.0.1 (the kernel's pick, released at once).
free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

sshd_start() {
	dir=$1
	[ -x "$SSHD" ] || { echo "$SSHD is missing: install openssh-server (packaging/deps.sh)" >&2; exit 1; }
	mkdir -p "$dir/remote" /run/sshd
	chmod 700 "$dir"
	ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key" </dev/null >/dev/null
	ssh-keygen -q -t ed25519 -N '' -f "$dir/id" </dev/null >/dev/null
	cp "$dir/id.pub" "$dir/authorized_keys"
	SSHD_PORT=$(free_port)
	cat >"$dir/sshd_config" <<EOF
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile none
AuthorizedKeysFile $dir/authorized_keys
AllowUsers $(id -un)
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowStreamLocalForwarding yes
AllowTcpForwarding yes
X11Forwarding no
PrintMotd no
LogLevel ERROR
EOF
	printf '[127.0.0.1]:%s %s\n' "$SSHD_PORT" "$(cut -d' ' -f1,2 "$dir/host_key.pub")" >"$dir/known_hosts"
	SSH_KEY="$dir/id"
	SSH_OPTS="-F /dev/null -i $dir/id -o IdentitiesOnly=yes -o UserKnownHostsFile=$dir/known_hosts -o StrictHostKeyChecking=yes"
	REMOTE_LECTERN="$dir/remote-lectern"
	cat >"$REMOTE_LECTERN" <<EOF
#!/bin/sh
# The remote user's lectern: its own home, data and runtime directory.
export HOME=$dir/remote XDG_DATA_HOME=$dir/remote/data XDG_RUNTIME_DIR=$dir/remote/run XDG_CONFIG_HOME=$dir/remote/config
unset LECTERN_DATA LECTERN_CONTEXT
exec $LECTERN "\$@"
EOF
	chmod 755 "$REMOTE_LECTERN"
	"$SSHD" -D -e -f "$dir/sshd_config" 2>"$dir/sshd.log" &
	SSHD_PID=$!
	i=0
	until /usr/bin/python3 -c "import socket, sys; socket.create_connection(('127.0.0.1', $SSHD_PORT), 1)" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "sshd did not start: $(cat "$dir/sshd.log")" >&2; exit 1; }
		sleep 0.1
	done
}

# remote_engine_pid: the remote side's engine (on its socket), if any.
remote_engine_pid() {
	pgrep -f -- "--socket $1/remote/run/lectern/engine.sock" | head -1
}

sshd_stop() {
	[ -n "${SSHD_PID:-}" ] || return 0
	kill "$SSHD_PID" 2>/dev/null
	wait "$SSHD_PID" 2>/dev/null
	SSHD_PID=
}
