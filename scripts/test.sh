#!/usr/bin/env bash
# The whole test suite on a fresh machine: install, make sure the real PostgreSQL and Redis the
# tests talk to are running, then typecheck and run every test. The S3 server is started by the
# tests themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi; }
apt_get() {
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# PostgreSQL from Debian when it is missing; a cluster when there is none; then start it.
command -v pg_ctlcluster >/dev/null 2>&1 || apt_get postgresql postgresql-client
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  version="$(ls /usr/lib/postgresql | sort -V | tail -1)"
  [ -d "/etc/postgresql/$version/main" ] || as_root pg_createcluster "$version" main --port 5432 >/dev/null
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  for _ in $(seq 1 60); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
  pg_isready -h 127.0.0.1 -p 5432 -q || { echo "PostgreSQL did not start" >&2; exit 1; }
fi
# The tests connect over TCP as `postgres` and create a database per suite. A fresh Debian has no
# trust login on 127.0.0.1 (scram), so unless TEST_PG_URL already works, give the role a password
# through the local peer login and use it.
: "${TEST_PG_URL:=postgres://postgres@127.0.0.1:5432/postgres}"
if ! psql "$TEST_PG_URL" -Atqc 'select 1' >/dev/null 2>&1; then
  pw="${MARKLESS_TEST_PG_PASSWORD:-markless-test}"
  as_postgres psql -q -c "alter role postgres with login superuser password '$pw'" >/dev/null
  TEST_PG_URL="postgres://postgres:${pw}@127.0.0.1:5432/postgres"
  psql "$TEST_PG_URL" -Atqc 'select 1' >/dev/null || { echo "cannot log in to PostgreSQL as postgres over TCP" >&2; exit 1; }
fi
export TEST_PG_URL

# Redis from Debian when it is missing, started without persistence (the tests own their keys).
command -v redis-server >/dev/null 2>&1 || apt_get redis-server
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
  redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null || { echo "Redis did not start" >&2; exit 1; }
fi

# Node 20.19+ lets require() load ES modules, and once in a full run a vitest fork died in that
# path (V8 fatal "IsGraphAsync must be used on an instantiated module", a race in Node's loader,
# nodejs/node#59703) after every test had passed. Nothing here needs require(esm), so it is off.
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--no-experimental-require-module"

# `npm test`: the tiers fastest first, stopping at the first that fails. Run directly so that its
# last line stays the last one printed, the plain one any CI reads: "N passed, N failed, N skipped".
exec node scripts/test-tiers.mjs "$@"
