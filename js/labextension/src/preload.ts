/**
 * The run widget's bundle, loaded before the page's first `%%dsh` widget needs it.
 *
 * Without this, the first run widget of a page imports the served bundle (its script evaluated)
 * and links its stylesheet (a style recalculation of the whole page) while its run streams: main-
 * thread work in the first tenth of a second of the answer. A kernel that loaded dsh_notebook
 * opens this extension's comm; when the page links to it, this does, once per page and when the
 * browser is idle, exactly what the widget's light loader (`dsh_notebook/widget/bundle.py`) does:
 * the same URL, the module promise under the same `globalThis` key, the same
 * `link[data-dsh-widget-bundle]`. The loader then finds both done and only awaits the promise.
 *
 * Once imported, the bundle's `warm` (when it has one) runs at the next idle moment, and again at
 * each next one while it returns true: step by step it renders a sample run off screen, so the
 * browser compiles the widget's code before a real run needs it, in tasks short enough for an
 * idle moment.
 *
 * Guarantees: at most one import and one stylesheet per page and hash, whoever comes first (this
 * or the loader); a failed import is forgotten (the key is deleted), so the loader tries again and
 * reports it in the widget; nothing here throws.
 */

import { WIDGET_BUNDLE_HASH } from './widgetbundle';

/** What the preload needs from the page (the real `document`, `globalThis`, `import()` by default). */
export interface IPreloadEnv {
  doc: Document;
  global: Record<symbol, unknown>;
  importModule: (url: string) => Promise<{ default: unknown }>;
  whenIdle: (run: () => void) => void;
}

/** The `globalThis` key of the bundle's module promise (the widget's loader uses the same). */
export function bundleKey(hash: string): symbol {
  return Symbol.for('dsh-notebook.widget-bundle.' + hash);
}

/** The served bundle's URL without its `.js` / `.css` suffix, as the widget's loader computes it. */
export function bundleBase(doc: Document, hash: string): string {
  const node = doc.getElementById('jupyter-config-data');
  let config: { fullLabextensionsUrl?: unknown } = {};
  try {
    config = node === null ? {} : JSON.parse(node.textContent || '{}');
  } catch {
    config = {};
  }
  return new URL(
    String(config.fullLabextensionsUrl || '/lab/extensions') + '/dsh-notebook/static/dsh-widget.' + hash,
    doc.baseURI
  ).href;
}

function defaultEnv(): IPreloadEnv {
  return {
    doc: document,
    global: globalThis as unknown as Record<symbol, unknown>,
    importModule: url => import(/* webpackIgnore: true */ url),
    whenIdle: run => {
      const idle = (globalThis as { requestIdleCallback?: (fn: () => void, o: object) => void })
        .requestIdleCallback;
      if (typeof idle === 'function') {
        idle(run, { timeout: 3000 });
      } else {
        setTimeout(run, 200);
      }
    }
  };
}

/** Load the widget bundle of `hash` now-ish (when idle), unless the page has it or is loading it. */
export function preloadWidgetBundle(hash: string = WIDGET_BUNDLE_HASH, env: IPreloadEnv = defaultEnv()): void {
  const key = bundleKey(hash);
  if (env.global[key] !== undefined) {
    return;
  }
  env.whenIdle(() => {
    try {
      if (env.global[key] !== undefined) {
        return; // a widget's loader came first
      }
      const base = bundleBase(env.doc, hash);
      if (env.doc.querySelector(`link[data-dsh-widget-bundle="${hash}"]`) === null) {
        const link = env.doc.createElement('link');
        link.rel = 'stylesheet';
        link.href = base + '.css';
        link.dataset.dshWidgetBundle = hash;
        env.doc.head.appendChild(link);
      }
      const module = env.importModule(base + '.js').then(m => m.default);
      module.then(
        bundle => {
          // a first run of its code paths, off screen (the bundle's `warm`), a step per idle
          // moment for as long as it answers true (one call, for a bundle whose warm is one step)
          const warm = (bundle as { warm?: unknown } | null)?.warm;
          if (typeof warm === 'function') {
            const step = (): void => {
              if (warm() === true) {
                env.whenIdle(step);
              }
            };
            env.whenIdle(step);
          }
        },
        () => {
          delete env.global[key];
        }
      );
      env.global[key] = module;
    } catch (error) {
      console.warn('dsh-notebook: could not preload the widget bundle', error);
    }
  });
}
