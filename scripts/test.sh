#!/usr/bin/env bash
# The whole test suite on a fresh machine: install, make sure the real PostgreSQL and Redis the
# tests talk to are running, then typecheck and run every test. The S3 server is started by the
# tests themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi

report="$(mktemp -t markless-vitest-XXXX.json)"
status=0
npm test -- --reporter=default --reporter=json --outputFile="$report" || status=$?
# One plain closing line that any CI reads the same way.
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' "$report" 2>/dev/null || echo "0 passed, 1 failed"
exit $status
