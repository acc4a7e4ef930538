/**
 * The prompt mode: a `%%dsh` cell is a prompt (prose), not Python.
 *
 * JupyterLab gives every code cell of an IPython notebook the kernel's language (`text/x-ipython`,
 * CodeMirror 6's Python). {@link promptAware} wraps that language's parser so that a cell whose
 * first line is `%%dsh` parses, as a whole, as a prompt: plain text whose only marks are the
 * magic line (`meta`) and the `{name}` / `{In[3]}` tokens the kernel interpolates
 * (`variableName`). Everything else in the cell is unstyled prose, so
 *
 * - no Python keyword (`for`, `if`, `in`…), string or comment is coloured in a prompt;
 * - Enter keeps the current line's indentation and nothing more (a line ending in `:` does not
 *   indent the next one; `else:` does not dedent), since the prompt language has no opinion on
 *   indentation and Python's indentation rules do not reach inside it.
 *
 * Every other cell parses exactly as before (the wrapper only mounts the prompt language on a
 * cell whose text starts with `%%dsh`; it re-decides on every parse, so typing or deleting
 * the magic line switches the mode). Pure CodeMirror/Lezer: no JupyterLab import, so it is
 * tested with the real parser in node.
 */

import { LRLanguage, StreamLanguage, StringStream } from '@codemirror/language';
import { Input, parseMixed } from '@lezer/common';

/** A cell magic line `%%dsh` (with or without options), after optional blank lines. */
export const PROMPT_CELL = /^\s*%%dsh(?:[ \t][^\n]*)?(?:\n|$)/;

/** Characters read from the start of a cell to decide whether it is a prompt. */
const HEAD = 512;

interface PromptState {
  magicSeen: boolean;
}

const INTERPOLATED = /^\{(?:[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*|(?:In|Out|Err)\[-?\d+\])\}/;

/** The prompt language: prose, with the magic line and interpolated tokens marked. */
export const promptLanguage = StreamLanguage.define<PromptState>({
  name: 'dsh-prompt',
  startState: () => ({ magicSeen: false }),
  copyState: state => ({ ...state }),
  token(stream: StringStream, state: PromptState): string | null {
    if (!state.magicSeen) {
      state.magicSeen = true;
      if (stream.match(/^\s*%%dsh\b.*/)) {
        return 'meta';
      }
    }
    if (stream.match(INTERPOLATED)) {
      return 'variableName';
    }
    stream.next();
    stream.eatWhile(/[^{]/);
    return null;
  },
  languageData: { commentTokens: {} }
});

/** True when the document (a cell's source) is a `%%dsh` prompt. */
export function isPromptCell(input: Input | string): boolean {
  const head = typeof input === 'string' ? input.slice(0, HEAD) : input.read(0, Math.min(HEAD, input.length));
  return PROMPT_CELL.test(head);
}

/** `language` (the notebook's Python) that parses a `%%dsh` cell as a prompt, as a whole. */
export function promptAware(language: LRLanguage): LRLanguage {
  return language.configure(
    {
      // An overlay over the whole cell, not a plain mount: the top node is where the editor's
      // highlighter and indentation start, and they enter an overlay there (a plain mount is
      // entered only below the top node). Inside the overlay only the prompt tree counts.
      wrap: parseMixed((node, input) =>
        node.type.isTop && isPromptCell(input)
          ? { parser: promptLanguage.parser, overlay: [{ from: 0, to: input.length }] }
          : null
      )
    },
    language.name
  );
}
