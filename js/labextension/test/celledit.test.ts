// Editing the person's cells: the messages (protocol/) and the rules (celledit.ts, runcells.ts).
import assert from 'node:assert/strict';
import { test } from 'vitest';

import {
  EditMark,
  ICellStore,
  INewCell,
  IStoreCell,
  applyChange,
  editMark,
  findCell,
  undoChanges,
  undoSummary
} from '../src/celledit';
import { CAPABILITIES } from '../src/protocol/constants';
import type { IApplyChange, IRunCells, IUndoChanges } from '../src/protocol/kernel';
import { helloReply, undoRequest } from '../src/protocol/page';
import { parseKernelMessage } from '../src/protocol/parse';
import { stripAnsi, summarizeOutput, truncationMark } from '../src/cells';
import { IRunTarget, collectRun } from '../src/runcells';

const A = 'aaaaaaaa000000000000000000000000';
const B = 'bbbbbbbb000000000000000000000000';
const C = 'cccccccc000000000000000000000000';
const origin = { session: 's1', run: 'r1', call: 'call_1', anchor: C };

/** An in-memory notebook; counts transactions (each one undoable step). */
class Store implements ICellStore {
  constructor(public rows: IStoreCell[]) {}
  transactions = 0;
  private depth = 0;
  private next = 0;
  cells(): IStoreCell[] {
    return this.rows.map(r => ({ ...r }));
  }
  transact(f: () => void): void {
    if (this.depth === 0) {
      this.transactions += 1;
    }
    this.depth += 1;
    try {
      f();
    } finally {
      this.depth -= 1;
    }
  }
  private inside(): void {
    assert.ok(this.depth > 0, 'changed outside a transaction');
  }
  setSource(index: number, source: string): void {
    this.inside();
    this.rows[index]!.source = source;
  }
  insert(index: number, cell: INewCell): string {
    this.inside();
    const id = cell.id ?? `new${(this.next += 1)}`.padEnd(32, '0');
    this.rows.splice(index, 0, { id, source: cell.source, edited: cell.edited ?? null, agent: null });
    return id;
  }
  remove(index: number): void {
    this.inside();
    this.rows.splice(index, 1);
  }
  mark(index: number, mark: EditMark | null): void {
    this.inside();
    this.rows[index]!.edited = mark;
  }
}

const cell = (id: string, source: string, extra: Partial<IStoreCell> = {}): IStoreCell => ({
  id,
  source,
  edited: null,
  agent: null,
  ...extra
});

const edit = (before: string, after: string, id = B): IApplyChange =>
  parseKernelMessage({
    v: 1,
    type: 'apply_change',
    request_id: 'c1',
    origin,
    change: { kind: 'edit', cell_id: id, before, after }
  }) as IApplyChange;

test('capabilities edit_cells and run_cells are announced', () => {
  assert.ok(CAPABILITIES.includes('edit_cells') && CAPABILITIES.includes('run_cells'));
  assert.ok(helloReply('0.1.0').capabilities.includes('edit_cells'));
  assert.deepEqual(undoRequest(C), { v: 1, type: 'undo_request', anchor: C });
});

