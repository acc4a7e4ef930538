// Agent cells: the insert_cell message (protocol/agentoutput.ts) and placement/removal (agentcell.ts).
import assert from 'node:assert/strict';
import { test } from 'vitest';

import { AGENT_TAG, CAPABILITIES } from '../src/protocol/constants';
import type { IInsertCell } from '../src/protocol/kernel';
import { parseKernelMessage } from '../src/protocol/parse';
import { ICellInfo, agentCellJSON, agentOrigin, insertionIndex, newestRunCells } from '../src/agentcell';

const message = {
  v: 1,
  type: 'insert_cell',
  anchor: 'dsh',
  session: 'nb-1',
  run: 'r1',
  call: 1,
  source: '# dsh agent: ...\nx = 1',
  outputs: [
    { output_type: 'stream', name: 'stdout', text: ['a\n', 'b\n'] },
    { output_type: 'execute_result', execution_count: null, data: { 'text/plain': '1' }, metadata: {} },
    { output_type: 'display_data', data: { 'image/png': 'iVBO' }, metadata: { 'image/png': { width: 10 } } },
    { output_type: 'error', ename: 'E', evalue: 'v', traceback: ['Traceback', 'E: v'] }
  ]
};

test('insert_cell parses (multiline text joined) and is announced', () => {
  assert.ok(CAPABILITIES.includes('insert_cell'));
  const parsed = parseKernelMessage(message) as IInsertCell;
  assert.equal(parsed.type, 'insert_cell');
  assert.deepEqual(parsed.outputs[0], { output_type: 'stream', name: 'stdout', text: 'a\nb\n' });
  assert.equal(parsed.outputs.length, 4);
});

test('insert_cell with HTML, a script or a bad field is refused whole', () => {
  const html = { output_type: 'display_data', data: { 'text/html': '<img src=x onerror=alert(1)>' }, metadata: {} };
  const js = { output_type: 'display_data', data: { 'application/javascript': 'alert(1)' }, metadata: {} };
  for (const bad of [
    { ...message, outputs: [html] },
    { ...message, outputs: [js] },
    { ...message, call: 0 },
    { ...message, anchor: '' },
    { ...message, source: 7 },
    { ...message, outputs: [{ output_type: 'stream', name: 'other', text: 'x' }] },
    { ...message, v: 2 }
  ]) {
    assert.equal(parseKernelMessage(bad), null, JSON.stringify(bad).slice(0, 80));
  }
});

const agent = (run: string, call: number, anchor = 'dsh'): ICellInfo['agent'] => ({ session: 's', run, call, anchor });

test('placement: below the anchor, after its agent cells, once', () => {
  const parsed = parseKernelMessage(message) as IInsertCell;
  const cells: ICellInfo[] = [
    { id: 'a', agent: null },
    { id: 'dsh', agent: null },
    { id: 'next', agent: null }
  ];
  assert.equal(insertionIndex(cells, parsed), 2);
  const withOne: ICellInfo[] = [cells[0]!, cells[1]!, { id: 'x1', agent: agent('r0', 1) }, cells[2]!];
  assert.equal(insertionIndex(withOne, parsed), 3);
  const already: ICellInfo[] = [...withOne, { id: 'x2', agent: agent('r1', 1) }];
  assert.equal(insertionIndex(already, parsed), -1);
  assert.equal(insertionIndex([{ id: 'other', agent: null }], parsed), null);
});

test('the cell JSON: tag, origin metadata, not executed', () => {
  const cell = agentCellJSON(parseKernelMessage(message) as IInsertCell);
  assert.equal(cell.cell_type, 'code');
  assert.equal(cell.execution_count, null);
  assert.deepEqual(cell.metadata.tags, [AGENT_TAG]);
  assert.deepEqual(agentOrigin(cell.metadata.dsh_notebook), { session: 'nb-1', run: 'r1', call: 1, anchor: 'dsh' });
  assert.equal(cell.source, message.source);
  assert.equal(agentOrigin({ agent: { run: 'r', call: 'x' } }), null);
});

test('removal takes the newest run of the anchor only', () => {
  const cells: ICellInfo[] = [
    { id: 'dsh', agent: null },
    { id: 'o1', agent: agent('r0', 1) },
    { id: 'n1', agent: agent('r1', 1) },
    { id: 'n2', agent: agent('r1', 2) },
    { id: 'z', agent: agent('r9', 1, 'elsewhere') }
  ];
  assert.deepEqual(newestRunCells(cells, 'dsh'), { run: 'r1', indices: [3, 2] });
  assert.deepEqual(newestRunCells(cells, 'nothing'), { run: null, indices: [] });
});
