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

# ensure_venv DIR PIP_ARGS...
#   Creates the virtual environment DIR when absent (with $PYTHON, default python3) and installs
#   PIP_ARGS into it.
ensure_venv() {
  local dir=$1
  shift
  if [ ! -x "$dir/bin/python" ]; then
    echo "== creating $dir"
    "${PYTHON:-python3}" -m venv "$dir"
  fi
  "$dir/bin/python" -m pip install -q --upgrade pip
  "$dir/bin/python" -m pip install -q "$@"
}
