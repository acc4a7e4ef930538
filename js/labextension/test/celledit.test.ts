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
import {
  IKeptOutputs,
  MAX_CELL_RECORDS,
  MAX_KEPT_OUTPUTS,
  UndoRecord,
  digest,
  newestRecordedRun,
  outputsAfterRevert,
  readRecords,
  undoFromRecords,
  withRecord
} from '../src/undorecord';

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
    this.rows.splice(index, 0, {
      id,
      source: cell.source,
      edited: cell.edited ?? null,
      agent: null,
      records: cell.records ?? [],
      execution_count: cell.outputs?.execution_count ?? null,
      cell_type: cell.cell_type
    });
    this.outs.set(id, [...(cell.outputs?.outputs ?? [])]);
    return id;
  }
  /** Each cell's outputs, by id. */
  outs = new Map<string, unknown[]>();
  outputs(index: number): { execution_count: number | null; outputs: unknown[] } {
    const row = this.rows[index]!;
    return { execution_count: row.execution_count, outputs: [...(this.outs.get(row.id) ?? [])] };
  }
  setOutputs(index: number, kept: IKeptOutputs): void {
    this.inside();
    const row = this.rows[index]!;
    row.execution_count = kept.execution_count;
    this.outs.set(row.id, [...(kept.outputs ?? [])]);
  }
  setRecords(index: number, records: UndoRecord[]): void {
    this.inside();
    this.rows[index]!.records = records;
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
  records: [],
  execution_count: null,
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

// Issue 45 items 3-4: the notebook keeps what undoing a run needs (undorecord.ts)

const failed = [{ output_type: 'error', ename: 'KeyError', evalue: "'regoin'", traceback: [] }];
const fixed = [{ output_type: 'stream', name: 'stdout', text: 'north 12\n' }];

test('an applied edit keeps the source, count and outputs from before; undo puts them back', () => {
  const store = new Store([cell(C, '%%dsh\nfix'), cell(B, "df['regoin']", { execution_count: 4 })]);
  store.outs.set(B, failed);
  assert.equal(applyChange(store, edit("df['regoin']", "df['region']")).status, 'applied');
  assert.equal(store.transactions, 1, 'the edit and its record are one step');
  const [record] = store.rows[1]!.records;
  assert.equal(record?.kind, 'edit');
  assert.ok(record?.kind === 'edit' && record.before === "df['regoin']" && record.run === 'r1' && record.anchor === C);
  assert.ok(record?.kind === 'edit' && record.after === digest("df['region']") && record.execution_count === 4);
  // the agent runs it: the agent version's output and count
  store.transact(() => store.setOutputs(1, { execution_count: 5, outputs: fixed }));
  const message = parseKernelMessage({
    v: 1, type: 'undo_changes', request_id: 'u1', run: 'r1',
    changes: [{ kind: 'edit', cell_id: B, before: "df['regoin']", after: "df['region']" }]
  }) as IUndoChanges;
  assert.equal(undoChanges(store, message).reverted, 1);
  assert.equal(store.rows[1]!.source, "df['regoin']");
  assert.equal(store.rows[1]!.execution_count, 4);
  assert.deepEqual(store.outs.get(B), failed, "the person's code's output, not the agent's");
  assert.deepEqual(store.rows[1]!.records, [], 'undone once: the record is dropped');
});

test('a cell with no outputs before the edit has them cleared; outputs too large to keep: cleared only if it ran since', () => {
  const store = new Store([cell(C, '%%dsh'), cell(B, 'x = 1'), cell(A, 'big = 1', { execution_count: 2 })]);
  store.outs.set(A, [{ output_type: 'stream', name: 'stdout', text: 'y'.repeat(MAX_KEPT_OUTPUTS + 10) }]);
  applyChange(store, edit('x = 1', 'x = 2'));
  applyChange(store, { ...edit('big = 1', 'big = 2', A), origin: { ...origin, call: 'call_2' } });
  assert.ok(store.rows[2]!.records[0]?.kind === 'edit' && store.rows[2]!.records[0].outputs === null);
  store.transact(() => {
    store.setOutputs(1, { execution_count: 3, outputs: fixed });
    store.setOutputs(2, { execution_count: 4, outputs: fixed });
  });
  const request = undoFromRecords(store.cells(), 'r1');
  assert.deepEqual(request.changes.map(c => c.kind === 'edit' && c.cell_id), [A, B], 'newest first');
  undoChanges(store, request);
  assert.deepEqual([store.rows[1]!.source, store.rows[1]!.execution_count, store.outs.get(B)], ['x = 1', null, []]);
  assert.deepEqual([store.rows[2]!.source, store.rows[2]!.execution_count, store.outs.get(A)], ['big = 1', null, []]);
  // not run since: what the cell shows is still the person's, and stays
  assert.equal(outputsAfterRevert({ execution_count: 2, outputs: null }, { execution_count: 2 }), null);
});

test('without the kernel, the records alone revert a run: edits, inserts, deletes; a cell the person changed is skipped', () => {
  const D = 'dddddddd000000000000000000000000';
  const store = new Store([cell(C, '%%dsh\ntidy'), cell(A, 'a = 1'), cell(B, 'b = 2'), cell(D, 'scratch = 0', { execution_count: 7 })]);
  store.outs.set(D, fixed);
  const call = (n: number): typeof origin => ({ ...origin, call: `call_${n}` });
  applyChange(store, { ...edit('a = 1', 'a = 10', A), origin: call(1) });
  applyChange(store, { ...edit('b = 2', 'b = 20', B), origin: call(2) });
  const ins = { v: 1, type: 'apply_change', request_id: 'c3', origin: call(3), change: { kind: 'insert', after_cell_id: B, source: 'c = 3' } };
  applyChange(store, parseKernelMessage(ins) as IApplyChange);
  const del = { v: 1, type: 'apply_change', request_id: 'c4', origin: call(4), change: { kind: 'delete', cell_id: D, before: 'scratch = 0' } };
  applyChange(store, parseKernelMessage(del) as IApplyChange);
  assert.deepEqual(store.rows.map(r => r.source), ['%%dsh\ntidy', 'a = 10', 'b = 20', 'c = 3']);
  assert.ok(store.rows[0]!.records.some(r => r.kind === 'delete' && r.cell.id === D), 'the deleted cell is kept on the %%dsh cell');
  // a reload: only what is in the metadata is left (a JSON round trip of it)
  for (const row of store.rows) {
    row.records = readRecords(JSON.parse(JSON.stringify({ undo: row.records })));
  }
  store.rows[2]!.source = 'b = 20  # mine';
  const reply = undoChanges(store, undoFromRecords(store.cells(), 'r1'));
  assert.equal(reply.reverted, 3);
  assert.deepEqual(reply.skipped.map(s => [s.cell_id, s.reason]), [[B, "changed since the agent's edit"]]);
  assert.deepEqual(store.rows.map(r => r.source), ['%%dsh\ntidy', 'a = 1', 'b = 20  # mine', 'scratch = 0']);
  assert.equal(store.rows[3]!.id, D);
  assert.deepEqual([store.rows[3]!.execution_count, store.outs.get(D)], [7, fixed], 'the deleted cell comes back with its outputs');
  assert.ok(store.rows.every(r => r.records.length === 0), 'undone once');
  assert.deepEqual(undoFromRecords(store.cells(), 'r1').changes, []);
});

test('records read back strictly and stay bounded', () => {
  assert.deepEqual(readRecords({ undo: [{ kind: 'edit', run: 'r', call: 'c', at: 1 }, 'x', null] }), []);
  assert.deepEqual(readRecords(null), []);
  const rec: UndoRecord = { kind: 'insert', run: 'r', call: 'c', at: 1, after: digest('x') };
  let many: UndoRecord[] = [];
  for (let i = 0; i < 20; i++) {
    many = withRecord(many, { ...rec, at: i });
  }
  assert.equal(many.length, MAX_CELL_RECORDS);
  assert.equal(many[0]?.at, 20 - MAX_CELL_RECORDS);
  assert.notEqual(digest('a = 1'), digest('a = 2'));
  assert.equal(newestRecordedRun([{ id: A, records: [{ ...rec, anchor: C, run: 'r0', at: 1 }, { ...rec, anchor: C, run: 'r2', at: 5 }] }], C), 'r2');
});

test('a source the kernel masks is kept nowhere in the notebook: the record holds its digest only, and only the kernel can revert it', () => {
  const SECRET = 'token = "ghp_' + 'x'.repeat(36) + '"';
  const store = new Store([cell(C, '%%dsh\nclean up'), cell(B, SECRET, { execution_count: 3 }), cell(A, 'keep = 1')]);
  store.outs.set(B, [{ output_type: 'stream', name: 'stdout', text: SECRET }]);
  const request = parseKernelMessage({
    v: 1, type: 'apply_change', request_id: 'c1', origin, record: false,
    change: { kind: 'edit', cell_id: B, before: SECRET, after: 'token = os.environ["TOKEN"]' }
  }) as IApplyChange;
  assert.equal(request.record, false, 'the flag is read');
  assert.equal(applyChange(store, request).status, 'applied');
  const del = parseKernelMessage({
    v: 1, type: 'apply_change', request_id: 'c2', origin: { ...origin, call: 'call_2' }, record: false,
    change: { kind: 'delete', cell_id: A, before: 'keep = 1' }
  }) as IApplyChange;
  assert.equal(applyChange(store, del).status, 'applied');
  const saved = JSON.stringify(store.rows.map(r => r.records));
  assert.ok(!saved.includes('ghp_'), `no copy of the source or its outputs: ${saved}`);
  assert.ok(!saved.includes('keep = 1'), 'a deleted cell is not kept either');
  const [record] = store.rows[1]!.records;
  assert.ok(record?.kind === 'edit' && record.withheld === true && record.before === digest(SECRET));
  assert.deepEqual(readRecords(JSON.parse(JSON.stringify({ undo: store.rows[1]!.records }))), store.rows[1]!.records);
  // without the kernel: nothing to rebuild it from
  assert.deepEqual(undoFromRecords(store.cells(), 'r1').changes, []);
  // with the kernel's entry: reverted; it ran since, so the agent version's output is cleared
  store.transact(() => store.setOutputs(1, { execution_count: 4, outputs: fixed }));
  const undo = parseKernelMessage({
    v: 1, type: 'undo_changes', request_id: 'u1', run: 'r1',
    changes: [{ kind: 'edit', cell_id: B, before: SECRET, after: 'token = os.environ["TOKEN"]' }]
  }) as IUndoChanges;
  assert.equal(undoChanges(store, undo).reverted, 1);
  assert.deepEqual([store.rows[1]!.source, store.rows[1]!.execution_count, store.outs.get(B)], [SECRET, null, []]);
});
