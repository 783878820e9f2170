# Sourced by .ci/run. `start_postgres` starts Debian's PostgreSQL in a cluster of its own — a
# folder under /tmp owned by the `postgres` user (initdb refuses to run as root), on a free
# loopback port — creates a role and a database for this run, exports the URL the PostgreSQL
# tests read (MINIHARNESS_TEST_POSTGRES_URL) and makes those tests required
# (MINIHARNESS_TEST_POSTGRES_REQUIRED=1: absent, they fail instead of skipping). The cluster is
# stopped and removed when the run ends. The password is random and never printed.

start_postgres() {
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "CI: PostgreSQL is not installed (apt-get install postgresql)" >&2
    return 1
  fi
  local run_as=()
  PG_CI_DIR="$(mktemp -d /tmp/mh-ci-pg.XXXXXX)"
  if [ "$(id -u)" = 0 ]; then
    chown postgres:postgres "$PG_CI_DIR"
    run_as=(runuser -u postgres --)
  fi
  local password
  password="$(head -c 18 /dev/urandom | base64 | tr -d '/+=')"
  printf '%s\n' "$password" > "$PG_CI_DIR/pw" && chmod 600 "$PG_CI_DIR/pw"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_CI_DIR/pw"
  "${run_as[@]}" "$bin/initdb" -D "$PG_CI_DIR/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    --pwfile="$PG_CI_DIR/pw" >"$PG_CI_DIR/initdb.log" 2>&1
  rm -f "$PG_CI_DIR/pw"
  local port started=""
  for _ in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 30000))
    if "${run_as[@]}" "$bin/pg_ctl" -D "$PG_CI_DIR/data" -l "$PG_CI_DIR/server.log" -w -t 60 start \
      -o "-p $port -k $PG_CI_DIR -c listen_addresses=127.0.0.1 -c max_connections=400" >/dev/null; then
      started=1
      break
    fi
  done
  if [ -z "$started" ]; then
    echo "CI: PostgreSQL did not start; its log:" >&2
    cat "$PG_CI_DIR/server.log" >&2
    return 1
  fi
  PG_CI_STOP=("${run_as[@]}" "$bin/pg_ctl" -D "$PG_CI_DIR/data" -m fast -w stop)
  trap 'stop_postgres' EXIT
  # The tests' role may create a database per test file.
  "${run_as[@]}" "$bin/psql" -h "$PG_CI_DIR" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q \
    -c "CREATE ROLE miniharness_ci LOGIN CREATEDB PASSWORD '$password'" \
    -c "CREATE DATABASE miniharness_ci OWNER miniharness_ci" >/dev/null
  export MINIHARNESS_TEST_POSTGRES_URL="postgres://miniharness_ci:$password@127.0.0.1:$port/miniharness_ci"
  export MINIHARNESS_TEST_POSTGRES_REQUIRED=1
  echo "CI: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (cluster in $PG_CI_DIR)"
}

stop_postgres() {
  if [ -n "${PG_CI_DIR:-}" ]; then
    "${PG_CI_STOP[@]}" >/dev/null 2>&1 || true
    rm -rf "$PG_CI_DIR"
  fi
}
