/**
 * Registers the prompt mode ({@link promptAware}) for the notebook's IPython cells.
 *
 * JupyterLab's language registry has no call to replace a language. A registered language is a
 * CodeMirror `LanguageDescription`: editors get its support from `load()` (one shared promise)
 * or from its `support` once loaded. So at activation, synchronously, before any editor of a
 * restored notebook can ask, the IPython description's `load` is replaced by one that yields
 * the prompt-aware support, and a support loaded already is replaced too. Every editor that
 * asks for the language afterwards, or is still waiting for it, gets the prompt mode; an editor
 * that had its language before this plugin activated keeps Python until it is re-created (a
 * reload). Failure (no IPython language, a registry of another shape) leaves the editor as it
 * was and is logged once: cells are then edited as Python, as without the extension.
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
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

const promptModePlugin: JupyterFrontEndPlugin<void> = {
  id: 'dsh-notebook:prompt-mode',
  description: 'Edit %%dsh cells as prose: no Python highlighting or indentation in a prompt.',
  autoStart: true,
  requires: [IEditorLanguageRegistry],
  activate: (_app: JupyterFrontEnd, languages: IEditorLanguageRegistry): void => {
    try {
      if (!installPromptMode(languages)) {
        console.warn('dsh-notebook: no IPython language to extend; %%dsh cells edit as Python');
      }
    } catch (reason) {
      console.warn('dsh-notebook: the %%dsh prompt mode is not available', reason);
    }
  }
};

export default promptModePlugin;
