#!/usr/bin/env bash
# The one command that sets everything up on a fresh machine and runs the whole test suite:
#   system packages (bubblewrap: the runtime's bash sandbox), a virtual environment with the
#   package, the pinned runtime wheel and the test tools, then lint, type checks and pytest.
# Re-running is cheap: installs are skipped when already satisfied.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh

# bubblewrap: the runtime's sandbox for bash; chromium: browser tests (Playwright drives the
# system chromium, it never downloads a browser; without it those tests are skipped)
ensure_debian_packages bwrap:bubblewrap /usr/bin/chromium:chromium
echo "== .venv: dsh-notebook with the runtime, Jupyter and the test tools"
ensure_venv .venv -e '.[runtime,jupyter,test,bench]'
echo "== .venv-ipykernel6: the kernel tests run on ipykernel 6 and 7"
ensure_venv .venv-ipykernel6 'ipykernel>=6,<7' -e '.[runtime,jupyter]'
export DSH_TEST_KERNEL_PYTHONS="$PWD/.venv-ipykernel6/bin/python:$PWD/.venv/bin/python"
echo "== .venv-gateway: Enterprise Gateway 3.3 pins jupyter_server 1.24, so it gets its own venv"
ensure_venv .venv-gateway 'jupyter_enterprise_gateway>=3.3,<4'
export DSH_TEST_GATEWAY_PYTHON="$PWD/.venv-gateway/bin/python"
echo "== .chp: configurable-http-proxy (npm) for the JupyterHub test"
[ -x .chp/node_modules/.bin/configurable-http-proxy ] \
  || npm install --no-audit --no-fund --loglevel=error --prefix .chp configurable-http-proxy@5.3.0 >/dev/null
export DSH_TEST_CHP="$PWD/.chp/node_modules/.bin/configurable-http-proxy"
echo "== .rtc: jupyter-collaboration under a pip --prefix, put on the collaboration test's lab only"
# (installed into .venv it would turn every JupyterLab of the other browser tests into an RTC one)
[ -d .rtc/lib ] || .venv/bin/python -m pip install -q --prefix .rtc 'jupyter-collaboration>=4,<5'
export DSH_TEST_RTC_PREFIX="$PWD/.rtc"
export DSH_TEST_EXPECT_IPYKERNEL_MAJORS="6,7"

echo "== widget: npm install against the committed lock, vitest, and a bundle that is up to date"
(
  cd js
  npm install --no-audit --no-fund --loglevel=error
  git diff --exit-code package-lock.json || { echo "!! package-lock.json changed: commit it" >&2; exit 1; }
  npm test --silent
  npm run build --silent
)
git diff --exit-code dsh_notebook/widget/static js/labextension/src/widgetbundle.ts || { echo "!! the widget bundle (or its hash in js/labextension/src/widgetbundle.ts) is stale: run (cd js && npm run build) and commit it" >&2; exit 1; }

echo "== labextension: npm install against the committed lock, node tests, and a build that is up to date"
(
  cd js/labextension
  npm install --no-audit --no-fund --loglevel=error
  git diff --exit-code package-lock.json || { echo "!! js/labextension/package-lock.json changed: commit it" >&2; exit 1; }
  npm test --silent
)
# built from a copy at a fixed path: the output must not depend on where the checkout is
bash scripts/build-labextension.sh >/dev/null
# git status, not git diff: a rebuilt chunk with a new content hash is a new, untracked file
if [ -n "$(git status --porcelain -- dsh_notebook/labextension)" ]; then
  git status --short -- dsh_notebook/labextension >&2
  echo "!! the labextension build is stale: run bash scripts/build-labextension.sh and commit it" >&2
  exit 1
fi
# the installed package (pip install -e: hatch copies shared-data) exposes the extension
.venv/bin/jupyter labextension list 2>&1 | grep -E "dsh-notebook v[0-9.]+ .*enabled.*OK" >/dev/null \
  || { echo "!! jupyter labextension list does not show dsh-notebook: reinstall (pip install -e .)" >&2; exit 1; }

echo "== ruff"
.venv/bin/ruff check dsh_notebook tests bench
.venv/bin/ruff format --check dsh_notebook
echo "== mypy --strict"
.venv/bin/mypy
echo "== pytest"
# pytest exits 5 when it collected no tests: that is a failure here too (set -e).
exec .venv/bin/python -m pytest --durations=25 "$@"
