// Insert below / Ask dsh rules (insertions.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  askSource,
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

test('Ask dsh refers to the execution by In[n] and Err[n], as a %%dsh cell', () => {
  const source = askSource(7);
  assert.ok(source.startsWith('%%dsh\n'));
  assert.ok(source.includes('\n{In[7]}\n'));
  assert.ok(source.includes('\n{Err[7]}\n'));
  assert.ok(isDshCell(source));
  assert.ok(isDshCell('\n  %%dsh --wait\nhi'));
  assert.ok(!isDshCell('1/0'));
  assert.ok(!isDshCell('%%dshx'));
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
