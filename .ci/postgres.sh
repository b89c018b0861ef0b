#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests of the PostgreSQL store.
#
#   eval "$(bash .ci/postgres.sh start)"   # exports GROUNDWORK_TEST_POSTGRES and GROUNDWORK_PG_DIR
#   bash .ci/postgres.sh stop "$GROUNDWORK_PG_DIR"
#
# start installs PostgreSQL from the machine's Debian packages when no initdb
# is found, creates a cluster in a new temporary folder (owned by an
# unprivileged user when run as root, since the server refuses to run as
# root), starts it on 127.0.0.1 at a free port with trust authentication,
# and prints the export lines on stdout; everything else goes to stderr.
# stop stops that cluster and deletes its folder.
set -euo pipefail

log() { echo "postgres.sh: $*" >&2; }

find_bin() {
	local name=$1 found
	if found=$(command -v "$name" 2>/dev/null); then
		echo "$found"
		return 0
	fi
	found=$(ls -d /usr/lib/postgresql/*/bin/"$name" 2>/dev/null | sort -V | tail -n 1 || true)
	[ -n "$found" ] && echo "$found"
}

# as runs a command as the cluster's owner, from /: the owner may not be
# allowed into the folder the script was started in.
as() {
	if [ "$(id -u)" = 0 ]; then
		(cd / && runuser -u "$owner" -- "$@")
	else
		"$@"
	fi
}

pick_owner() {
	owner=$(id -un)
	if [ "$(id -u)" = 0 ]; then
		if id postgres >/dev/null 2>&1; then owner=postgres; else owner=nobody; fi
	fi
}

free_port() {
	local port
	for _ in $(seq 1 50); do
		port=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	log "found no free port"
	return 1
}

start() {
	local initdb pg_ctl dir port
	initdb=$(find_bin initdb || true)
	if [ -z "$initdb" ]; then
		log "installing PostgreSQL from the Debian packages"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >&2
		apt-get install -y -qq --no-install-recommends postgresql >&2
		initdb=$(find_bin initdb)
	fi
	pg_ctl=$(dirname "$initdb")/pg_ctl
	[ -x "$pg_ctl" ] || pg_ctl=$(find_bin pg_ctl)
	pick_owner
	dir=$(mktemp -d "${TMPDIR:-/tmp}/groundwork-pg.XXXXXX")
	chmod 700 "$dir"
	[ "$(id -u)" = 0 ] && chown "$owner" "$dir"
	port=$(free_port)
	as "$initdb" -D "$dir/data" -U groundwork --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
		as "$initdb" -D "$dir/data" -U groundwork --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2
		return 1
	}
	if ! as "$pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir -c max_connections=300" start >&2; then
		cat "$dir/server.log" >&2
		return 1
	fi
	log "PostgreSQL ($("$initdb" --version)) runs on 127.0.0.1:$port as $owner in $dir"
	echo "export GROUNDWORK_TEST_POSTGRES='postgres://groundwork@127.0.0.1:$port/postgres?sslmode=disable'"
	echo "export GROUNDWORK_PG_DIR='$dir'"
}

stop() {
	local dir=${1:-${GROUNDWORK_PG_DIR:-}} initdb pg_ctl
	if [ -z "$dir" ] || [ ! -d "$dir/data" ]; then
		log "no cluster to stop"
		return 0
	fi
	pick_owner
	initdb=$(find_bin initdb)
	pg_ctl=$(dirname "$initdb")/pg_ctl
	as "$pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
	rm -rf "$dir"
}

case "${1:-}" in
start) start ;;
stop) stop "${2:-}" ;;
*)
	echo "usage: $0 start | stop DIR" >&2
	exit 2
	;;
esac
