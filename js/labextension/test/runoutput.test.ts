// The dsh run outputs in notebook JSON (runoutput.ts) and the run_output message (protocol/parse.ts).
import assert from 'node:assert/strict';
import { test } from 'vitest';

import { CAPABILITIES, MAX_BUNDLE_TEXT } from '../src/protocol/constants';
import { parseKernelMessage } from '../src/protocol/parse';
import {
  IOutputJSON,
  NOTHING_SAVED,
  SAVED_LIVE_NOTE,
  WIDGET_MIME,
  interruptedOutput,
  isPromptSource,
  RESTARTED_EMPTY,
  RESTARTED_NOTE,
  restartedOutput,
  isRunWidget,
  notebookForSave,
  showsRun,
  staticRunOutput,
  widgetModelId,
  widgetRunOutput
} from '../src/runoutput';

const bundle = { 'text/markdown': '**slow1**', 'text/plain': 'slow1' };
const message = { v: 1, type: 'run_output', model_id: 'm1', cell_id: 'c1', state: 'live', bundle };

function widget(modelId: string, run = true): IOutputJSON {
  return {
    output_type: 'display_data',
    data: { [WIDGET_MIME]: { version_major: 2, version_minor: 1, model_id: modelId }, 'text/plain': 'RunWidget(...)' },
    metadata: run ? { dsh_notebook: { run: true, model_id: modelId } } : {}
  };
}

test('run_output parses; malformed is ignored', () => {
  assert.ok(CAPABILITIES.includes('run_output'));
  assert.deepEqual(parseKernelMessage(message), message);
  assert.deepEqual(parseKernelMessage({ ...message, state: 'settled', cell_id: null }), {
    ...message,
    state: 'settled',
    cell_id: null
  });
  for (const bad of [
    { ...message, state: 'done' },
    { ...message, model_id: '' },
    { ...message, cell_id: '' },
    { ...message, cell_id: 3 },
    { ...message, bundle: null },
    { ...message, bundle: { 'text/plain': 'x' } },
    { ...message, bundle: { ...bundle, 'text/plain': 'x'.repeat(MAX_BUNDLE_TEXT + 1) } },
    { ...message, v: 2 }
  ]) {
    assert.equal(parseKernelMessage(bad), null, JSON.stringify(bad).slice(0, 200));
  }
});

test('a save adds the latest live transcript to live run widgets only', () => {
  const nb = {
    cells: [
      { cell_type: 'code', id: 'c1', outputs: [widget('m1'), widget('other', false)] },
      { cell_type: 'markdown', id: 'c2', source: 'x' },
      { cell_type: 'code', id: 'c3', outputs: [widget('m2')] }
    ],
    metadata: {}
  };
  assert.equal(notebookForSave(nb, new Map()), nb);
  const saved = notebookForSave(nb, new Map([['m1', bundle]]));
  assert.notEqual(saved, nb);
  const out = saved.cells[0]?.outputs?.[0] as IOutputJSON;
  assert.equal(out.data?.['text/markdown'], `*${SAVED_LIVE_NOTE}*\n\n**slow1**`);
  assert.equal(out.data?.['text/plain'], `${SAVED_LIVE_NOTE}\n\nslow1`);
  assert.ok(isRunWidget(out), 'still the widget');
  assert.equal(saved.cells[0]?.outputs?.[1], nb.cells[0]?.outputs?.[1]); // not a dsh run
  assert.equal(saved.cells[2], nb.cells[2]); // no live transcript for m2
  assert.equal((nb.cells[0]?.outputs?.[0] as IOutputJSON).data?.['text/markdown'], undefined); // a copy
});

test('a run widget whose model is gone reads interrupted, never model not found', () => {
  const saved = notebookForSave({ cells: [{ outputs: [widget('m1')] }] }, new Map([['m1', bundle]]));
  const stand = interruptedOutput(saved.cells[0]?.outputs[0] as IOutputJSON);
  assert.ok(stand !== null);
  assert.equal(stand.data?.[WIDGET_MIME], undefined);
  assert.ok(String(stand.data?.['text/markdown']).includes(SAVED_LIVE_NOTE));
  assert.ok(String(stand.data?.['text/markdown']).includes('**slow1**'));
  assert.ok(showsRun(stand, 'm1') && !showsRun(stand, 'm2'));
  const nothing = interruptedOutput(widget('m3'));
  assert.equal(nothing?.data?.['text/plain'], NOTHING_SAVED);
  assert.equal(interruptedOutput(widget('m4', false)), null); // not ours: left alone
  const settled = staticRunOutput(bundle, 'm1', false);
  assert.ok(!showsRun(settled, 'm1'), 'a settled transcript is final');
  assert.ok(showsRun(widget('m1'), 'm1'));
});

test('a replayed run_output keeps its flag; anything but true is no replay', () => {
  assert.equal(parseKernelMessage({ ...message, replay: true })?.type, 'run_output');
  assert.equal((parseKernelMessage({ ...message, replay: true }) as { replay?: boolean }).replay, true);
  assert.equal((parseKernelMessage({ ...message, replay: 1 }) as { replay?: boolean }).replay, undefined);
});

test('a restored live widget output is a run widget of that model', () => {
  const output = widgetRunOutput('m9', bundle);
  assert.ok(isRunWidget(output));
  assert.equal(widgetModelId(output), 'm9');
  assert.ok(showsRun(output, 'm9'));
  assert.equal(output.data?.['text/plain'], 'slow1');
});

test('prompt cells are the ones that start with %%dsh', () => {
  assert.ok(isPromptSource('%%dsh\nhi'));
  assert.ok(isPromptSource('  %%dsh -s x\nhi'));
  assert.ok(!isPromptSource('%dsh status'));
  assert.ok(!isPromptSource('%%dshx\nhi'));
  assert.ok(!isPromptSource('print(1)\n%%dsh'));
});

test('a restarted kernel: the widget reads interrupted with what the page had, or says nothing came', () => {
  const had = restartedOutput(widget('m1'), bundle);
  assert.ok(had !== null && String(had.data?.['text/markdown']).startsWith(`*${RESTARTED_NOTE}*`));
  assert.ok(String(had?.data?.['text/plain']).endsWith('slow1'));
  assert.ok(had !== null && showsRun(had, 'm1') && !isRunWidget(had));
  const none = restartedOutput(widget('m1'), undefined);
  assert.equal(none?.data?.['text/plain'], RESTARTED_EMPTY);
  assert.equal(restartedOutput(widget('m1', false), bundle), null);
});
