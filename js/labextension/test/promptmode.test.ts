// The prompt mode with the real CodeMirror Python parser: a `%%dsh` cell parses as a prompt
// (no Python highlighting, no Python indentation), every other cell as Python.
import assert from 'node:assert/strict';
import { test } from 'vitest';

import { pythonLanguage } from '@codemirror/lang-python';
import { insertNewlineAndIndent } from '@codemirror/commands';
import { ensureSyntaxTree, indentUnit } from '@codemirror/language';
import { EditorSelection, EditorState } from '@codemirror/state';
import { NodeProp, Tree } from '@lezer/common';
import { classHighlighter, highlightTree } from '@lezer/highlight';

import { isPromptCell, promptAware, promptLanguage } from '../src/promptmode';

const language = promptAware(pythonLanguage);

function classes(source: string): Map<string, string> {
  const tree = language.parser.parse(source);
  const out = new Map<string, string>();
  highlightTree(tree, classHighlighter, (from, to, cls) => out.set(source.slice(from, to), cls));
  return out;
}

/** The new line's indentation after Enter at the end of ``source`` (CodeMirror's own command). */
function indentAfter(source: string): number {
  let state = EditorState.create({
    doc: source,
    selection: EditorSelection.cursor(source.length),
    extensions: [language, indentUnit.of('    ')]
  });
  ensureSyntaxTree(state, source.length, 5000);
  insertNewlineAndIndent({ state, dispatch: tr => (state = tr.state) });
  const text = state.doc.toString();
  assert.equal(text.slice(0, source.length + 1), source + '\n');
  return text.length - source.length - 1; // only spaces were added after the break
}

const PROMPT = '%%dsh -s sales\nfor each region, if it fell:\n    say why and {df} in {In[3]}';

test('a %%dsh cell mounts the prompt language over the whole cell', () => {
  const tree: Tree = language.parser.parse(PROMPT);
  const mounted = tree.prop(NodeProp.mounted);
  assert.ok(mounted, 'the top node carries the prompt tree');
  assert.equal(mounted.parser, promptLanguage.parser);
  assert.deepEqual(mounted.overlay?.map(r => [r.from, r.to]), [[0, PROMPT.length]]);
});

test('a prompt colours no Python keyword, only the magic line and {tokens}', () => {
  const shown = classes(PROMPT);
  assert.equal(shown.get('%%dsh -s sales'), 'tok-meta');
  assert.equal(shown.get('{df}'), 'tok-variableName');
  assert.equal(shown.get('{In[3]}'), 'tok-variableName');
  for (const [text, cls] of shown) {
    assert.ok(!/keyword|string|comment|operator/.test(cls), `${text} is ${cls}`);
  }
  assert.ok(![...shown.keys()].some(text => /\b(for|if)\b/.test(text) && !text.includes('%%dsh')));
});

test('Python cells keep their highlighting and indentation', () => {
  const shown = classes('for x in y:\n    if x:\n        pass');
  assert.equal(shown.get('for'), 'tok-keyword');
  assert.equal(shown.get('if'), 'tok-keyword');
  assert.equal(language.parser.parse('%%bash\nls').prop(NodeProp.mounted), undefined);
  assert.equal(indentAfter('for x in y:'), 4);
});

test('a line ending in ":" in a prompt asks for no indentation', () => {
  const indent = indentAfter('%%dsh\nfor each region:');
  assert.ok(indent === null || indent === 0, `indent ${indent}`); // null: keep the line's own
});

test('only the first line decides', () => {
  assert.ok(isPromptCell('%%dsh\nhi'));
  assert.ok(isPromptCell('\n  %%dsh --wait -o r\nhi'));
  assert.ok(isPromptCell('%%dsh'));
  assert.ok(!isPromptCell('%%dshx\nhi'));
  assert.ok(!isPromptCell('x = 1\n%%dsh\nhi'));
  assert.ok(!isPromptCell('%dsh status'));
});
