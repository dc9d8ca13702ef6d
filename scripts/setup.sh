#!/usr/bin/env bash
# Installs everything markless needs on a fresh Debian machine with Node 20: Debian packages
# (ffmpeg for video frames, tesseract-ocr with Vietnamese and English data for care label OCR,
# fonts for the generated test labels, chromium for the browser tests, python3-torch for
# fine-tuning a backbone on an owner's photos: training/backbone.py) and the npm dependencies
# from the lockfile. Downloads come only from
# Debian and the npm registry; no install script fetches binaries from elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

apt_install ffmpeg tesseract-ocr tesseract-ocr-vie tesseract-ocr-eng fonts-dejavu-core chromium \
  python3-torch python3-onnx python3-pil python3-numpy
# npm ci reinstalls only when the lockfile changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.markless-lock; then
  npm ci --no-fund --no-audit
  cp package-lock.json node_modules/.markless-lock
fi
# The web app (web/ → web/dist), served by the API; built with the project's own TypeScript.
npm run build --silent
