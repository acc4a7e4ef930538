#!/usr/bin/env bash
# The one command that sets everything up on a fresh machine and runs the whole test suite:
#   system packages (bubblewrap: the runtime's bash sandbox), a virtual environment with the
#   package, the pinned runtime wheel and the test tools, then lint, type checks and pytest.
# Re-running is cheap: installs are skipped when already satisfied.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: bubblewrap (the runtime's sandbox for bash) and chromium (browser tests;
# Playwright drives the system chromium, it never downloads a browser).
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "!! missing Debian packages: ${missing[*]} (sudo apt-get install ${missing[*]});" >&2
    echo "   sandboxed bash tests fail without bubblewrap; browser tests are skipped without chromium." >&2
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  "$PY" -m venv .venv
fi
echo "== installing dsh-notebook with the runtime and test tools"
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[runtime,jupyter,test,bench]'

if [ ! -x .venv-ipykernel6/bin/python ]; then
  echo "== creating .venv-ipykernel6 (the kernel tests run on ipykernel 6 and 7)"
  "$PY" -m venv .venv-ipykernel6
fi
.venv-ipykernel6/bin/python -m pip install -q --upgrade pip
.venv-ipykernel6/bin/python -m pip install -q 'ipykernel>=6,<7' -e '.[runtime,jupyter]'
export DSH_TEST_KERNEL_PYTHONS="$PWD/.venv-ipykernel6/bin/python:$PWD/.venv/bin/python"
export DSH_TEST_EXPECT_IPYKERNEL_MAJORS="6,7"

echo "== widget: npm install against the committed lock, vitest, and a bundle that is up to date"
(
  cd js
  npm install --no-audit --no-fund --loglevel=error
  git diff --exit-code package-lock.json || { echo "!! package-lock.json changed: commit it" >&2; exit 1; }
  npm test --silent
  npm run build --silent
)
git diff --exit-code dsh_notebook/widget/static || { echo "!! the widget bundle is stale: run (cd js && npm run build) and commit it" >&2; exit 1; }

echo "== ruff"
.venv/bin/ruff check dsh_notebook tests bench
.venv/bin/ruff format --check dsh_notebook
echo "== mypy --strict"
.venv/bin/mypy
echo "== pytest"
# pytest exits 5 when it collected no tests: that is a failure here too (set -e).
exec .venv/bin/python -m pytest "$@"
