#!/usr/bin/env bash
# npm run bench: builds, then runs every benchmark (bench/*.ts but lib.ts); each rewrites its section of bench/README.md.
# Some need root and real peers: run-once (sshd), sphinx (sshd, sphinxsearch installed when missing, MariaDB on 127.0.0.1:3306).
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build
for f in bench/*.ts; do
  name=$(basename "$f" .ts)
  [ "$name" = lib ] && continue
  [ -n "${1:-}" ] && [ "$name" != "$1" ] && continue
  echo "== bench $name"
  node "dist/bench/$name.js"
done
