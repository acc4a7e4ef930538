/**
 * Registers the prompt mode ({@link promptAware}) for the notebook's IPython cells.
 *
 * JupyterLab's language registry has no call to replace a language, and a registered language's
 * only writable part is its loaded `support`. So at activation the IPython language is loaded
 * (`getLanguage`, the same call every editor makes) and its support replaced by the prompt-aware
 * one; editors created afterwards pick it up from the registry. Activation is awaited by the
 * application before notebooks are restored, so no cell editor is made with the old support in
 * a normal start. Failure (no IPython language, a registry of another shape) leaves the editor
 * as it was and is logged once: cells are then edited as Python, as without the extension.
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { LanguageSupport, LRLanguage } from '@codemirror/language';

import { promptAware } from './promptmode';

/** What ipykernel's `language_info.codemirror_mode` (`ipython`, version 3) maps to. */
export const IPYTHON = 'ipython';

const wrapped = new WeakSet<LanguageSupport>();

/** Make the registry's IPython language prompt-aware (idempotent). True when it is. */
export async function installPromptMode(languages: IEditorLanguageRegistry): Promise<boolean> {
  const spec = await languages.getLanguage(IPYTHON);
  const support = spec?.support;
  if (!spec || !support) {
    return false;
  }
  if (wrapped.has(support)) {
    return true;
  }
  const language = support.language;
  if (!(language instanceof LRLanguage)) {
    return false;
  }
  const aware = new LanguageSupport(promptAware(language), support.support);
  wrapped.add(aware);
  spec.support = aware;
  return true;
}

const promptModePlugin: JupyterFrontEndPlugin<void> = {
  id: 'dsh-notebook:prompt-mode',
  description: 'Edit %%dsh cells as prose: no Python highlighting or indentation in a prompt.',
  autoStart: true,
  requires: [IEditorLanguageRegistry],
  activate: async (_app: JupyterFrontEnd, languages: IEditorLanguageRegistry): Promise<void> => {
    try {
      if (!(await installPromptMode(languages))) {
        console.warn('dsh-notebook: no IPython language to extend; %%dsh cells edit as Python');
      }
    } catch (reason) {
      console.warn('dsh-notebook: the %%dsh prompt mode is not available', reason);
    }
  }
};

export default promptModePlugin;