test('apply_change, run_cells and undo_changes parse strictly', () => {
  const good = edit('a', 'b');
  assert.equal(good.type, 'apply_change');
  assert.deepEqual(good.origin, origin);
  const insert = { v: 1, type: 'apply_change', request_id: 'c2', origin, change: { kind: 'insert', after_cell_id: A, source: 'x' } };
  assert.deepEqual((parseKernelMessage(insert) as IApplyChange).change, { kind: 'insert', after_cell_id: A, cell_type: 'code', source: 'x' });
  for (const bad of [
    { ...insert, change: { kind: 'insert', after_cell_id: A, source: 'x', cell_type: 'raw' } },
    { ...insert, change: { kind: 'edit', cell_id: A, before: 'a' } },
    { ...insert, change: { kind: 'delete', cell_id: '', before: 'a' } },
    { ...insert, change: { kind: 'move', cell_id: A } },
    { ...insert, origin: { session: 's', run: 'r', call: 3 } },
    { ...insert, request_id: '' },
    { ...insert, v: 2 }
  ]) {
    assert.equal(parseKernelMessage(bad), null, JSON.stringify(bad));
  }
  const run = { v: 1, type: 'run_cells', request_id: 'r1', cell_ids: [A, B], timeout_s: 60, origin };
  assert.equal((parseKernelMessage(run) as IRunCells).timeout_s, 60);
  for (const bad of [
    { ...run, cell_ids: [] },
    { ...run, cell_ids: Array(21).fill(A) },
    { ...run, cell_ids: [A, 3] },
    { ...run, timeout_s: 0 },
    { ...run, timeout_s: 601 },
    { ...run, origin: null }
  ]) {
    assert.equal(parseKernelMessage(bad), null, JSON.stringify(bad));
  }
  const undo = {
    v: 1,
    type: 'undo_changes',
    request_id: 'u1',
    run: 'r1',
    changes: [
      { kind: 'edit', cell_id: A, before: 'a', after: 'b' },
      { kind: 'insert', cell_id: B, source: 's' },
      { kind: 'delete', cell: { cell_type: 'code', source: 'd', id: C }, after_cell_id: null, index: 0 },
      { kind: 'agent_cell', run: 'r1', call: 3, source: 'x' }
    ]
  };
  assert.equal((parseKernelMessage(undo) as IUndoChanges).changes.length, 4);
  const nothing = parseKernelMessage({ ...undo, run: '', changes: [] }) as IUndoChanges;
  assert.deepEqual(nothing.changes, [], 'nothing to undo: an empty run and no changes');
  for (const change of [
    { kind: 'delete', cell: { cell_type: 'code', source: 'd' }, after_cell_id: null, index: 0 },
    { kind: 'delete', cell: { cell_type: 'code', source: 'd', id: C }, after_cell_id: null, index: -1 },
    { kind: 'agent_cell', run: 'r1', call: '3', source: 'x' },
    { kind: 'nope' }
  ]) {
    assert.equal(parseKernelMessage({ ...undo, changes: [change] }), null, JSON.stringify(change));
  }
});

test('an edit applies as one step, marks the cell, and answers applied with the new source', () => {
  const store = new Store([cell(A, 'x = 1'), cell(B, 'y = a + 1')]);
  const reply = applyChange(store, edit('y = a + 1', 'y = b + 1'));
  assert.deepEqual(reply, {
    v: 1,
    type: 'apply_change_reply',
    request_id: 'c1',
    status: 'applied',
    cell_id: B,
    index: 1,
    source: 'y = b + 1'
  });
  assert.equal(store.transactions, 1);
  assert.deepEqual(store.rows[1]!.edited, origin);
  // re-sent (a second page on the shared model): applied again, nothing changed twice
  assert.equal(applyChange(store, edit('y = a + 1', 'y = b + 1')).status, 'applied');
  assert.equal(store.transactions, 1);
  // by short id too
  assert.equal(applyChange(store, { ...edit('x = 1', 'x = 2', 'aaaaaaaa'), origin: { ...origin, call: 'c2' } }).cell_id, A);
});

test('a stale or missing edit changes nothing and answers the current source', () => {
  const store = new Store([cell(B, 'y = a + 2  # typed')]);
  const stale = applyChange(store, edit('y = a + 1', 'y = b + 1'));
  assert.equal(stale.status, 'stale');
  assert.equal(stale.source, 'y = a + 2  # typed');
  assert.equal(applyChange(store, edit('y', 'z', C)).status, 'missing');
  assert.equal(store.transactions, 0);
  assert.equal(store.rows[0]!.edited, null);
});

