// Bundle the widget into the Python package: one ES module + one stylesheet, no CDN imports.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(here, "../dsh_notebook/widget/static");

await build({
  entryPoints: [resolve(here, "src/index.ts")],
  outfile: resolve(out, "widget.js"),
  bundle: true,
  format: "esm",
  minify: true,
  target: ["es2020"],
  platform: "browser",
  legalComments: "eof",
  logLevel: "info",
});

await build({
  entryPoints: [resolve(here, "src/styles.css")],
  outfile: resolve(out, "widget.css"),
  bundle: true,
  minify: true,
  logLevel: "info",
});
