#!/usr/bin/env bash
# A throwaway PostgreSQL for tests and benchmarks: a cluster of its own in a folder,
# reached through a Unix socket in that folder (no TCP port, so none to find free and none
# another process can take), trusting local connections, never a system service.
#
#   scripts/postgres.sh start DIR [SETTING=VALUE ...]   prints the cluster's postgres:// URL
#   scripts/postgres.sh stop DIR                        stops it and removes DIR
#   scripts/postgres.sh restart DIR                     restarts it (fast: sessions are ended)
#   scripts/postgres.sh pause DIR                       stops it, keeping its data
#   scripts/postgres.sh resume DIR                      starts it again after a pause
#
# PostgreSQL's server programs come from Debian's `postgresql` package (make setup
# installs it), or from PG_BIN. PostgreSQL refuses to run as root: as root, the cluster
# belongs to the `postgres` user the package creates.
set -euo pipefail

command=${1:-}
dir=${2:-}
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop|restart|pause|resume DIR [SETTING=VALUE ...]" >&2
  exit 2
fi
shift 2

bin=${PG_BIN:-}
if [ -z "$bin" ]; then
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$bin" ] || bin=$(dirname "$(command -v initdb 2>/dev/null || echo /missing/initdb)")
fi
if [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
  echo "$0: PostgreSQL's initdb and pg_ctl are missing: run make setup (Debian's postgresql package), or set PG_BIN" >&2
  exit 1
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
start)
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then
    chown postgres: "$dir"
    if ! runuser -u postgres -- test -w "$dir"; then
      echo "$0: the postgres user cannot reach $dir: use a folder whose parents it can enter (such as /tmp/NAME)" >&2
      exit 1
    fi
  fi
  as_owner "$bin/initdb" -D "$dir/data" -U lathe -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  # The socket is DIR/.s.PGSQL.5432: the port only names it.
  options="-p 5432 -k $dir -c listen_addresses=''"
  for setting in "$@"; do options+=" -c $setting"; done
  echo "$options" >"$dir/options"
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$options" -w -t 60 start >/dev/null ||
    { cat "$dir/server.log" >&2; exit 1; }
  as_owner "$bin/createdb" -h "$dir" -p 5432 -U lathe lathe
  # sqlx, libpq and psql all take a socket folder as the host parameter.
  echo "postgres://lathe@localhost/lathe?host=$dir"
  ;;
restart)
  # No output captured: the new postmaster would keep the caller's pipe open.
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null 2>&1
  ;;
pause)
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  ;;
resume)
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$(cat "$dir/options")" -w -t 60 start >/dev/null 2>&1
  ;;
stop)
  if [ -d "$dir/data" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  ;;
*)
  echo "$0: unknown command $command (start, stop, restart, pause or resume)" >&2
  exit 2
  ;;
esac