test('insert below a cell (marked, once per call) and delete (re-checked)', () => {
  const store = new Store([cell(A, 'a'), cell(B, 'b')]);
  const message = {
    v: 1,
    type: 'apply_change',
    request_id: 'c3',
    origin,
    change: { kind: 'insert', after_cell_id: A, cell_type: 'markdown', source: '# notes' }
  };
  const reply = applyChange(store, parseKernelMessage(message) as IApplyChange);
  assert.equal(reply.status, 'applied');
  assert.equal(reply.index, 1);
  assert.equal(store.rows[1]!.source, '# notes');
  assert.deepEqual(store.rows[1]!.edited, origin);
  assert.equal(applyChange(store, parseKernelMessage(message) as IApplyChange).cell_id, reply.cell_id);
  assert.equal(store.rows.length, 3);
  const gone = { ...message, change: { kind: 'insert', after_cell_id: C, source: 'x' }, origin: { ...origin, call: 'c9' } };
  assert.equal(applyChange(store, parseKernelMessage(gone) as IApplyChange).status, 'missing');

  const del = (before: string) =>
    parseKernelMessage({ ...message, change: { kind: 'delete', cell_id: B, before } }) as IApplyChange;
  assert.equal(applyChange(store, del('b changed')).status, 'stale');
  const deleted = applyChange(store, del('b'));
  assert.equal(deleted.status, 'applied');
  assert.equal(deleted.cell_id, B);
  assert.deepEqual(store.rows.map(r => r.id), [A, reply.cell_id]);
});

test('a store failure is answered failed, bounded', () => {
  const store = new Store([cell(B, 'a')]);
  store.setSource = () => {
    throw new Error('x'.repeat(2000));
  };
  const reply = applyChange(store, edit('a', 'b'));
  assert.equal(reply.status, 'failed');
  assert.ok((reply.message ?? '').length <= 500);
});

test('undo reverts a mixed run as one step, skipping what the person changed', () => {
  const D = 'dddddddd000000000000000000000000';
  const store = new Store([
    cell(C, '%%dsh\nfix it'),
    cell(A, 'y = b + 1', { edited: origin }),
    cell('agent000000000000000000000000000', '# dsh agent\nprint(1)', { agent: { run: 'r1', call: 2 } }),
    cell(B, 'new cell  # person typed', { edited: origin }),
    cell(D, 'z = 3', { edited: origin })
  ]);
  const message = parseKernelMessage({
    v: 1,
    type: 'undo_changes',
    request_id: 'u1',
    run: 'r1',
    changes: [
      { kind: 'delete', cell: { cell_type: 'code', source: 'old = 0', id: 'eeeeeeee000000000000000000000000' }, after_cell_id: A, index: 2 },
      { kind: 'agent_cell', run: 'r1', call: 2, source: '# dsh agent\nprint(1)' },
      { kind: 'insert', cell_id: B, source: 'new cell' },
      { kind: 'edit', cell_id: D, before: 'z = 2', after: 'z = 3' },
      { kind: 'edit', cell_id: A, before: 'y = a + 1', after: 'y = b + 1' }
    ]
  }) as IUndoChanges;
  const reply = undoChanges(store, message);
  assert.equal(store.transactions, 1);
  assert.equal(reply.reverted, 4);
  assert.deepEqual(reply.skipped, [{ cell_id: B, reason: 'changed since the agent wrote it' }]);
  assert.deepEqual(
    store.rows.map(r => [r.id.slice(0, 8), r.source, r.edited === null]),
    [
      ['cccccccc', '%%dsh\nfix it', true],
      ['aaaaaaaa', 'y = a + 1', true],
      ['eeeeeeee', 'old = 0', true],
      ['bbbbbbbb', 'new cell  # person typed', false],
      ['dddddddd', 'z = 2', true]
    ]
  );
  assert.equal(undoSummary(reply), "4 changes reverted, 1 skipped (cell bbbbbbbb changed since the agent wrote it)");
  // twice: nothing left to revert, everything skipped with its reason
  const again = undoChanges(store, message);
  assert.equal(again.reverted, 0);
  assert.equal(again.skipped.length, 5);
});

test('edit marks parse from metadata', () => {
  assert.deepEqual(editMark({ edited: origin, agent: {} }), origin);
  assert.equal(editMark({ edited: { session: 's', run: 'r', call: 1 } }), null);
  assert.equal(editMark(null), null);
  assert.equal(findCell([cell(A, ''), cell('aaaaaaaa1', '')], 'aaaaaaaa'), -1, 'ambiguous prefix');
});

