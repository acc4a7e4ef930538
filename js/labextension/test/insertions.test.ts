// Insert below / Ask dsh rules (insertions.ts).
import assert from 'node:assert/strict';
import { test } from 'vitest';

import {
  askSource,
  escapeReferences,
  fixSource,
  cellSource,
  fenceLanguage,
  isDshCell,
  isPythonFence,
  isRunTranscript,
  isToolHeading,
  parseInsertDetail
} from '../src/insertions';

test('the insert event detail is checked, never trusted', () => {
  assert.deepEqual(parseInsertDetail({ version: 1, code: 'x = 1' }), { version: 1, code: 'x = 1' });
  for (const bad of [null, 'x', 1, {}, { version: 2, code: 'x' }, { version: 1, code: 5 }, { version: 1, code: 'x'.repeat(1_000_001) }]) {
    assert.equal(parseInsertDetail(bad), null);
  }
});

test('Python fences by name; an unlabelled fence is not Python', () => {
  assert.equal(fenceLanguage('language-python hljs'), 'python');
  assert.equal(fenceLanguage('hljs'), '');
  for (const lang of ['python', 'py', 'python3', 'IPython', 'ipython3']) {
    assert.ok(isPythonFence(lang), lang);
  }
  for (const lang of ['', 'bash', 'text', 'pycon']) {
    assert.ok(!isPythonFence(lang), lang);
  }
  assert.equal(cellSource('a\nb\n'), 'a\nb');
});

const CELL = '1a2b3c4d5e6f47a8b9c0d1e2f3a4b5c6';
const TRACEBACK = ['\u001b[0;31mZeroDivisionError\u001b[0m  Traceback', 'Cell In[7], line 1', '\u001b[0;31mZeroDivisionError\u001b[0m: division by zero'];

test('Ask dsh names the cell by short id and embeds its code and plain traceback, fenced', () => {
  const source = askSource(CELL, 'x = {"a": 1}\nprint(f"{x}")\n```\n1/0', TRACEBACK);
  assert.ok(source.startsWith('%%dsh\nCell 1a2b3c4d raised an error.'), source);
  assert.ok(!source.includes('In[7]}') && !source.includes('{Err['), 'no execution-count references');
  assert.ok(source.includes('````python\nx = {"a": 1}\nprint(f"{{x}}")\n```\n1/0\n````'), source);
  assert.ok(source.includes('ZeroDivisionError: division by zero'));
  assert.ok(!source.includes('\u001b'), 'ANSI stripped');
  assert.ok(isDshCell(source));
  assert.ok(isDshCell('\n  %%dsh --wait\nhi'));
  assert.ok(!isDshCell('1/0'));
  assert.ok(!isDshCell('%%dshx'));
});

test('Fix with dsh asks for an edit_cell on the cell by short id, with the traceback', () => {
  const source = fixSource(CELL, TRACEBACK);
  assert.ok(
    source.startsWith('%%dsh\nFix the error in cell 1a2b3c4d (edit it with edit_cell; I will review the diff).\n'),
    source
  );
  assert.ok(source.includes('```\nZeroDivisionError  Traceback\nCell In[7], line 1\nZeroDivisionError: division by zero\n```'));
});

test('escapeReferences doubles interpolation references only', () => {
  assert.equal(escapeReferences('{df} {In[3]} {a.b}'), '{{df}} {{In[3]}} {{a.b}}');
  assert.equal(escapeReferences('\\frac{a}{b} x_{i} ${x} {{y}} {1, 2} { x }'), '\\frac{a}{b} x_{i} ${x} {{y}} {1, 2} { x }');
});

test('settled transcripts are recognized by their marker; tool code is not the answer', () => {
  assert.ok(isRunTranscript({ dsh_notebook: { run: true, model_id: 'm' } }, { 'text/markdown': 'x' }));
  assert.ok(!isRunTranscript({}, { 'text/markdown': 'x' }));
  assert.ok(!isRunTranscript({ dsh_notebook: { run: true } }, { 'application/vnd.jupyter.widget-view+json': {} }));
  assert.ok(isToolHeading('Tool run_python · done'));
  assert.ok(isToolHeading('Approval for run_python: allowed once'));
  assert.ok(!isToolHeading(null));
  assert.ok(!isToolHeading('Here is the code'));
});
