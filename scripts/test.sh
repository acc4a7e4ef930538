#!/usr/bin/env bash
# The one command that sets everything up on a fresh machine and runs the whole test suite:
#   system packages (bubblewrap: the runtime's bash sandbox), a virtual environment with the
#   package, the pinned runtime wheel and the test tools, then lint, type checks and pytest.
# Re-running is cheap: installs are skipped when already satisfied.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh

# Independent steps run in the background (their output is printed when they are joined, in
# order). None writes a file of the checkout that another step or a test reads: the JavaScript
# builds are compared with the committed ones from scratch folders, so they and the lint run
# beside pytest and are joined after it.
BG=$(mktemp -d -t dsh-setup-XXXXXX)
declare -A BG_PIDS
# a step that fails stops the script: the background ones still running stop with it
trap 'kill "${BG_PIDS[@]}" 2>/dev/null || true; rm -rf "$BG"' EXIT
in_background() {  # NAME COMMAND...: run COMMAND (a function or a program) in the background
  local name=$1
  shift
  ( "$@" ) >"$BG/$name.log" 2>&1 &
  BG_PIDS[$name]=$!
}
join() {  # NAME: wait for it, print its output; stop here if it failed
  local name=$1
  if wait "${BG_PIDS[$name]}"; then
    cat "$BG/$name.log"
  else
    cat "$BG/$name.log" >&2
    echo "!! $name failed (above)" >&2
    exit 1
  fi
}
chp() {
  [ -x .chp/node_modules/.bin/configurable-http-proxy ] \
    || npm install --no-audit --no-fund --loglevel=error --prefix .chp configurable-http-proxy@5.3.0 >/dev/null
}
rtc() {
  # (installed into .venv it would turn every JupyterLab of the other browser tests into an RTC one)
  [ -d .rtc/lib ] || .venv/bin/python -m pip install -q --prefix .rtc 'jupyter-collaboration>=4,<5'
}
npm_install() {  # DIR: npm install against the committed lock, which must not change
  (
    cd "$1"
    npm install --no-audit --no-fund --loglevel=error
    git diff --exit-code package-lock.json || { echo "!! $1/package-lock.json changed: commit it" >&2; exit 1; }
  )
}
js_checks() {
  # Both npm installs (at once), both vitest suites, then both builds compared with the committed
  # ones. None of it needs Python, and none of it writes a file the Python tests read (the builds
  # go to scratch folders), so it runs beside pytest.
  npm_install js &
  local widget=$!
  npm_install js/labextension &
  local labextension=$!
  wait "$widget"
  wait "$labextension"
  echo "== widget: vitest"
  (cd js && npm test --silent)
  echo "== labextension: vitest (the widget's, from js/node_modules)"
  (cd js/labextension && npm test --silent)
  echo "== widget: a bundle that is up to date"
  local built stale=0 pair
  built=$(mktemp -d -t dsh-widget-XXXXXX)
  (cd js && DSH_WIDGET_BUILD_DIR="$built" npm run build --silent)
  for pair in static/widget.js:dsh_notebook/widget/static/widget.js \
    static/widget.css:dsh_notebook/widget/static/widget.css \
    widgetbundle.ts:js/labextension/src/widgetbundle.ts; do
    cmp -s "$built/${pair%%:*}" "${pair#*:}" || {
      echo "!! ${pair#*:} is stale: run (cd js && npm run build) and commit it" >&2
      stale=1
    }
  done
  rm -rf "$built"
  [ "$stale" = 0 ] || exit 1
  echo "== labextension: a build that is up to date"
  # built from a copy at a fixed path: the output must not depend on where the checkout is
  bash scripts/build-labextension.sh --check
}
lint() {
  echo "== ruff"
  .venv/bin/ruff check dsh_notebook tests bench
  .venv/bin/ruff format --check dsh_notebook
  echo "== mypy --strict"
  .venv/bin/mypy
}

# bubblewrap: the runtime's sandbox for bash; chromium-headless-shell: browser tests (Playwright
# drives Debian's headless build of chromium, it never downloads a browser; without it the tests
# take /usr/bin/chromium, without either they are skipped). Only pytest needs them, so apt runs
# beside the Python installs (update, download and install took 6.7 s with empty apt caches).
echo "== Debian packages: bubblewrap, chromium-headless-shell (in the background)"
in_background debian ensure_debian_packages bwrap:bubblewrap /usr/bin/chromium-headless-shell:chromium-headless-shell
ensure_uv  # before the installs that run in the background
echo "== .venv-ipykernel6: the kernel tests run on ipykernel 6 and 7 (in the background)"
in_background ipykernel6 ensure_venv .venv-ipykernel6 'ipykernel>=6,<7' -e '.[runtime,jupyter]'
echo "== .venv-gateway: Enterprise Gateway 3.3 pins jupyter_server 1.24, so it gets its own venv (in the background)"
in_background gateway ensure_venv .venv-gateway 'jupyter_enterprise_gateway>=3.3,<4'
echo "== .chp: configurable-http-proxy (npm) for the JupyterHub test (in the background)"
in_background chp chp
echo "== npm install, vitest and build checks of the widget and of the labextension (in the background, beside pytest too)"
in_background js js_checks
echo "== .venv: dsh-notebook with the runtime, Jupyter and the test tools"
ensure_venv .venv -e '.[runtime,jupyter,test,bench]'
join ipykernel6
echo "== .rtc: jupyter-collaboration under a pip --prefix, put on the collaboration test's lab only (in the background)"
in_background rtc rtc
echo "== ruff and mypy (in the background)"
in_background lint lint
export DSH_TEST_KERNEL_PYTHONS="$PWD/.venv-ipykernel6/bin/python:$PWD/.venv/bin/python"
export DSH_TEST_GATEWAY_PYTHON="$PWD/.venv-gateway/bin/python"
export DSH_TEST_CHP="$PWD/.chp/node_modules/.bin/configurable-http-proxy"
export DSH_TEST_RTC_PREFIX="$PWD/.rtc"
export DSH_TEST_EXPECT_IPYKERNEL_MAJORS="6,7"

# the installed package (pip install -e: hatch copies shared-data) exposes the extension
.venv/bin/jupyter labextension list 2>&1 | grep -E "dsh-notebook v[0-9.]+ .*enabled.*OK" >/dev/null \
  || { echo "!! jupyter labextension list does not show dsh-notebook: reinstall (pip install -e .)" >&2; exit 1; }

join debian
join gateway
join chp
join rtc
echo "== pytest (the JavaScript checks and the lint go on beside it: their output follows)"
# The suite runs on DSH_TEST_WORKERS pytest-xdist workers (default 3; 0: in this process). One
# process mostly waits on kernels, the runtime, JupyterLab and chromium; 3 workers keep both cores
# of the 2-core machine ~98 % busy (so more workers would only share the same CPU) and took
# pytest from 28-31 to 18-26 min (docs/benchmarks.md: where its CPU goes). Tests go one by one
# to whichever worker is free, except that a browser module stays whole on one worker (its
# browser is module-scoped: tests/browser/conftest.py, which stops the run if pytest-xdist drops
# that grouping).
# pytest exits 5 when it collected no tests: that is a failure here too.
status=0
.venv/bin/python -m pytest -n "${DSH_TEST_WORKERS:-3}" --dist loadgroup --durations=25 "$@" || status=$?
join js
join lint
trap - EXIT
rm -rf "$BG"
exit "$status"
