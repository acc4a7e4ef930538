/**
 * Applying the kernel's approved changes to the person's cells, and reverting a run: pure rules
 * over a `ICellStore` (no JupyterLab imports, tested with node; `celledits.ts` is the notebook
 * model's store).
 *
 * `applyChange` re-checks at the moment it runs: the target exists and its source equals
 * `before` (insert: `after_cell_id` exists), else `stale` / `missing` with the current source and
 * nothing changed. Applied inside one `store.transact` (one undoable step), the changed or new cell
 * marked `metadata.dsh_notebook.edited = {session, run, call[, anchor]}`; outputs are left as
 * they are. The same step writes the notebook's own undo record (`undorecord.ts`): an edited cell
 * keeps its source, execution count and outputs from before, an inserted cell the digest of its
 * source, a deleted cell is kept on the run's `%%dsh` cell. Idempotent by `call`: an edit whose cell already carries that call and the `after`
 * source, an insert whose cell with that call exists, answers `applied` again without a change
 * (two pages on one shared model, a re-sent message).
 *
 * `undoChanges` reverts a run's ledger (newest first) in one `store.transact`: an edit only where
 * the source still equals `after`, an insert / agent cell only where its source is unchanged, a
 * delete puts the cell back (same id) after `after_cell_id`, else at `index`. A reverted edit gets
 * the execution count and outputs it had before the edit (from its record; none kept and run
 * since: cleared), a cell put back its kept outputs. Everything else is skipped with the reason;
 * the run's records are dropped from the notebook either way (undone once, like the kernel's
 * ledger). The entries come from the kernel's ledger or, without it, from the records
 * (`undoFromRecords`). Neither function throws for a well-formed message; a store error
 * becomes `failed`.
 */

import { MAX_MESSAGE } from './protocol/constants';
import type { Change, IApplyChange, IChangeOrigin, IUndoChanges, UndoEntry } from './protocol/kernel';
import type { IApplyChangeReply, IUndoReply, IUndoSkipped } from './protocol/page';
import {
  IKeptOutputs,
  UndoRecord,
  digest,
  editRecordOf,
  keepOutputs,
  outputsAfterRevert,
  withRecord,
  withoutRun
} from './undorecord';

/** The `edited` mark in a cell's `metadata.dsh_notebook`. */
export type EditMark = IChangeOrigin;

export interface IStoreCell {
  id: string;
  source: string;
  edited: EditMark | null;
  /** The agent-cell origin (`metadata.dsh_notebook.agent`), when an agent cell. */
  agent: { run: string; call: number } | null;
  /** What the notebook keeps to undo changes of this cell (`metadata.dsh_notebook.undo`, `undorecord.ts`). */
  records: UndoRecord[];
  /** Its execution count (`null`: none, or not a code cell). */
  execution_count: number | null;
  cell_type?: 'code' | 'markdown' | 'raw';
}

export interface INewCell {
  cell_type: 'code' | 'markdown' | 'raw';
  source: string;
  id?: string;
  edited?: EditMark;
  records?: UndoRecord[];
  /** The outputs it comes back with (a deleted cell put back). */
  outputs?: IKeptOutputs;
}

/** The notebook as `applyChange` / `undoChanges` see and change it. */
export interface ICellStore {
  cells(): IStoreCell[];
  /** Everything `f` does is one undoable step. */
  transact(f: () => void): void;
  setSource(index: number, source: string): void;
  /** Inserts at `index`; the new cell's id. */
  insert(index: number, cell: INewCell): string;
  remove(index: number): void;
  /** Sets (or with `null` drops) the `edited` mark. */
  mark(index: number, mark: EditMark | null): void;
  /** The cell's execution count and outputs now (none for a markdown / raw cell). */
  outputs(index: number): { execution_count: number | null; outputs: unknown[] };
  /** Sets a code cell's execution count and outputs (`outputs: null` is taken as none). */
  setOutputs(index: number, kept: IKeptOutputs): void;
  /** Sets (an empty list drops) the cell's undo records. */
  setRecords(index: number, records: UndoRecord[]): void;
}

let lastAt = 0;
/** When a change is recorded: milliseconds, strictly increasing within this page. */
function recordTime(): number {
  lastAt = Math.max(Date.now(), lastAt + 1);
  return lastAt;
}

