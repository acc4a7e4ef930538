# Shared setup steps, sourced by scripts/test.sh and scripts/run.sh (not run on its own).
# Both are idempotent: re-running skips what is already there.

# ensure_debian_packages COMMAND_OR_PATH:PACKAGE ...
#   Installs each PACKAGE whose command (or absolute path) is missing, with apt-get when running as
#   root; otherwise says what to install and goes on.
ensure_debian_packages() {
  local missing=() spec probe package
  for spec in "$@"; do
    probe=${spec%%:*}
    package=${spec#*:}
    if [[ $probe == /* ]]; then [ -x "$probe" ] || missing+=("$package")
    else command -v "$probe" >/dev/null 2>&1 || missing+=("$package"); fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "!! missing Debian packages: ${missing[*]} (sudo apt-get install ${missing[*]})" >&2
  fi
}

# ensure_uv
#   uv, the installer of the virtual environments, from PyPI into .uv (once, with pip). It
#   resolves and installs several times faster than pip and with a fraction of the CPU, and it
#   compiles no bytecode ahead (Python compiles what it imports, once). Call it before starting
#   ensure_venv in the background: two first calls at once would race on creating .uv.
ensure_uv() {
  if [ ! -x .uv/bin/uv ]; then
    echo "== .uv: the installer (uv, from PyPI)"
    "${PYTHON:-python3}" -m venv .uv
    .uv/bin/python -m pip install -q 'uv>=0.9,<1'
  fi
}

# ensure_venv DIR REQUIREMENTS...
#   Creates the virtual environment DIR when absent (with $PYTHON, default python3; with pip in
#   it too) and installs REQUIREMENTS (pip's syntax: specifiers, -e PATH) into it with uv.
ensure_venv() {
  local dir=$1
  shift
  ensure_uv
  if [ ! -x "$dir/bin/python" ]; then
    echo "== creating $dir"
    # never a Python of uv's own download: the machine's interpreter, as python -m venv would
    UV_PYTHON_DOWNLOADS=never .uv/bin/uv venv -q --seed --python "$(command -v "${PYTHON:-python3}")" "$dir"
  fi
  .uv/bin/uv pip install -q --python "$dir/bin/python" "$@"
}
