#!/usr/bin/env bash
# The whole test run (npm test): installs what the tests need on this machine, builds, then runs the
# unit (its database-backed specs again on MariaDB), API (SQLite, then MariaDB) and browser suites, and prints one closing line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export NODE_OPTIONS=--experimental-vm-modules
results=$(mktemp -d)

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
[ -x /usr/sbin/sshd ] || need_apt+=(openssh-server)
# the proxy hosts of the firewall tests (test/helpers/proxy-host.ts): nginx and sshd in network namespaces
[ -x /usr/sbin/nginx ] || need_apt+=(nginx)
[ -x /usr/sbin/iptables ] || need_apt+=(iptables)
[ -x /usr/sbin/ipset ] || need_apt+=(ipset)
# a non-root SSH login on a proxy runs ipset/iptables with sudo -n (test/api/firewall-sync.e2e.ts)
[ -x /usr/bin/sudo ] || need_apt+=(sudo)
command -v ip >/dev/null || need_apt+=(iproute2)
# the search nodes' peer (test/api/sphinx.e2e.ts): indexer and searchd, run by the test on its own config
[ -x /usr/bin/indexer ] || need_apt+=(sphinxsearch)
command -v openssl >/dev/null || need_apt+=(openssl)
[ -x /usr/bin/tinyproxy ] || need_apt+=(tinyproxy)
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || need_apt+=(mariadb-server)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== installing system packages: ${need_apt[*]}"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  fi
  # Debian's nginx package starts a system nginx on port 80 wherever services may start (systemd, no
  # policy-rc.d). The tests run their own nginx inside namespaces: stop and disable the one just installed.
  if [[ " ${need_apt[*]} " == *" nginx "* ]]; then
    as_root=""; [ "$(id -u)" = 0 ] || as_root=sudo
    { $as_root systemctl disable --now nginx || $as_root service nginx stop; } >/dev/null 2>&1 || true
  fi
  # Likewise sphinxsearch's searchd: the test starts its own on a config the console wrote.
  if [[ " ${need_apt[*]} " == *" sphinxsearch "* ]]; then
    as_root=""; [ "$(id -u)" = 0 ] || as_root=sudo
    { $as_root systemctl disable --now sphinxsearch || $as_root service sphinxsearch stop; } >/dev/null 2>&1 || true
  fi
  # Likewise tinyproxy: test/api/ant.e2e.ts starts its own with BasicAuth.
  if [[ " ${need_apt[*]} " == *" tinyproxy "* ]]; then
    as_root=""; [ "$(id -u)" = 0 ] || as_root=sudo
    { $as_root systemctl disable --now tinyproxy; $as_root service tinyproxy stop; } >/dev/null 2>&1 || true
  fi
fi

# MariaDB for the second API pass: start it when installed but not running.
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  if ! mariadb -uroot -h127.0.0.1 -e 'select 1' >/dev/null 2>&1; then
    echo "== starting MariaDB"
    mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld 2>/dev/null || true
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd 2>/dev/null || true
    for _ in $(seq 1 30); do mariadb -uroot -h127.0.0.1 -e 'select 1' >/dev/null 2>&1 && break; sleep 1; done
  fi
  mariadb -uroot -h127.0.0.1 -e 'select 1' >/dev/null 2>&1 && MYSQL_URL=mysql://root@127.0.0.1:3306/test
else
  MYSQL_URL=$TEST_DATABASE_URL
fi

echo "== build (server and UI) and type checks"
npm run build || { echo "0 passed, 1 failed"; exit 1; }
npm run typecheck || { echo "0 passed, 1 failed"; exit 1; }

status=0
run() { # name, project, extra env... [-- jest file arguments]
  local name=$1 project=$2; shift 2
  local envs=() files=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift && files=("$@")
  echo "== $name"
  env "${envs[@]}" npx jest --selectProjects "$project" --json --outputFile="$results/$name.json" "${files[@]}" || status=1
}
run unit unit
# the unit specs that also check MariaDB (SQL against an in-memory computation, the monitoring tiers)
if [ -n "${MYSQL_URL:-}" ]; then
  run unit-mariadb unit TEST_DATABASE_URL="$MYSQL_URL" -- test/unit/ip-features.spec.ts test/unit/monitoring-tiers.spec.ts
fi
run api-sqlite api
if [ -n "${MYSQL_URL:-}" ]; then
  # Files whose subject does not depend on the database (an SSH peer, Redis, a TLS server, a process)
  # say so in their opening comment (` * One pass: <why>`, test/helpers/passes.ts): one pass is enough.
  mapfile -t both < <(grep -L '^ \* One pass: ' test/api/*.e2e.ts)
  run api-mariadb api TEST_DATABASE_URL="$MYSQL_URL" -- "${both[@]}"
else
  echo "!! MariaDB is not reachable: the MariaDB pass cannot run"; status=1
fi
run browser browser

echo "npm test took $((SECONDS / 60)) min $((SECONDS % 60)) s (budget: .ci/run under 45 min, README \"Test\")"
node -e '
  const fs = require("fs"), dir = process.argv[1];
  let p = 0, f = 0;
  const slow = [];
  for (const file of fs.readdirSync(dir)) {
    const r = JSON.parse(fs.readFileSync(dir + "/" + file, "utf8"));
    p += r.numPassedTests; f += r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
    console.log(`${file.replace(".json", "")}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${Math.round((Math.max(r.startTime, ...r.testResults.map((t) => t.endTime)) - r.startTime) / 1000)} s`);
    for (const t of r.testResults) slow.push([(t.endTime - t.startTime) / 1000, `${file.replace(".json", "")} ${t.name.replace(/.*\/test\//, "test/")}`]);
  }
  console.log("slowest files:");
  for (const [s, name] of slow.sort((a, b) => b[0] - a[0]).slice(0, 10)) console.log(`${s.toFixed(1).padStart(7)} s  ${name}`);
  console.log(`${p} passed, ${f} failed`);
' "$results"
rm -rf "$results"
exit $status
