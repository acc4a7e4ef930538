"""The widget bundle served once per page, and the small loader widgets get instead of it.

Without help every :class:`~.run_widget.RunWidget` carries the whole script bundle
(``static/widget.js``, ~210 KiB) and its stylesheet in its ``comm_open``, again for each widget.
The JupyterLab 4 / Notebook 7 extension serves the same two files from its static folder
(``<fullLabextensionsUrl>/dsh-notebook/static/dsh-widget.<hash>.js`` and ``.css``; the build
script ``scripts/build-labextension.sh`` copies them there) and announces
:data:`CAPABILITY` (``widget_bundle:<hash>``) in ``hello_reply``. A kernel whose frontend link
holds exactly that capability gives new widgets :data:`LIGHT_ESM` (under 2 KB) instead: it
imports the served bundle once per page (the module promise is kept on ``globalThis`` under the
hash; the stylesheet is linked once) and delegates ``initialize`` / ``render`` to it.

Guarantees. The hash is of the bundle's bytes (``widget.js``, a NUL, ``widget.css``; sha256,
16 hex digits, the same as ``js/build.mjs`` writes into ``js/labextension/src/widgetbundle.ts``),
so a page that serves another bundle (a stale page, another version) never gets the loader: the
kernel sends the full bundle, as it does with no extension (VS Code, Colab, nbconvert) or before
any ``hello_reply``. If the served file cannot be loaded anyway, the view says so in plain text
(nothing is approved or lost; re-running the cell in a page without the extension shows it).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["CAPABILITY", "HASH", "LIGHT_ESM", "bundle_hash"]

STATIC = Path(__file__).parent / "static"


def bundle_hash(js: bytes, css: bytes) -> str:
    """The content hash of a bundle: ``sha256(js + b"\\0" + css)``, first 16 hex digits."""
    return hashlib.sha256(js + b"\0" + css).hexdigest()[:16]


HASH = bundle_hash((STATIC / "widget.js").read_bytes(), (STATIC / "widget.css").read_bytes())
CAPABILITY = f"widget_bundle:{HASH}"
"""What a page that serves this very bundle announces in ``hello_reply``."""

_LOADER = """// dsh_notebook: loads the widget bundle the dsh-notebook extension serves (once per page).
const HASH = "@HASH@";
const KEY = Symbol.for("dsh-notebook.widget-bundle." + HASH);
function load() {
  let module = globalThis[KEY];
  if (module === undefined) {
    const node = document.getElementById("jupyter-config-data");
    const config = node === null ? {} : JSON.parse(node.textContent || "{}");
    const base = new URL(
      String(config.fullLabextensionsUrl || "/lab/extensions") +
        "/dsh-notebook/static/dsh-widget." + HASH,
      document.baseURI,
    ).href;
    if (document.querySelector('link[data-dsh-widget-bundle="' + HASH + '"]') === null) {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = base + ".css";
      link.dataset.dshWidgetBundle = HASH;
      document.head.appendChild(link);
    }
    module = import(base + ".js").then((m) => m.default);
    module.catch(() => { delete globalThis[KEY]; });
    globalThis[KEY] = module;
  }
  return module;
}
export default {
  async initialize(ctx) {
    try {
      const bundle = await load();
      return bundle.initialize ? bundle.initialize(ctx) : undefined;
    } catch (error) {
      console.error("dsh-notebook: cannot load the served widget bundle", error);
    }
  },
  async render(ctx) {
    let bundle;
    try {
      bundle = await load();
    } catch (error) {
      ctx.el.textContent =
        "dsh: this page could not load the run widget's script from the dsh-notebook " +
        "extension (reload the page, or re-run the cell).";
      return;
    }
    return bundle.render(ctx);
  },
};
"""

LIGHT_ESM = _LOADER.replace("@HASH@", HASH)
"""The ``_esm`` of a widget shown on a page that announced :data:`CAPABILITY`."""