function recordBase(origin: IChangeOrigin): { run: string; call: string; anchor?: string; at: number } {
  const base: { run: string; call: string; anchor?: string; at: number } = {
    run: origin.run,
    call: origin.call,
    at: recordTime()
  };
  if (origin.anchor !== undefined) {
    base.anchor = origin.anchor;
  }
  return base;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `edited` mark in a cell's `dsh_notebook` metadata value, or `null`. */
export function editMark(value: unknown): EditMark | null {
  const edited = isRecord(value) ? value.edited : undefined;
  if (!isRecord(edited)) {
    return null;
  }
  const { session, run, call, anchor } = edited;
  if (typeof session !== 'string' || typeof run !== 'string' || typeof call !== 'string') {
    return null;
  }
  return typeof anchor === 'string' ? { session, run, call, anchor } : { session, run, call };
}

/** The index of the cell `id` (a full id, or a prefix matching exactly one cell), or -1. */
export function findCell(cells: readonly IStoreCell[], id: string): number {
  const exact = cells.findIndex(c => c.id === id);
  if (exact >= 0 || id.length === 0) {
    return exact;
  }
  const matches = cells.flatMap((c, i) => (c.id.startsWith(id) ? [i] : []));
  return matches.length === 1 ? (matches[0] ?? -1) : -1;
}

function reply(
  request: IApplyChange,
  status: IApplyChangeReply['status'],
  cells: readonly IStoreCell[],
  index: number,
  message?: string
): IApplyChangeReply {
  const cell = index >= 0 ? cells[index] : undefined;
  const out: IApplyChangeReply = {
    v: 1,
    type: 'apply_change_reply',
    request_id: request.request_id,
    status,
    cell_id: cell?.id ?? null,
    index: cell === undefined ? null : index,
    source: cell?.source ?? null
  };
  if (message !== undefined) {
    out.message = message.slice(0, MAX_MESSAGE);
  }
  return out;
}

function sameCall(mark: EditMark | null, origin: IChangeOrigin): boolean {
  return mark !== null && mark.run === origin.run && mark.call === origin.call;
}

/** The id of the cell `change` targets (insert: the new cell, once applied), for highlighting. */
export function changeTarget(change: Change): string {
  return change.kind === 'insert' ? change.after_cell_id : change.cell_id;
}

/** Apply one approved change; the reply to send (see the module docstring). */
export function applyChange(store: ICellStore, request: IApplyChange): IApplyChangeReply {
  const { change, origin } = request;
  try {
    const cells = store.cells();
    if (change.kind === 'insert') {
      const done = cells.findIndex(c => sameCall(c.edited, origin));
      if (done >= 0) {
        return reply(request, 'applied', cells, done);
      }
      const after = findCell(cells, change.after_cell_id);
      if (after < 0) {
        return reply(request, 'missing', cells, -1);
      }
      let id = '';
      store.transact(() => {
        id = store.insert(after + 1, {
          cell_type: change.cell_type,
          source: change.source,
          edited: { ...origin },
          records: [{ kind: 'insert', ...recordBase(origin), after: digest(change.source) }]
        });
      });
      const now = store.cells();
      return reply(request, 'applied', now, now.findIndex(c => c.id === id));
    }
    const index = findCell(cells, change.cell_id);
    const cell = cells[index];
    if (cell === undefined) {
      return reply(request, 'missing', cells, -1);
    }
    if (change.kind === 'edit') {
      if (sameCall(cell.edited, origin) && cell.source === change.after) {
        return reply(request, 'applied', cells, index);
      }
      if (cell.source !== change.before) {
        return reply(request, 'stale', cells, index);
      }
      const kept = store.outputs(index);
      store.transact(() => {
        const record: UndoRecord =
          request.record === false
            ? { kind: 'edit', ...recordBase(origin), before: digest(change.before), after: digest(change.after),
                execution_count: kept.execution_count, outputs: null, withheld: true }
            : { kind: 'edit', ...recordBase(origin), before: change.before, after: digest(change.after),
                ...keepOutputs(kept.execution_count, kept.outputs) };
        store.setRecords(index, withRecord(cell.records, record));
        store.setSource(index, change.after);
        store.mark(index, { ...origin });
      });
      return reply(request, 'applied', store.cells(), index);
    }
    if (cell.source !== change.before) {
      return reply(request, 'stale', cells, index);
    }
    const gone = { ...reply(request, 'applied', cells, index), source: null };
    const kept = store.outputs(index);
    const anchor = origin.anchor === undefined ? -1 : cells.findIndex(c => c.id === origin.anchor);
    store.transact(() => {
      if (anchor >= 0 && anchor !== index && request.record !== false) {
        // the deleted cell is kept on the run's %%dsh cell, to be put back without the kernel
        const record: UndoRecord = {
          kind: 'delete',
          ...recordBase(origin),
          cell: { id: cell.id, cell_type: cell.cell_type ?? 'code', source: cell.source },
          after_cell_id: cells[index - 1]?.id ?? null,
          index,
          ...keepOutputs(kept.execution_count, kept.outputs)
        };
        store.setRecords(anchor, withRecord(cells[anchor]?.records ?? [], record));
      }
      store.remove(index);
    });
    return gone;
  } catch (error) {
    return reply(request, 'failed', [], -1, `the page could not apply the change: ${String(error)}`);
  }
}

function revert(store: ICellStore, entry: UndoEntry, run: string): IUndoSkipped | null {
  const cells = store.cells();
  if (entry.kind === 'edit') {
    const index = cells.findIndex(c => c.id === entry.cell_id);
    const cell = cells[index];
    if (cell === undefined) {
      return { cell_id: entry.cell_id, reason: 'the cell is gone' };
    }
    if (cell.source !== entry.after) {
      return { cell_id: entry.cell_id, reason: "changed since the agent's edit" };
    }
    store.setSource(index, entry.before);
    store.mark(index, null);
    // the outputs of the code the cell holds again, never the agent version's under it
    const record = editRecordOf(cell.records, run, entry.before);
    const outputs = record === null ? null : outputsAfterRevert(record, cell);
    if (outputs !== null) {
      store.setOutputs(index, outputs);
    }
    return null;
  }
  if (entry.kind === 'insert' || entry.kind === 'agent_cell') {
    const index =
      entry.kind === 'insert'
        ? cells.findIndex(c => c.id === entry.cell_id)
        : cells.findIndex(c => c.agent?.run === entry.run && c.agent.call === entry.call);
    const cell = cells[index];
    const id = entry.kind === 'insert' ? entry.cell_id : `${entry.run} call ${entry.call}`;
    if (cell === undefined) {
      return { cell_id: id, reason: 'the cell is gone already' };
    }
    if (cell.source !== entry.source) {
      return { cell_id: cell.id, reason: 'changed since the agent wrote it' };
    }
    store.remove(index);
    return null;
  }
  if (cells.some(c => c.id === entry.cell.id)) {
    return { cell_id: entry.cell.id, reason: 'the cell is in the notebook already' };
  }
  const after = entry.after_cell_id === null ? -1 : cells.findIndex(c => c.id === entry.after_cell_id);
  const index = after >= 0 ? after + 1 : Math.min(entry.index, cells.length);
  const kept = cells
    .flatMap(c => c.records)
    .find(r => r.kind === 'delete' && r.run === run && r.cell.id === entry.cell.id);
  const back: INewCell = { cell_type: entry.cell.cell_type, source: entry.cell.source, id: entry.cell.id };
  if (kept?.kind === 'delete' && kept.outputs !== null) {
    back.outputs = { execution_count: kept.execution_count, outputs: kept.outputs };
  }
  store.insert(index, back);
  return null;
}

/** Revert a run's changes as one step; the reply to send (see the module docstring). */
export function undoChanges(store: ICellStore, request: IUndoChanges): IUndoReply {
  const skipped: IUndoSkipped[] = [];
  let reverted = 0;
  store.transact(() => {
    for (const entry of request.changes) {
      let skip: IUndoSkipped | null;
      try {
        skip = revert(store, entry, request.run);
      } catch (error) {
        skip = { cell_id: entry.kind === 'delete' ? entry.cell.id : 'cell_id' in entry ? entry.cell_id : entry.run, reason: `failed: ${String(error)}`.slice(0, 200) };
      }
      if (skip === null) {
        reverted += 1;
      } else {
        skipped.push(skip);
      }
    }
    // the run is undone: the notebook keeps nothing of it to undo again
    if (request.run !== '') {
      store.cells().forEach((cell, index) => {
        if (cell.records.some(r => r.run === request.run)) {
          store.setRecords(index, withoutRun(cell.records, request.run));
        }
      });
    }
  });
  return { v: 1, type: 'undo_reply', request_id: request.request_id, reverted, skipped };
}

/** "2 changes reverted, 1 skipped (cell 1a2b3c4d changed since the agent's edit)". */
export function undoSummary(reply: Pick<IUndoReply, 'reverted' | 'skipped'>): string {
  const n = reply.reverted;
  const head = `${n} change${n === 1 ? '' : 's'} reverted`;
  if (reply.skipped.length === 0) {
    return head;
  }
  const why = reply.skipped.map(s => `cell ${s.cell_id.slice(0, 8)} ${s.reason}`).join('; ');
  return `${head}, ${reply.skipped.length} skipped (${why})`;
}
