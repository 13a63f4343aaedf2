#!/usr/bin/env bash
# deploy/local/stack.sh - the local stack: a private MariaDB, the FastCGI
# pool and nginx, all living under one run-state folder (VARDIR), all bound
# to 127.0.0.1 or Unix sockets.
#
# Used two ways:
#   . deploy/local/stack.sh          a library (deploy/local/up, test/run,
#                                    .ci/run): call the functions below
#   deploy/local/stack.sh CMD VARDIR [PORT]
#                                    one step from the command line, e.g.
#                                    "db-stop var/test" from a test
#
# Commands: ensure-packages, build, db-start, db-stop, write-config,
# migrate, demo-queue, app-start, app-stop, worker-start, worker-stop,
# nginx-start, nginx-stop,
# up (everything; PORT default 8080), down, status.
#
# Every process the stack starts runs in its own session (so a Ctrl-C in
# the terminal reaches only the script, which then stops things in order),
# has its PID recorded in VARDIR/pids/NAME.pid at once, and is stopped by
# that PID only: TERM, then KILL after a timeout.  A PID is signalled only
# while its command line still names VARDIR (or the program), so a stale
# pid file left by a killed run never hits an unrelated process.
#
# Layout of VARDIR:
#   pids/           the stack's own records of what it started
#   db/             my.cnf, data/, mysqld.sock, mysqld.pid, error.log,
#                   aqueue.pw (password of the aqueue DB user, mode 0600)
#   aqueue.conf     the app's config (mode 0600); master.key (mode 0600)
#   run/            fcgi.sock, aqueue-fcgi.pid
#   nginx/          nginx.conf, logs/, tmp/
#   log/            aqueue-fcgi.log, build.log, install logs
#
# Environment:
#   AQ_CONFIGURE_FLAGS  flags for ./configure; when set and different from
#                       the flags of the current build, configure runs again
#   AQ_SKIP_BUILD=1     use the binaries as they are (no autogen/make)
#   AQ_WORKERS          FastCGI processes in the local pool (default 4)
#   AQ_SKIP_PACKAGES=1  do not check or install Debian packages

# The repository root, found from this file's location.
STACK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)

# mariadbd, nginx and mariadb-install-db live in sbin on Debian.
case ":$PATH:" in
*:/usr/sbin:*) ;;
*) PATH=$PATH:/usr/sbin:/sbin ;;
esac

_st_say() { printf 'stack: %s\n' "$*"; }
_st_err() { printf 'stack: error: %s\n' "$*" >&2; }

# _st_abs DIR: print DIR as an absolute, normalised path (need not exist).
_st_abs() {
	if [ -z "${1:-}" ]; then
		_st_err "no VARDIR given"
		return 1
	fi
	realpath -m -- "$1"
}

# _st_run_root CMD...: run CMD as root (through sudo when not root).
_st_run_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		_st_err "need root to run: $* (install sudo or run as root)"
		return 1
	fi
}

# ---------------------------------------------------------------------
# Packages
# ---------------------------------------------------------------------

# One line per Debian package: the package, then what proves it present
# (cmd:NAME a command on PATH, pc:NAME a pkg-config module).
_st_packages=(
	'build-essential cmd:gcc cmd:make'
	'autoconf cmd:autoreconf'
	'automake cmd:automake'
	'libtool cmd:libtoolize'
	'pkg-config cmd:pkg-config'
	'libfcgi-dev pc:fcgi'
	'libfcgi-bin cmd:cgi-fcgi'
	'libmariadb-dev pc:libmariadb'
	'libjwt-dev pc:libjwt'
	'libjson-c-dev pc:json-c'
	'libssl-dev pc:libcrypto'
	'libcurl4-openssl-dev pc:libcurl'
	'mariadb-server cmd:mariadbd cmd:mariadb-install-db'
	'mariadb-client cmd:mariadb cmd:mariadb-admin'
	'nginx-light cmd:nginx'
	'spawn-fcgi cmd:spawn-fcgi'
	'nodejs cmd:node'
	'npm cmd:npm'
	'jq cmd:jq'
	'curl cmd:curl'
	'valgrind cmd:valgrind'
	'chromium cmd:chromium'
	'faketime cmd:faketime'
	'libargon2-dev pc:libargon2'
	'prometheus cmd:prometheus'
	'libnginx-mod-http-js file:/usr/lib/nginx/modules/ngx_http_js_module.so'
	'python3-jwt file:/usr/lib/python3/dist-packages/jwt/__init__.py'
)
# The deploy matrix (Apache with mod_proxy_fcgi and mod_fcgid, lighttpd),
# the shared-hosting test (suEXEC),
# the Galera cluster test (rsync state transfer), the systemd units'
# check and the manual pages' check.
_st_packages+=(
	'apache2 cmd:apache2'
	'libapache2-mod-fcgid file:/usr/lib/apache2/modules/mod_fcgid.so'
	'apache2-suexec-pristine file:/usr/lib/apache2/suexec-pristine'
	'lighttpd cmd:lighttpd'
	'galera-4 file:/usr/lib/galera/libgalera_smm.so'
	'rsync cmd:rsync'
	'systemd cmd:systemd-analyze'
	'man-db cmd:man'
)
# The fuzz targets (libFuzzer comes with Debian's clang).
_st_packages+=(
	'clang cmd:clang'
)

