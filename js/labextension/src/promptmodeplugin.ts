/**
 * Registers the prompt mode ({@link promptAware}) for the notebook's IPython cells.
 *
 * JupyterLab's language registry has no call to replace a language. A registered language is a
 * CodeMirror `LanguageDescription`: editors get its support from `load()` (one shared promise)
 * or from its `support` once loaded. So at activation, synchronously, before any editor of a
 * restored notebook can ask, the IPython description's `load` is replaced by one that yields
 * the prompt-aware support, and a support loaded already is replaced too. Every editor that
 * asks for the language afterwards, or is still waiting for it, gets the prompt mode. Editors
 * that had their language before this plugin activated (Notebook 7 may open a notebook first)
 * are refreshed once the prompt-aware support is loaded: each code cell of the notebooks open
 * then has its language looked up again (its model's MIME type set away and back, the public
 * way an editor is told to reload its language). Failure (no IPython language, a registry of another shape) leaves the editor as it
 * was and is logged once: cells are then edited as Python, as without the extension.
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker } from '@jupyterlab/notebook';
import { LanguageSupport, LRLanguage } from '@codemirror/language';

import { promptAware } from './promptmode';

/** What ipykernel's `language_info.codemirror_mode` (`ipython`, version 3) maps to. */
export const IPYTHON = 'ipython';

/** The parts of a registered language this plugin uses (a CodeMirror LanguageDescription). */
interface Loadable {
  support?: LanguageSupport;
  load: () => Promise<LanguageSupport>;
}

const wrapped = new WeakSet<LanguageSupport>();
const patched = new WeakSet<object>();

/** ``support`` with its language made prompt-aware (itself when it is already, or not LR). */
export function awareSupport(support: LanguageSupport): LanguageSupport {
  if (wrapped.has(support) || !(support.language instanceof LRLanguage)) {
    return support;
  }
  const aware = new LanguageSupport(promptAware(support.language), support.support);
  wrapped.add(aware);
  return aware;
}

/** Make the registry's IPython language prompt-aware (synchronous, idempotent). */
export function installPromptMode(languages: IEditorLanguageRegistry): boolean {
  const spec = languages.findByName(IPYTHON) as unknown as Loadable | null;
  if (!spec || typeof spec.load !== 'function') {
    return false;
  }
  if (!patched.has(spec)) {
    patched.add(spec);
    const original = spec.load.bind(spec);
    let loading: Promise<LanguageSupport> | null = null;
    spec.load = () =>
      (loading ??= original().then(
        support => (spec.support = awareSupport(support)),
        (reason: unknown) => {
          loading = null;
          throw reason;
        }
      ));
  }
  if (spec.support) {
    spec.support = awareSupport(spec.support);
  }
  return true;
}

/** Have every code cell editor of the open notebooks look its language up again. */
export function refreshEditors(tracker: INotebookTracker): number {
  let count = 0;
  tracker.forEach(panel => {
    for (const cell of panel.content.widgets) {
      const model = cell.model;
      if (model.type !== 'code') {
        continue;
      }
      const mime = model.mimeType;
      model.mimeType = 'text/plain';
      model.mimeType = mime;
      count += 1;
    }
  });
  return count;
}

const promptModePlugin: JupyterFrontEndPlugin<void> = {
  id: 'dsh-notebook:prompt-mode',
  description: 'Edit %%dsh cells as prose: no Python highlighting or indentation in a prompt.',
  autoStart: true,
  requires: [IEditorLanguageRegistry],
  optional: [INotebookTracker],
  activate: (
    _app: JupyterFrontEnd,
    languages: IEditorLanguageRegistry,
    tracker: INotebookTracker | null
  ): void => {
    try {
      if (!installPromptMode(languages)) {
        console.warn('dsh-notebook: no IPython language to extend; %%dsh cells edit as Python');
        return;
      }
    } catch (reason) {
      console.warn('dsh-notebook: the %%dsh prompt mode is not available', reason);
      return;
    }
    if (tracker === null || tracker.size === 0) {
      return; // nothing was opened before this plugin: every editor asks the patched language
    }
    // after the load and after every editor's own lookup that was under way (a macrotask later)
    void languages
      .getLanguage(IPYTHON)
      .then(() => new Promise(resolve => setTimeout(resolve, 0)))
      .then(() => refreshEditors(tracker))
      .catch((reason: unknown) => console.warn('dsh-notebook: prompt mode refresh failed', reason));
  }
};

export default promptModePlugin;
