#!/usr/bin/env bash
# The main job for a machine without a browser: set everything up (as scripts/run.sh does),
# execute notebooks/quickstart.ipynb with nbconvert and write build/quickstart.html, the executed
# notebook with its transcripts. Extra arguments go to `jupyter nbconvert`.
set -euo pipefail
exec bash "$(dirname "$0")/run.sh" --headless "$@"
