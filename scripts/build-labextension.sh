#!/usr/bin/env bash
# Builds the JupyterLab extension (js/labextension -> dsh_notebook/labextension) in a fixed folder.
# With --check it only compares that build with dsh_notebook/labextension (exit 1 when they differ).
#
# Why a fixed folder: the module federation container's module identifier holds absolute paths,
# and webpack/rspack ids are hashes of identifiers, so a build in another checkout folder names
# its files differently. Building from a copy at one path makes the output depend on the sources
# and the lock only, so CI can rebuild on a clean clone and compare with the committed build.
# The copy gets its own node_modules (npm install against the committed lock).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
stage=${DSH_LABEXTENSION_STAGE:-/tmp/dsh-notebook-labextension-build}
rm -rf "$stage/dsh_notebook" "$stage/js/labextension/src" "$stage/js/labextension/style"
mkdir -p "$stage/js/labextension" "$stage/dsh_notebook"
tar -C js/labextension --exclude=node_modules --exclude=lib --exclude=lib-test -cf - . \
  | tar -C "$stage/js/labextension" -xf -
(
  cd "$stage/js/labextension"
  npm install --no-audit --no-fund --loglevel=error >/dev/null
  npm run build --silent >/dev/null
)
# the widget bundle, served once per page from the extension's static folder under its content
# hash (the hash js/build.mjs wrote into src/widgetbundle.ts, which the extension announces)
hash=$(sed -n "s/^export const WIDGET_BUNDLE_HASH = '\([0-9a-f]*\)';$/\1/p" js/labextension/src/widgetbundle.ts)
actual=$({ cat dsh_notebook/widget/static/widget.js; printf '\0'; cat dsh_notebook/widget/static/widget.css; } | sha256sum | cut -c1-16)
[ "$hash" = "$actual" ] || { echo "!! js/labextension/src/widgetbundle.ts is stale: run (cd js && npm run build)" >&2; exit 1; }
cp dsh_notebook/widget/static/widget.js "$stage/dsh_notebook/labextension/static/dsh-widget.$hash.js"
cp dsh_notebook/widget/static/widget.css "$stage/dsh_notebook/labextension/static/dsh-widget.$hash.css"
if [ "${1:-}" = "--check" ]; then
  # compare only: the checkout (which running servers may be serving) is left as it is
  diff -r "$stage/dsh_notebook/labextension" "$repo/dsh_notebook/labextension" >&2 \
    || { echo "!! the labextension build is stale: run bash scripts/build-labextension.sh and commit it" >&2; exit 1; }
  echo "dsh_notebook/labextension is what its sources build (built in $stage)"
  exit 0
fi
rm -rf "$repo/dsh_notebook/labextension"
cp -r "$stage/dsh_notebook/labextension" "$repo/dsh_notebook/labextension"
echo "built dsh_notebook/labextension (from $stage)"