# ensure_packages [LOGFILE]: install the Debian packages the stack, the
# build and the tests need, when any is missing: one "apt-get update", one
# "apt-get install -y --no-install-recommends" of exactly the missing
# ones.  Says in one line what it installs and where apt-get's output goes
# (LOGFILE, default var/log/packages.log of the repository); on failure
# shows the log's last lines.  Returns at once when everything is present.
ensure_packages() {
	local line pkg check missing=() ok log
	[ "${AQ_SKIP_PACKAGES:-0}" = 1 ] && return 0
	for line in "${_st_packages[@]}"; do
		read -r pkg line <<<"$line"
		ok=1
		for check in $line; do
			case $check in
			cmd:*) command -v "${check#cmd:}" >/dev/null 2>&1 || ok=0 ;;
			pc:*) pkg-config --exists "${check#pc:}" 2>/dev/null || ok=0 ;;
			file:*) [ -e "${check#file:}" ] || ok=0 ;;
			esac
		done
		[ "$ok" = 1 ] || missing+=("$pkg")
	done
	[ "${#missing[@]}" -eq 0 ] && return 0

	if ! command -v apt-get >/dev/null 2>&1; then
		_st_err "missing (Debian package names): ${missing[*]}"
		_st_err "not a Debian system: install them by hand"
		return 1
	fi
	log=$(_st_abs "${1:-$STACK_ROOT/var/log/packages.log}") || return 1
	mkdir -p "$(dirname "$log")" || return 1
	# nginx-light is gone from newer Debian releases: take nginx there.
	local i
	for i in "${!missing[@]}"; do
		if [ "${missing[$i]}" = nginx-light ] &&
		    ! apt-cache show --no-all-versions nginx-light \
		    >/dev/null 2>&1; then
			missing[i]=nginx
		fi
	done
	_st_say "installing Debian packages: ${missing[*]}" \
	    "(apt-get output in $log)"
	if ! _st_run_root env DEBIAN_FRONTEND=noninteractive \
	    apt-get update -q >>"$log" 2>&1; then
		_st_err "apt-get update failed"
		_st_tail "$log" 20 >&2
		return 1
	fi
	if ! _st_run_root env DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -q --no-install-recommends "${missing[@]}" \
	    >>"$log" 2>&1; then
		_st_err "apt-get install failed"
		_st_tail "$log" 20 >&2
		return 1
	fi
}

# ---------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------

# build [LOGFILE]: bring fcgi-app/aqueue-fcgi and fcgi-app/aqueuectl up to
# date: ./autogen.sh when configure is missing or older than configure.ac,
# ./configure when never run, older than configure, or when
# $AQ_CONFIGURE_FLAGS (if set) differ from the flags it last ran with (if
# unset, the last run's flags are kept), then make (which does nothing when nothing
# changed).  Output goes to LOGFILE (default: the terminal); on failure
# its tail is shown.
build() {
	local log=${1:-} flags=() cur=() rc
	if [ "${AQ_SKIP_BUILD:-0}" = 1 ]; then
		_st_say "build skipped (AQ_SKIP_BUILD=1)"
		return 0
	fi
	read -r -a flags <<<"${AQ_CONFIGURE_FLAGS:-}"
	if [ -n "$log" ]; then
		mkdir -p "$(dirname "$log")" && : >"$log" || return 1
	fi
	(
		set -e
		[ -z "$log" ] || exec >>"$log" 2>&1
		cd "$STACK_ROOT"
		if [ ! -x configure ] || [ configure.ac -nt configure ]; then
			echo "stack: ./autogen.sh"
			./autogen.sh
		fi
		need=0
		if [ -x config.status ]; then
			eval "cur=( $(./config.status --config) )"
			# No flags asked for: keep the ones of the last run.
			[ -n "${AQ_CONFIGURE_FLAGS+set}" ] || flags=("${cur[@]}")
		fi
		if [ ! -f Makefile ] || [ ! -x config.status ] ||
		    [ configure -nt config.status ] ||
		    [ "${cur[*]}" != "${flags[*]}" ]; then
			need=1
		fi
		if [ "$need" = 1 ]; then
			echo "stack: ./configure ${flags[*]}"
			./configure "${flags[@]}"
		fi
		echo "stack: make"
		make -j2
	)
	rc=$?
	if [ "$rc" -ne 0 ]; then
		_st_err "build failed (exit $rc)"
		if [ -n "$log" ]; then
			_st_err "last lines of $log:"
			tail -n 60 "$log" >&2
		fi
		return 1
	fi
	_st_say "build done (make is up to date)"
}

# ---------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------