const runRequest = (ids: string[], timeout_s = 60): IRunCells =>
  parseKernelMessage({ v: 1, type: 'run_cells', request_id: 'r1', cell_ids: ids, timeout_s, origin }) as IRunCells;

const target = (id: string, index: number, done: Promise<'ok' | 'error' | 'aborted'>, outputs: unknown[] = [], count: number | null = 5): IRunTarget => ({
  id,
  index,
  done,
  snapshot: () => ({ execution_count: count, outputs })
});

test('run_cells: in order, outputs summarized, stops at the first error', async () => {
  const error = {
    output_type: 'error',
    ename: 'ZeroDivisionError',
    evalue: 'division by zero',
    traceback: ['\u001b[0;31mZeroDivisionError\u001b[0m Traceback', 'x'.repeat(5000), '\u001b[0;31mZeroDivisionError\u001b[0m: division by zero']
  };
  const reply = await collectRun(runRequest([A, 'nope', B, C]), [
    target(A, 0, Promise.resolve('ok'), [
      { output_type: 'stream', name: 'stdout', text: ['hello\n'] },
      { output_type: 'execute_result', data: { 'text/plain': '42', 'text/html': '<b>42</b>' }, metadata: {}, execution_count: 5 }
    ]),
    null,
    target(B, 2, Promise.resolve('error'), [error], 6),
    target(C, 3, Promise.resolve('aborted'), [], 7)
  ]);
  assert.deepEqual(
    reply.cells.map(c => [c.cell_id, c.status, c.execution_count]),
    [
      [A, 'ok', 5],
      ['nope', 'missing', null],
      [B, 'error', 6],
      [C, 'not_run', null]
    ]
  );
  assert.deepEqual(reply.cells[0]!.outputs, [
    { output_type: 'stream', text: 'hello\n' },
    { output_type: 'execute_result', mime: ['text/plain', 'text/html'], text: '42' }
  ]);
  const tb = reply.cells[2]!.outputs[0]!.traceback ?? '';
  assert.ok(tb.length <= 2000 && tb.endsWith('ZeroDivisionError: division by zero') && !tb.includes('\u001b'), tb.slice(-80));
});

test('run_cells: a slow cell answers running at timeout_s, without waiting for it', async () => {
  const started = Date.now();
  const never = new Promise<'ok'>(() => undefined);
  const reply = await collectRun(runRequest([A, B], 1), [
    target(A, 0, never, [{ output_type: 'stream', name: 'stdout', text: 'step 1\n' }], null),
    target(B, 1, never)
  ]);
  assert.ok(Date.now() - started < 1800);
  assert.deepEqual(reply.cells.map(c => c.status), ['running', 'running']);
  assert.equal(reply.cells[0]!.outputs[0]!.text, 'step 1\n');
});

test('output summaries: bounded, ANSI stripped, unknown kinds dropped', () => {
  assert.equal(stripAnsi('\u001b[1;32mok\u001b[0m'), 'ok');
  assert.equal(summarizeOutput({ output_type: 'update_display_data' }), null);
  const long = summarizeOutput({ output_type: 'stream', text: 'y'.repeat(9000) })?.text ?? '';
  assert.equal(long.length, 2000);
  // the tail of a stream, after the kernel's own marker, which counts what is left out exactly
  const kept = long.split('\n')[1] ?? '';
  assert.equal(long, `${truncationMark(9000 - kept.length)}\n${kept}`);
  // the traceback only where the run asks for it (a read_notebook_reply has no such key)
  const error = { output_type: 'error', ename: 'E', evalue: 'v', traceback: ['\u001b[1mtb\u001b[0m'] };
  assert.deepEqual(summarizeOutput(error), { output_type: 'error', ename: 'E', evalue: 'v' });
  assert.equal(summarizeOutput(error, true)?.traceback, 'tb');
});
