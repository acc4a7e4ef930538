#!/usr/bin/env bash
# JupyterLab on 127.0.0.1 with your copy of the notebooks and the quickstart open: the launch
# step of scripts/run.sh (which sets up .venv first; run this directly once it is set up).
#
#   bash scripts/lab.sh [jupyter lab options...]   # e.g. --port 9999 --no-browser
#
# - Your copy: the files of notebooks/ are copied into my-notebooks/ (ignored by git;
#   DSH_NOTEBOOKS_COPY names another folder). A file already there is kept as it is, so what you
#   ran, saved and edited stays yours; delete it to get the committed one back. JupyterLab serves
#   that folder, so notebooks/ and the clone's git tree stay as committed however much you run.
# - No "news" toast over the quickstart: this launch adds scripts/jupyter-config to
#   JUPYTER_CONFIG_PATH (this process only), whose page config disables JupyterLab's
#   announcements plugin (the news and update notices). Your own Jupyter settings are not touched.
# - The checkout's own build of the page extension (dsh_notebook/labextension), ahead of the copy
#   the install put in .venv (a copy made when .venv was set up: after a pull it would be old):
#   .labextensions/dsh-notebook links to it (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."

copy=${DSH_NOTEBOOKS_COPY:-my-notebooks}
mkdir -p "$copy"
copy=$(cd "$copy" && pwd)
(cd notebooks && find . -type f ! -path '*/__pycache__/*' ! -path '*/.ipynb_checkpoints/*') |
  while IFS= read -r file; do
    if [ ! -e "$copy/$file" ]; then
      mkdir -p "$(dirname "$copy/$file")"
      cp "notebooks/$file" "$copy/$file"
    fi
  done

# The notebooks ask for the kernel "python3": make that this environment's kernel even when a
# user-wide "python3" kernelspec (another Python, without dsh_notebook) exists.
export JUPYTER_PATH="$PWD/.venv/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
export JUPYTER_CONFIG_PATH="$PWD/scripts/jupyter-config${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"

mkdir -p .labextensions
ln -sfn "$PWD/dsh_notebook/labextension" .labextensions/dsh-notebook
root_flag=()
if [ "$(id -u)" = "0" ]; then
  root_flag=(--allow-root)  # Jupyter refuses to run as root without it
fi
echo "== your copy of the notebooks: $copy (notebooks/ stays as committed)"
echo "== starting JupyterLab on 127.0.0.1 (Ctrl-C to stop)"
exec .venv/bin/jupyter lab --ServerApp.ip=127.0.0.1 "--ServerApp.root_dir=$copy" \
  "--LabServerApp.extra_labextensions_path=$PWD/.labextensions" \
  ${root_flag[@]+"${root_flag[@]}"} "$@" "$copy/quickstart.ipynb"