# _st_alive PID: true while PID exists and is not a zombie.
_st_alive() {
	local stat rest
	[ -r "/proc/$1/stat" ] || return 1
	{ read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	rest=${stat##*) }
	[ "${rest%% *}" != Z ]
}

# _st_cmdline PID: the command line of PID, NULs turned into spaces.
_st_cmdline() {
	tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null
}

# _st_children PID: the PIDs whose parent is PID.
_st_children() {
	local f stat rest ppid
	for f in /proc/[0-9]*/stat; do
		{ read -r stat <"$f"; } 2>/dev/null || continue
		rest=${stat##*) }
		read -r _ ppid _ <<<"$rest"
		[ "$ppid" = "$1" ] && { f=${f#/proc/}; echo "${f%/stat}"; }
	done
	return 0
}

# _st_ours PID MATCH COMM: true when PID's command line contains MATCH,
# or (COMM not empty) its process name is COMM.
_st_ours() {
	local comm
	case " $(_st_cmdline "$1") " in
	*"$2"*) return 0 ;;
	esac
	[ -n "$3" ] || return 1
	read -r comm <"/proc/$1/comm" 2>/dev/null || return 1
	[ "$comm" = "$3" ]
}

# _st_pidof NAME VAR [PROGRAM_PIDFILE]: print the recorded PID of NAME
# (the stack's record first, then the program's own pid file).
_st_pidof() {
	local f pid
	for f in "$2/pids/$1.pid" ${3:+"$3"}; do
		[ -f "$f" ] || continue
		read -r pid <"$f" 2>/dev/null || continue
		case $pid in
		'' | *[!0-9]*) continue ;;
		esac
		echo "$pid"
		return 0
	done
	return 1
}

# _st_execd PID CMD...: true once PID runs CMD: it is no longer the forked
# copy of this shell nor setsid (CMD may rename itself, as nginx does), or
# its command line is CMD.
_st_execd() {
	local pid=$1 exe
	shift
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
	if [ "$exe" != "$(readlink "/proc/$$/exe")" ] &&
	    [ "$exe" != "$(command -v setsid)" ]; then
		return 0
	fi
	[ "$(_st_cmdline "$pid")" = "$* " ]
}

# _st_start NAME VAR LOG CMD...: start CMD in its own session, stdin from
# /dev/null, output appended to LOG; record its PID in VAR/pids/NAME.pid.
# Returns once the PID runs CMD (or has exited), so that what follows
# finds CMD's command line there, however long the fork and exec took
# on a busy machine.
_st_start() {
	local name=$1 var=$2 log=$3 had_m=0 pid n=0
	shift 3
	mkdir -p "$var/pids" "$(dirname "$log")" || return 1
	# With job control on, "&" makes a group leader and setsid would
	# fork: $! would not be the program.
	case $- in *m*) had_m=1; set +m ;; esac
	# The subshell execs: $! is the program.  A SIGPIPE ignored by the
	# caller (deploy/local/up) is not passed on.
	(
		trap - PIPE
		exec setsid "$@" </dev/null >>"$log" 2>&1 9>&-
	) &
	pid=$!
	[ "$had_m" = 1 ] && set -m
	echo "$pid" >"$var/pids/$name.pid"
	while _st_alive "$pid" && ! _st_execd "$pid" "$@"; do
		if [ "$n" -ge 300 ]; then
			_st_err "$name (pid $pid) did not start $1 in 30 s"
			return 1
		fi
		sleep 0.1
		n=$((n + 1))
	done
}

# _st_stop NAME VAR MATCH COMM TIMEOUT [PROGRAM_PIDFILE]: stop the process
# recorded for NAME: TERM, KILL after TIMEOUT seconds; then its children
# if any outlived it.  A PID that is no longer ours is left alone.
_st_stop() {
	local name=$1 var=$2 match=$3 comm=$4 timeout=$5 own=${6:-}
	local pid kids k n
	pid=$(_st_pidof "$name" "$var" "$own") || return 0
	if ! _st_alive "$pid"; then
		rm -f "$var/pids/$name.pid"
		return 0
	fi
	if ! _st_ours "$pid" "$match" "$comm"; then
		_st_say "$name: pid $pid is not ours any more; left alone"
		rm -f "$var/pids/$name.pid"
		return 0
	fi
	kids=$(_st_children "$pid")
	_st_say "stopping $name (pid $pid)"
	kill -TERM "$pid" 2>/dev/null
	n=0
	while _st_alive "$pid" && [ "$n" -lt $((timeout * 10)) ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if _st_alive "$pid"; then
		_st_say "$name (pid $pid) ignored TERM for ${timeout}s: KILL"
		kill -KILL "$pid" 2>/dev/null
		n=0
		while _st_alive "$pid" && [ "$n" -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
	fi
	for k in $kids; do
		if ! _st_alive "$k" || ! _st_ours "$k" "$match" "$comm"; then
			continue
		fi
		kill -TERM "$k" 2>/dev/null
		n=0
		while _st_alive "$k" && [ "$n" -lt 30 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		_st_alive "$k" && kill -KILL "$k" 2>/dev/null
	done
	wait "$pid" 2>/dev/null
	rm -f "$var/pids/$name.pid"
	[ -z "$own" ] || rm -f "$own"
	return 0
}

# _st_running NAME VAR MATCH COMM [PROGRAM_PIDFILE]: true when NAME runs.
_st_running() {
	local pid
	pid=$(_st_pidof "$1" "$2" "${5:-}") || return 1
	_st_alive "$pid" && _st_ours "$pid" "$3" "$4"
}

# _st_sock_len PATH: sockets paths are limited to 107 bytes.
_st_sock_len() {
	if [ "${#1}" -gt 100 ]; then
		_st_err "socket path too long for a Unix socket: $1"
		_st_err "move the repository (or VARDIR) to a shorter path"
		return 1
	fi
}

# _st_tail FILE [N]: show the last N lines of a log, labelled.
_st_tail() {
	[ -s "$1" ] || return 0
	printf -- '----- last lines of %s -----\n' "$1"
	tail -n "${2:-30}" "$1"
}

# _st_port_busy PORT: true when something accepts on 127.0.0.1:PORT.
_st_port_busy() {
	# shellcheck disable=SC2016 # $1 is expanded by the inner bash
	timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" \
	    2>/dev/null
}

# ---------------------------------------------------------------------
# MariaDB
# ---------------------------------------------------------------------

# _st_sql VAR SQL: run SQL as the DB's administrator (the current system
# user over the private socket, unix_socket authentication).
_st_sql() {
	mariadb --no-defaults --socket="$1/db/mysqld.sock" \
	    --user="$(id -un)" --connect-timeout=3 --batch \
	    --skip-column-names -e "$2"
}

# db_start VARDIR: start the private MariaDB of VARDIR (creating its data
# directory on first use), wait until it answers, and make sure database
# "aqueue" and user aqueue@localhost exist (password in VARDIR/db/aqueue.pw,
# made once).  Does nothing to a DB of VARDIR that already answers.  Never
# touches the system's MariaDB.
db_start() {
	local var db me pw n
	var=$(_st_abs "${1:-}") || return 1
	db=$var/db
	me=$(id -un)
	_st_sock_len "$db/mysqld.sock" || return 1
	mkdir -p "$db/tmp" || return 1
	chmod 0700 "$db"
	cat >"$db/my.cnf" <<EOF
# Written by deploy/local/stack.sh: the private MariaDB of this stack.
[mariadbd]
user = $me
datadir = $db/data
socket = $db/mysqld.sock
pid-file = $db/mysqld.pid
log-error = $db/error.log
tmpdir = $db/tmp
skip-networking
innodb_buffer_pool_size = 128M
innodb_log_file_size = 48M
character-set-server = utf8mb4
collation-server = utf8mb4_unicode_ci
# Per-connection statement counts and client pids (performance_schema's
# events_statements_summary_by_thread_by_event_name and
# session_connect_attrs), for tests that count the statements of one
# program's connections only; about 100 MB of memory.
performance_schema = ON
EOF
	if _st_running mariadbd "$var" "$db/my.cnf" "" "$db/mysqld.pid"; then
		if _st_sql "$var" 'SELECT 1' >/dev/null 2>&1; then
			_st_say "MariaDB already running"
		else
			db_stop "$var"
		fi
	fi
	if ! _st_running mariadbd "$var" "$db/my.cnf" "" "$db/mysqld.pid"
	then
		rm -f "$db/mysqld.sock" "$db/mysqld.sock.lock" "$db/mysqld.pid"
		if [ ! -f "$db/installed" ]; then
			_st_say "creating the MariaDB data directory"
			rm -rf "$db/data"
			if ! mariadb-install-db --defaults-file="$db/my.cnf" \
			    --auth-root-authentication-method=socket \
			    --skip-test-db >"$db/install.log" 2>&1; then
				_st_err "mariadb-install-db failed"
				_st_tail "$db/install.log" 40 >&2
				return 1
			fi
			touch "$db/installed"
		fi
		_st_say "starting MariaDB"
		_st_start mariadbd "$var" "$db/mariadbd.out" \
		    mariadbd --defaults-file="$db/my.cnf" || return 1
	fi
	n=0
	until _st_sql "$var" 'SELECT 1' >/dev/null 2>&1; do
		if ! _st_running mariadbd "$var" "$db/my.cnf" "" \
		    "$db/mysqld.pid" ||
		    [ "$n" -ge 600 ]; then
			_st_err "MariaDB did not start"
			_st_tail "$db/error.log" 40 >&2
			_st_tail "$db/mariadbd.out" 10 >&2
			return 1
		fi
		sleep 0.1
		n=$((n + 1))
	done
	if [ ! -s "$db/aqueue.pw" ]; then
		(umask 077 && _st_randhex 16 >"$db/aqueue.pw") || return 1
	fi
	chmod 0600 "$db/aqueue.pw"
	read -r pw <"$db/aqueue.pw"
	_st_sql "$var" "
	    CREATE DATABASE IF NOT EXISTS aqueue
	        CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
	    CREATE USER IF NOT EXISTS 'aqueue'@'localhost' IDENTIFIED BY '$pw';
	    ALTER USER 'aqueue'@'localhost' IDENTIFIED BY '$pw';
	    GRANT ALL ON aqueue.* TO 'aqueue'@'localhost';" ||
	    { _st_err "could not create database/user aqueue"; return 1; }
	_st_say "MariaDB ready ($db/mysqld.sock)"
}

# db_stop VARDIR: stop the private MariaDB of VARDIR, if it runs.
db_stop() {
	local var
	var=$(_st_abs "${1:-}") || return 1
	_st_stop mariadbd "$var" "$var/db/my.cnf" "" 60 "$var/db/mysqld.pid"
}

# _st_randhex N: N random bytes as 2N lowercase hex digits.
_st_randhex() {
	if command -v openssl >/dev/null 2>&1; then
		openssl rand -hex "$1"
	else
		od -An -vtx1 -N"$1" /dev/urandom | tr -d ' \n'
		echo
	fi
}

# ---------------------------------------------------------------------
# The app
# ---------------------------------------------------------------------

# write_config VARDIR [PORT]: write VARDIR/aqueue.conf (mode 0600) for the
# local stack, and VARDIR/master.key (made once, mode 0600).  With PORT,
# load tests go to the stack's nginx on 127.0.0.1:PORT (loadtest-url).
write_config() {
	local var pw workers=${AQ_WORKERS:-4} port=${2:-}
	var=$(_st_abs "${1:-}") || return 1
	if [ ! -s "$var/db/aqueue.pw" ]; then
		_st_err "no $var/db/aqueue.pw: run db_start first"
		return 1
	fi
	_st_sock_len "$var/run/fcgi.sock" || return 1
	mkdir -p "$var/run" "$var/log" "$var/state" || return 1
	read -r pw <"$var/db/aqueue.pw"
	if [ ! -s "$var/master.key" ]; then
		(umask 077 && _st_randhex 32 >"$var/master.key") || return 1
	fi
	chmod 0600 "$var/master.key"
	(
		umask 077
		cat <<EOF
# Written by deploy/local/stack.sh for the local stack; rewritten on every
# start.  Every key is described in deploy/aqueue.conf.sample.

# Mode 0666: only for this local stack.  nginx's workers may run as another
# user than the pool, and the socket sits in a private folder anyway.  In
# production keep 0660 and give the socket the web server's group.
listen = unix:$var/run/fcgi.sock
listen-mode = 0666
workers = $workers
pid-file = $var/run/aqueue-fcgi.pid

# The private MariaDB of this stack (db-host empty: the socket is used).
db-socket = $var/db/mysqld.sock
db-user = aqueue
db-password = $pw
db-name = aqueue
db-timeout = 3

master-key-file = $var/master.key
templates-dir = $STACK_ROOT/templates
migrations-dir = $STACK_ROOT/migrations
static-url = /queue-static
# Poll documents (state.json) for nginx to serve without the app.
state-dir = $var/state
debug = 0
EOF
		# Load tests (test queues only) through this stack's nginx.
		[ -z "$port" ] ||
		    printf 'loadtest-url = http://127.0.0.1:%s\n' "$port"
	) >"$var/aqueue.conf.tmp" || return 1
	mv "$var/aqueue.conf.tmp" "$var/aqueue.conf" || return 1
	chmod 0600 "$var/aqueue.conf"
}

# _st_ctl VAR ARGS...: run the operator CLI against VAR's config.
_st_ctl() {
	local var=$1
	shift
	"$STACK_ROOT/fcgi-app/aqueuectl" -f "$var/aqueue.conf" "$@"
}

# migrate VARDIR: apply the migrations (idempotent).
migrate() {
	local var
	var=$(_st_abs "${1:-}") || return 1
	_st_ctl "$var" migrate || { _st_err "aqueuectl migrate failed"; return 1; }
}

# demo_queue VARDIR PORT: make sure queue "demo" exists (target: the demo
# shop on PORT); rotate its secret when it already exists, so that a fresh
# secret can be shown.  The secret goes to STACK_DEMO_SECRET only: like
# every queue secret it is shown once and never stored in clear.
demo_queue() {
	local var port=${2:-8080} out rc secret target
	var=$(_st_abs "${1:-}") || return 1
	if _st_ctl "$var" exists demo >/dev/null 2>&1; then
		out=$(_st_ctl "$var" rotate-secret demo)
		rc=$?
		target=$(_st_ctl "$var" show demo 2>/dev/null |
		    jq -r '.targetUrl // .target_url // .target // empty' \
		    2>/dev/null)
		if [ -n "$target" ] &&
		    [ "$target" != "http://127.0.0.1:$port/shop/" ]; then
			_st_say "note: queue demo sends visitors to $target" \
			    "(made for another port; remove $var to remake it)"
		fi
	else
		out=$(_st_ctl "$var" create demo --name "Demo sale" \
		    --target "http://127.0.0.1:$port/shop/" \
		    --domains "http://127.0.0.1:$port" --rate 60)
		rc=$?
		if [ "$rc" -eq 3 ]; then
			out=$(_st_ctl "$var" rotate-secret demo)
			rc=$?
		fi
	fi
	secret=$(printf '%s\n' "$out" | sed -n 's/^secret: *//p' | tail -n 1)
	if [ "$rc" -ne 0 ] || [ -z "$secret" ]; then
		_st_err "could not create the demo queue (exit $rc)"
		[ -z "$out" ] || printf '%s\n' "$out" >&2
		return 1
	fi
	STACK_DEMO_SECRET=$secret
	_st_say "queue demo ready"
}

# app_start VARDIR: (re)start the FastCGI pool on VARDIR/run/fcgi.sock,
# after checking the config with -n; wait until the socket is there.
app_start() {
	local var bin n
	var=$(_st_abs "${1:-}") || return 1
	bin=$STACK_ROOT/fcgi-app/aqueue-fcgi
	if [ ! -x "$bin" ]; then
		_st_err "$bin is not built"
		return 1
	fi
	app_stop "$var"
	mkdir -p "$var/run" "$var/log" || return 1
	if ! "$bin" -n -f "$var/aqueue.conf" >>"$var/log/aqueue-fcgi.log" 2>&1
	then
		_st_err "aqueue-fcgi -n: the config is not accepted"
		_st_tail "$var/log/aqueue-fcgi.log" 20 >&2
		return 1
	fi
	rm -f "$var/run/fcgi.sock"
	_st_say "starting aqueue-fcgi"
	_st_start aqueue-fcgi "$var" "$var/log/aqueue-fcgi.log" \
	    "$bin" -f "$var/aqueue.conf" || return 1
	n=0
	until [ -S "$var/run/fcgi.sock" ]; do
		if ! _st_running aqueue-fcgi "$var" "$var/aqueue.conf" \
		    aqueue-fcgi || [ "$n" -ge 150 ]; then
			_st_err "aqueue-fcgi did not open $var/run/fcgi.sock"
			_st_tail "$var/log/aqueue-fcgi.log" 30 >&2
			return 1
		fi
		sleep 0.1
		n=$((n + 1))
	done
}

# app_stop VARDIR: stop the pool (TERM lets it drain), if it runs.
app_stop() {
	local var
	var=$(_st_abs "${1:-}") || return 1
	_st_stop aqueue-fcgi "$var" "$var/aqueue.conf" aqueue-fcgi 15
}

# worker_start VARDIR: (re)start the background worker (aqueue-worker)
# with the stack's config, after checking it with -n.  Several may run;
# the database's named lock makes one of them the leader.
worker_start() {
	local var bin
	var=$(_st_abs "${1:-}") || return 1
	bin=$STACK_ROOT/worker/aqueue-worker
	if [ ! -x "$bin" ]; then
		_st_err "$bin is not built"
		return 1
	fi
	worker_stop "$var"
	mkdir -p "$var/log" || return 1
	if ! "$bin" -n -c "$var/aqueue.conf" >>"$var/log/aqueue-worker.log" \
	    2>&1; then
		_st_err "aqueue-worker -n: the config is not accepted"
		_st_tail "$var/log/aqueue-worker.log" 20 >&2
		return 1
	fi
	_st_say "starting aqueue-worker"
	_st_start aqueue-worker "$var" "$var/log/aqueue-worker.log" \
	    "$bin" -c "$var/aqueue.conf" || return 1
	sleep 0.2
	if ! _st_running aqueue-worker "$var" "$var/aqueue.conf" \
	    aqueue-worker; then
		_st_err "aqueue-worker exited at once"
		_st_tail "$var/log/aqueue-worker.log" 20 >&2
		return 1
	fi
}

# worker_stop VARDIR: stop the worker (TERM ends its current step).
worker_stop() {
	local var
	var=$(_st_abs "${1:-}") || return 1
	_st_stop aqueue-worker "$var" "$var/aqueue.conf" aqueue-worker 15
}

# ---------------------------------------------------------------------
# nginx
# ---------------------------------------------------------------------

# _st_nginx_fcgi VAR: the FastCGI lines every app location of the local
# stack's nginx shares (Authorization passed for API keys and the
# metrics token).
_st_nginx_fcgi() {
	cat <<EOF
			fastcgi_pass "unix:$1/run/fcgi.sock";
			fastcgi_connect_timeout 5s;
			fastcgi_send_timeout 30s;
			fastcgi_read_timeout 30s;
			fastcgi_param QUERY_STRING \$query_string;
			fastcgi_param REQUEST_METHOD \$request_method;
			fastcgi_param CONTENT_TYPE \$content_type;
			fastcgi_param CONTENT_LENGTH \$content_length;
			fastcgi_param SCRIPT_NAME \$fastcgi_script_name;
			fastcgi_param REQUEST_URI \$request_uri;
			fastcgi_param DOCUMENT_URI \$document_uri;
			fastcgi_param SERVER_PROTOCOL \$server_protocol;
			fastcgi_param REQUEST_SCHEME \$scheme;
			fastcgi_param HTTPS \$https if_not_empty;
			fastcgi_param GATEWAY_INTERFACE CGI/1.1;
			fastcgi_param SERVER_SOFTWARE nginx;
			fastcgi_param REMOTE_ADDR \$remote_addr;
			fastcgi_param REMOTE_PORT \$remote_port;
			fastcgi_param SERVER_ADDR \$server_addr;
			fastcgi_param SERVER_PORT \$server_port;
			fastcgi_param SERVER_NAME \$server_name;
			fastcgi_param HTTP_AUTHORIZATION \$http_authorization
			    if_not_empty;
			# The whole response head must fit (else 502 "upstream
			# sent too big header"); see deploy/nginx/aqueue.conf.
			fastcgi_buffer_size 16k;
			fastcgi_buffers 8 16k;
			# nginx's own errors in the app's shape.
			error_page 413 /queue-error/413.json;
EOF
}

# _st_nginx_conf VAR PORT: the nginx.conf of the local stack.
_st_nginx_conf() {
	local var=$1 port=$2 n=$1/nginx
	# As root, nginx's workers would run as "nobody" and could not read a
	# repository under a private home directory: run them as root (the
	# server listens on 127.0.0.1 only).  As another user the directive
	# is meaningless and left out.
	[ "$(id -u)" -eq 0 ] && echo 'user root root;'
	cat <<EOF
# Written by deploy/local/stack.sh: nginx for the local stack only.
# The production example is deploy/nginx/aqueue.conf.
# Enough for thousands of parallel visitors in load tests on loopback.
worker_processes auto;
worker_rlimit_nofile 16384;
daemon off;
pid "$n/nginx.pid";
error_log "$n/logs/error.log" warn;

events {
	worker_connections 4096;
}

http {
	types {
		text/html html htm;
		text/css css;
		text/javascript js mjs;
		application/json json;
		image/svg+xml svg;
		image/png png;
		image/x-icon ico;
		font/woff2 woff2;
		text/plain txt;
	}
	default_type application/octet-stream;
	charset utf-8;
	charset_types text/css text/javascript application/json text/plain;
	access_log "$n/logs/access.log";
	# Answer times to the millisecond and how long each request took,
	# for tests that count arrivals per second.
	log_format aqueue_timed
	    '\$msec \$request_time \$status \$request_method \$request_uri';
	access_log "$n/logs/timed.log" aqueue_timed;
	# Requests that reached the FastCGI pool, for tests that count what
	# polling costs it.
	log_format aqueue_upstream '\$request_method \$request_uri \$status';
	access_log "$n/logs/upstream.log" aqueue_upstream if=\$upstream_addr;
	client_body_temp_path "$n/tmp/body";
	fastcgi_temp_path "$n/tmp/fastcgi";
	proxy_temp_path "$n/tmp/proxy";
	scgi_temp_path "$n/tmp/scgi";
	uwsgi_temp_path "$n/tmp/uwsgi";
	server_tokens off;
	sendfile on;

	# Browsers (HTML preferred to JSON) get nginx's own errors under
	# /queue/ as a small page, API clients as JSON.
	map \$http_accept \$aqueue_err_fmt {
		default json;
		"~*^(?!.*application/json).*text/html" html;
	}

	server {
		listen 127.0.0.1:$port;
		server_name 127.0.0.1 localhost;
		# The app answers 413 itself above its max-body (64 KB).
		client_max_body_size 2m;
		# Long request lines (e.g. a 10 KB token to /verify) reach the
		# app, which answers them properly, instead of nginx's 414.
		large_client_header_buffers 4 32k;

		location = / {
			return 302 /shop/;
		}

		# The poll document of a queue: a file the pool's master
		# rewrites about twice a second (state-dir), served without a
		# FastCGI request; while it is missing, the app answers.
		location ~ "^/queue/([a-z0-9][a-z0-9-]{0,62})/state\\.json\$" {
			root "$var/state";
			types { }
			default_type application/json;
			add_header Cache-Control "public, max-age=1" always;
			add_header Vary Origin always;
			try_files /\$1.json @aqueue_app;
		}
		location @aqueue_app {
$(_st_nginx_fcgi "$var")
			error_page 502 504 =503 /queue-error/503.json;
		}

		# Everything under /queue/ is the FastCGI app.
		location /queue/ {
$(_st_nginx_fcgi "$var")
			error_page 502 504 =503 /queue-error/503.\$aqueue_err_fmt;
		}

		# The operator console and the Prometheus metrics (protected by
		# the app: console sessions, metrics-allow / metrics-token).
		location /admin/ {
$(_st_nginx_fcgi "$var")
			error_page 502 504 =503 /queue-error/503.\$aqueue_err_fmt;
		}
		location = /metrics {
$(_st_nginx_fcgi "$var")
			error_page 502 504 =503 /queue-error/503.\$aqueue_err_fmt;
		}

		# The admin API is the FastCGI app too; Authorization (API
		# keys) must reach it.  Its OpenAPI document is a file.
		location = /api/openapi.json {
			alias "$STACK_ROOT/static/openapi.json";
			default_type application/json;
			add_header Cache-Control no-cache always;
		}
		location /api/ {
$(_st_nginx_fcgi "$var")
			error_page 502 504 =503 /queue-error/503.json;
		}

		location = /queue-error/413.json {
			internal;
			default_type application/json;
			add_header Cache-Control no-store always;
			return 413 '{"error":"body_too_large","message":"The request body is too large."}\n';
		}
		location = /queue-error/503.json {
			internal;
			default_type application/json;
			add_header Cache-Control no-store always;
			add_header Retry-After 5 always;
			return 503 '{"error":"service_unavailable","message":"The waiting room does not answer right now; try again shortly."}\n';
		}
		location = /queue-error/503.html {
			internal;
			default_type "text/html; charset=utf-8";
			add_header Cache-Control no-store always;
			add_header Retry-After 5 always;
			return 503 '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta http-equiv="refresh" content="5"><title>Waiting room</title></head><body><main><h1>Please wait a moment</h1><p role="status">The waiting room is briefly unavailable. This page tries again by itself in a few seconds; keep it open.</p></main></body></html>\n';
		}

		# The repository's static/ folder (the app's static-url).
		location /queue-static/ {
			alias "$STACK_ROOT/static/";
		}

		# The demo shop that the demo queue admits visitors to.
		location /shop/ {
			alias "$STACK_ROOT/deploy/local/shop/";
			index index.html;
		}
	}
}
EOF
}

# nginx_start VARDIR PORT: (re)start nginx on 127.0.0.1:PORT for VARDIR.
nginx_start() {
	local var port=${2:-8080} n i
	var=$(_st_abs "${1:-}") || return 1
	n=$var/nginx
	nginx_stop "$var"
	mkdir -p "$n/logs" "$n/tmp" || return 1
	_st_nginx_conf "$var" "$port" >"$n/nginx.conf" || return 1
	if ! nginx -q -t -p "$n/" -c nginx.conf -e "$n/logs/error.log" \
	    >"$n/logs/test.log" 2>&1; then
		_st_err "nginx rejects $n/nginx.conf:"
		cat "$n/logs/test.log" >&2
		return 1
	fi
	if _st_port_busy "$port"; then
		_st_err "port $port on 127.0.0.1 is already in use;" \
		    "stop what uses it or pick another port"
		return 1
	fi
	_st_say "starting nginx on 127.0.0.1:$port"
	_st_start nginx "$var" "$n/logs/stderr.log" \
	    nginx -p "$n/" -c nginx.conf -e "$n/logs/error.log" || return 1
	i=0
	until curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/shop/"
	do
		if ! _st_running nginx "$var" "$n" "" || [ "$i" -ge 100 ]; then
			if grep -q 'Address already in use' \
			    "$n/logs/error.log" 2>/dev/null; then
				_st_err "port $port on 127.0.0.1 is already" \
				    "in use; stop what uses it or pick another"
			else
				_st_err "nginx did not start"
			fi
			_st_tail "$n/logs/error.log" 20 >&2
			nginx_stop "$var"
			return 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
}

# nginx_stop VARDIR: stop this stack's nginx, if it runs.
nginx_stop() {
	local var
	var=$(_st_abs "${1:-}") || return 1
	_st_stop nginx "$var" "$var/nginx" "" 10 "$var/nginx/nginx.pid"
}

# ---------------------------------------------------------------------
# All of it
# ---------------------------------------------------------------------

# stack_up VARDIR PORT: packages, build, MariaDB, config, migrations, the
# demo queue, the pool and nginx; then wait for /queue/healthz.  Leftovers
# of a killed run in VARDIR are stopped first.  Returns 1 at the first
# step that fails (what already runs keeps running: call stack_down).
stack_up() {
	local var port=${2:-8080} i
	var=$(_st_abs "${1:-}") || return 1
	case $port in
	'' | *[!0-9]*)
		_st_err "bad port: $port"
		return 1
		;;
	esac
	mkdir -p "$var/log" || return 1
	ensure_packages "$var/log/packages.log" || return 1
	nginx_stop "$var"
	app_stop "$var"
	if _st_port_busy "$port"; then
		_st_err "port $port on 127.0.0.1 is already in use;" \
		    "stop what uses it or pick another port"
		return 1
	fi
	build "$var/log/build.log" || return 1
	db_start "$var" || return 1
	write_config "$var" "$port" || return 1
	migrate "$var" || return 1
	demo_queue "$var" "$port" || return 1
	app_start "$var" || return 1
	worker_start "$var" || return 1
	nginx_start "$var" "$port" || return 1
	i=0
	until curl -fsS -o /dev/null --max-time 2 \
	    "http://127.0.0.1:$port/queue/healthz" 2>/dev/null; do
		if [ "$i" -ge 30 ]; then
			_st_err "http://127.0.0.1:$port/queue/healthz" \
			    "does not answer 200"
			curl -sS -i --max-time 2 \
			    "http://127.0.0.1:$port/queue/healthz" >&2
			_st_tail "$var/log/aqueue-fcgi.log" 30 >&2
			_st_tail "$var/nginx/logs/error.log" 20 >&2
			return 1
		fi
		sleep 0.5
		i=$((i + 1))
	done
	_st_say "up on http://127.0.0.1:$port/"
}

# stack_down VARDIR: stop nginx, the pool and MariaDB of VARDIR.
stack_down() {
	local var
	var=$(_st_abs "${1:-}") || return 1
	nginx_stop "$var"
	worker_stop "$var"
	app_stop "$var"
	db_stop "$var"
}

# stack_tmp_var LINK: make a new, empty VARDIR outside the repository and
# point the symbolic link LINK at it; print its path.  For stacks whose
# tests start servers that drop privileges: Apache's children and the
# program mod_fcgid spawns (www-data), lighttpd (www-data), Galera nodes
# (mysql) must reach their own folders and the stack's sockets, also when
# the repository sits in a private directory (mode 0700, like root's
# home).  The folder is /var/tmp/aqueue-stack.XXXXXX (/tmp when /var/tmp
# is missing), mode 0711: every user may pass through it, nobody else may
# list it.  What LINK pointed to before (such a folder, of this user) is
# stopped with stack_down and removed first; so is a plain folder at LINK.
# Returns 1 when the folder or the link cannot be made.
stack_tmp_var() {
	local link=${1:-} prev base var
	if [ -z "$link" ]; then
		_st_err "stack_tmp_var: no link given"
		return 1
	fi
	if [ -L "$link" ]; then
		prev=$(readlink -- "$link")
		case ${prev##*/} in
		aqueue-stack.??????)
			if [ -d "$prev" ] && [ -O "$prev" ]; then
				stack_down "$prev" >/dev/null
				rm -rf -- "$prev"
			fi
			;;
		esac
		rm -f -- "$link" || return 1
	elif [ -d "$link" ]; then
		stack_down "$link" >/dev/null
		rm -rf -- "$link" || return 1
	fi
	base=/var/tmp
	[ -d "$base" ] && [ -w "$base" ] || base=/tmp
	var=$(mktemp -d "$base/aqueue-stack.XXXXXX") || return 1
	if ! chmod 0711 "$var" || ! mkdir -p "$(dirname "$link")" ||
	    ! ln -s "$var" "$link"; then
		rm -rf -- "$var"
		return 1
	fi
	echo "$var"
}

# stack_status VARDIR: one line per service.
stack_status() {
	local var name match comm own
	var=$(_st_abs "${1:-}") || return 1
	while read -r name match comm own; do
		[ "$comm" = - ] && comm=
		if _st_running "$name" "$var" "$var/$match" "$comm" \
		    "$var/$own"; then
			echo "$name: running (pid $(_st_pidof "$name" "$var" \
			    "$var/$own"))"
		else
			echo "$name: stopped"
		fi
	done <<'EOF'
mariadbd db/my.cnf - db/mysqld.pid
aqueue-fcgi aqueue.conf aqueue-fcgi run/aqueue-fcgi.pid
aqueue-worker aqueue.conf aqueue-worker -
nginx nginx - nginx/nginx.pid
EOF
}

_st_usage() {
	cat >&2 <<'EOF'
usage: stack.sh COMMAND VARDIR [PORT]
commands: ensure-packages build db-start db-stop write-config migrate
          demo-queue app-start app-stop nginx-start nginx-stop
          worker-start worker-stop
          up down status
EOF
	return 2
}

# The command line.
_st_main() {
	local cmd=${1:-} var=${2:-} port=${3:-8080}
	case $cmd in
	ensure-packages) ensure_packages; return ;;
	build) build; return ;;
	'' | -h | --help) _st_usage; return ;;
	esac
	[ -n "$var" ] || { _st_usage; return; }
	case $cmd in
	db-start) db_start "$var" ;;
	db-stop) db_stop "$var" ;;
	write-config) write_config "$var" "$port" ;;
	migrate) migrate "$var" ;;
	demo-queue) demo_queue "$var" "$port" &&
	    echo "secret: $STACK_DEMO_SECRET" ;;
	app-start) app_start "$var" ;;
	app-stop) app_stop "$var" ;;
	worker-start) worker_start "$var" ;;
	worker-stop) worker_stop "$var" ;;
	nginx-start) nginx_start "$var" "$port" ;;
	nginx-stop) nginx_stop "$var" ;;
	up) stack_up "$var" "$port" &&
	    echo "secret: $STACK_DEMO_SECRET" ;;
	down) stack_down "$var" ;;
	status) stack_status "$var" ;;
	*) _st_usage ;;
	esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u -o pipefail
	_st_main "$@"
	exit
fi
