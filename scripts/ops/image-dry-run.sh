#!/usr/bin/env bash
# Prove what the images run, without a container runtime or a base-image registry: replay the
# Dockerfile's steps on this machine against a temporary copy of the build context, as a
# non-root user, and check the result answers.
#   bash scripts/ops/image-dry-run.sh           dependency step as `npm ci --dry-run` (no 900 MB copy)
#   FULL=1 bash scripts/ops/image-dry-run.sh    dependency step for real (npm ci --omit=dev, rebuild)
# Steps mirrored (Dockerfile): deps stage `npm ci --omit=dev --ignore-scripts` + `npm rebuild`;
# runtime stage COPY of package.json tsconfig.json shared api workers models docker/ready-probe.mjs;
# USER node (here: nobody); CMD `node --import tsx api/src/main.ts` with the image's ENV, then
# HEALTHCHECK `node docker/ready-probe.mjs`.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
WORK=$(mktemp -d /tmp/markless-image-XXXXXX)
chmod 755 "$WORK"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }

step "deps stage: lockfile installs with the image's flags"
cp package.json package-lock.json .npmrc "$WORK/"
if [ "${FULL:-0}" = 1 ]; then
  (cd "$WORK" && npm ci --omit=dev --ignore-scripts --prefer-offline --no-fund --no-audit && npm rebuild hnswlib-node msgpackr-extract esbuild sharp)
  MODULES="$WORK/node_modules"
else
  (cd "$WORK" && npm ci --omit=dev --ignore-scripts --dry-run --prefer-offline --no-fund --no-audit | tail -1)
  MODULES="$ROOT/node_modules"
fi

step "runtime code imports no devDependency (the image omits them)"
DEV=$(node -e "console.log(Object.keys(require('./package.json').devDependencies).filter(n=>!n.startsWith('@types/')).join('|'))")
if grep -rEn --include=*.ts "from '($DEV)['/]" shared/src api/src workers/src | grep -v '\.spec\.ts:' | grep -v '/testing/' | grep -v 'conformance/'; then
  echo "FAIL: runtime code imports a devDependency"; exit 1
fi
echo "ok: none of ${DEV//|/, }"

step "runtime stage: COPY the app (as the Dockerfile does), nothing else"
APP="$WORK/app"
mkdir -p "$APP/docker" "$WORK/data"
cp package.json tsconfig.json "$APP/"
cp -r shared api workers models "$APP/"
cp docker/ready-probe.mjs "$APP/docker/"
ln -s "$MODULES" "$APP/node_modules"
chmod -R a+rX "$WORK"; chown -R nobody "$WORK/data" 2>/dev/null || chmod 777 "$WORK/data"
! grep -qE '\b(g\+\+|make|python3)\b' <(sed -n '/^FROM node:20.19-bookworm-slim AS runtime/,$p' Dockerfile | grep -v '^#') && echo "ok: final stage installs no build tools"

step "CMD as a non-root user: node --import tsx api/src/main.ts (embedded; the image defaults to distributed and takes its addresses from the environment)"
PORT=$(node -e "const s=require('net').createServer().listen(0,()=>{console.log(s.address().port);s.close()})")
MPORT=$(node -e "const s=require('net').createServer().listen(0,()=>{console.log(s.address().port);s.close()})")
RUNAS=(); [ "$(id -u)" = 0 ] && RUNAS=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
(cd "$APP" && env -i PATH="$PATH" HOME=/tmp NODE_ENV=production MODE=embedded HOST=127.0.0.1 PORT="$PORT" METRICS_PORT="$MPORT" \
   DATA_DIR="$WORK/data" LOG_LEVEL=warn COMMIT=image-dry-run "${RUNAS[@]}" node --import tsx api/src/main.ts) &
PID=$!
for _ in $(seq 1 240); do
  (cd "$APP" && METRICS_PORT="$MPORT" node docker/ready-probe.mjs) && break
  kill -0 "$PID" 2>/dev/null || { echo "FAIL: the API exited"; exit 1; }
  sleep 1
done
(cd "$APP" && METRICS_PORT="$MPORT" node docker/ready-probe.mjs) && echo "ok: HEALTHCHECK (docker/ready-probe.mjs) passes"
echo "process user: $(ps -o user= -p "$(pgrep -P "$PID" -n || echo "$PID")" 2>/dev/null || echo '?')"
curl -fsS "http://127.0.0.1:$PORT/api/health" | head -c 400; echo
curl -fsS "http://127.0.0.1:$MPORT/metrics" | grep -c '^markless_' | sed 's/^/ok: metrics port serves /; s/$/ markless_* samples/'
kill -TERM "$PID"; wait "$PID" || true; PID=""
echo "ok: stopped on SIGTERM"
