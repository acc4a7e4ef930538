#!/usr/bin/env bash
# The one command that sets everything up on a fresh machine and runs the main job: JupyterLab
# on 127.0.0.1 with the quickstart open, in your copy of notebooks/ (my-notebooks/, ignored by
# git: the clone stays clean) and without JupyterLab's news toast (scripts/lab.sh).
#
#   bash scripts/run.sh [jupyter lab options...]   # e.g. --port 9999 --no-browser
#   bash scripts/run.sh --headless                  # no browser: execute the quickstart and write
#                                                   # build/quickstart.html (= scripts/run-headless.sh)
#
# Without DEEPSEEK_API_KEY (and DEEPSEEK_BASE_URL) the notebook kernel starts the demo analyst
# (rule-based, no LLM; it answers from the notebook's data through the real tools) by itself: no
# key and no network needed. With a key in the environment, the same notebooks talk to DeepSeek.
#
# Setup (as scripts/test.sh does it; re-running is cheap, installs are skipped when satisfied):
# bubblewrap (the runtime's sandbox for bash; installed with apt-get when running as root), a
# virtual environment .venv, this package with its runtime and Jupyter extras, JupyterLab, and
# pandas + matplotlib (used by notebooks/data-exploration.ipynb).
set -euo pipefail
cd "$(dirname "$0")/.."

headless=0
if [ "${1:-}" = "--headless" ]; then
  headless=1
  shift
fi

source scripts/setup.sh

ensure_debian_packages bwrap:bubblewrap  # the runtime's sandbox for the agent's bash tool
echo "== installing dsh-notebook with the runtime and JupyterLab (the first time takes a few minutes)"
ensure_venv .venv -e '.[runtime,jupyter]' jupyterlab nbconvert pandas matplotlib

if [ -z "${DEEPSEEK_API_KEY:-}" ] && [ -z "${DEEPSEEK_BASE_URL:-}" ]; then
  echo "== no DEEPSEEK_API_KEY: the notebooks use the demo analyst (rule-based, no LLM)"
fi

if [ "$headless" = "1" ]; then
  # the kernel "python3" is this environment's (scripts/lab.sh says why)
  export JUPYTER_PATH="$PWD/.venv/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
  mkdir -p build
  echo "== executing notebooks/quickstart.ipynb (no browser needed)"
  .venv/bin/jupyter nbconvert --to html --execute notebooks/quickstart.ipynb \
    --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=300 \
    --output-dir build --output quickstart "$@"
  echo "== wrote $PWD/build/quickstart.html"
  exit 0
fi

exec bash scripts/lab.sh "$@"
