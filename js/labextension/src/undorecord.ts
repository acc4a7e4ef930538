/**
 * What the notebook itself keeps to undo a run's cell changes: `metadata.dsh_notebook.undo`, a
 * list of records on the cells a run changed (pure rules, no JupyterLab imports, tested with
 * node; `celledit.ts` writes and reads them, `agentcells.ts` undoes from them).
 *
 * The kernel's undo ledger lives in the kernel's memory: a reload keeps it, a kernel restart
 * empties it. These records are saved with the notebook, so after a restart (or with no kernel)
 * "Undo this run" still reverts the run's cell changes from the notebook alone, and the saved
 * notebook shows which run wrote or edited which cell (`run`, `call`, `anchor`: the `%%dsh` cell).
 *
 * Records:
 * - `edit`, on the edited cell: the source before, a digest of the agent's source (the revert
 *   happens only where the cell still holds it), and the cell's execution count and outputs
 *   before the edit, so a reverted cell gets back the outputs of the code it holds again (never
 *   the agent version's output under the person's code);
 * - `insert`, on the inserted cell: the digest of the source it was inserted with;
 * - `delete`, on the run's `%%dsh` cell: the deleted cell (id, type, source, count, outputs), the
 *   id of the cell above it and its index.
 *
 * Bounds: at most `MAX_CELL_RECORDS` records a cell (oldest dropped), kept outputs at most
 * `MAX_KEPT_OUTPUTS` characters of JSON a record (more: not kept, `outputs: null`; a reverted
 * cell that ran since then has its outputs cleared, as nothing truthful is left to show).
 * What is kept is what the notebook already held before the change (the person's source and
 * outputs) — nothing the agent or the kernel produced — and none of it where the kernel's
 * `apply_change` says `record: false` (the source holds what its masking policy masks): then an
 * `edit` record keeps `digest(before)`, no outputs, and `withheld: true` (only the kernel can
 * revert it), and a deleted cell is not kept.
 *
 * Guarantees: `readRecords` never throws and drops anything malformed; writers never grow a
 * cell's records past the bounds.
 */

import type { IUndoChanges, UndoEntry } from './protocol/kernel';

export const UNDO_KEY = 'undo';
export const MAX_CELL_RECORDS = 8;
export const MAX_KEPT_OUTPUTS = 65536;

/** A cell's execution count and nbformat outputs; `outputs: null` when they were too large to keep. */
export interface IKeptOutputs {
  execution_count: number | null;
  outputs: unknown[] | null;
}

interface IRecordBase {
  run: string;
  call: string;
  /** The `%%dsh` cell of the run, when known. */
  anchor?: string;
  /** When the change was applied (ms since the epoch): the order of a run's changes. */
  at: number;
}

export interface IEditRecord extends IRecordBase, IKeptOutputs {
  kind: 'edit';
  /** The source before the edit; `digest(before)` when `withheld`. */
  before: string;
  /**
   * The kernel asked for no copy of the source before (it holds a secret or a private value):
   * `before` is its digest and no outputs are kept, so only the kernel's ledger can revert it.
   */
  withheld?: true;
  /** `digest(after)`: the revert happens only where the cell still holds the agent's source. */
  after: string;
}

export interface IInsertRecord extends IRecordBase {
  kind: 'insert';
  /** `digest(source)` of the inserted cell: it is removed only while it still holds that. */
  after: string;
}

export interface IDeleteRecord extends IRecordBase, IKeptOutputs {
  kind: 'delete';
  cell: { id: string; cell_type: 'code' | 'markdown' | 'raw'; source: string };
  after_cell_id: string | null;
  index: number;
}

export type UndoRecord = IEditRecord | IInsertRecord | IDeleteRecord;

/** A short, stable digest of a source (53-bit FNV-like; not a secret, only a sameness check). */
export function digest(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** `outputs` as kept in a record: a copy, or `null` when their JSON is over `MAX_KEPT_OUTPUTS`. */
export function keepOutputs(execution_count: number | null, outputs: readonly unknown[]): IKeptOutputs {
  let text: string;
  try {
    text = JSON.stringify(outputs);
  } catch {
    return { execution_count, outputs: null };
  }
  if (text.length > MAX_KEPT_OUTPUTS) {
    return { execution_count, outputs: null };
  }
  return { execution_count, outputs: JSON.parse(text) as unknown[] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number | null {
  return value === null || (typeof value === 'number' && Number.isInteger(value) && value >= 0);
}

function readOne(raw: unknown): UndoRecord | null {
  if (!isRecord(raw)) {
    return null;
  }
  const { kind, run, call, anchor, at } = raw;
  if (typeof run !== 'string' || typeof call !== 'string' || typeof at !== 'number') {
    return null;
  }
  const base: IRecordBase = { run, call, at };
  if (typeof anchor === 'string') {
    base.anchor = anchor;
  }
  const kept = (): IKeptOutputs | null =>
    isCount(raw.execution_count) && (raw.outputs === null || Array.isArray(raw.outputs))
      ? { execution_count: raw.execution_count, outputs: raw.outputs as unknown[] | null }
      : null;
  if (kind === 'edit') {
    const outputs = kept();
    if (typeof raw.before !== 'string' || typeof raw.after !== 'string' || outputs === null) {
      return null;
    }
    const record: IEditRecord = { ...base, kind, before: raw.before, after: raw.after, ...outputs };
    if (raw.withheld === true) {
      record.withheld = true;
    }
    return record;
  }
  if (kind === 'insert') {
    return typeof raw.after === 'string' ? { ...base, kind, after: raw.after } : null;
  }
  if (kind === 'delete') {
    const outputs = kept();
    const { cell, after_cell_id, index } = raw;
    if (outputs === null || !isRecord(cell) || typeof cell.id !== 'string' || typeof cell.source !== 'string') {
      return null;
    }
    const type = cell.cell_type;
    if (type !== 'code' && type !== 'markdown' && type !== 'raw') {
      return null;
    }
    if (!(after_cell_id === null || typeof after_cell_id === 'string') || typeof index !== 'number') {
      return null;
    }
    return {
      ...base,
      kind,
      cell: { id: cell.id, cell_type: type, source: cell.source },
      after_cell_id,
      index: Math.max(0, Math.floor(index)),
      ...outputs
    };
  }
  return null;
}

/** The records in a cell's `dsh_notebook` metadata value (malformed ones dropped), oldest first. */
export function readRecords(meta: unknown): UndoRecord[] {
  const list = isRecord(meta) ? meta[UNDO_KEY] : undefined;
  if (!Array.isArray(list)) {
    return [];
  }
  return list.map(readOne).filter((r): r is UndoRecord => r !== null);
}

/** `records` with `record` added, bounded to the newest `MAX_CELL_RECORDS`. */
export function withRecord(records: readonly UndoRecord[], record: UndoRecord): UndoRecord[] {
  return [...records, record].slice(-MAX_CELL_RECORDS);
}

/** `records` without those of run `run`. */
export function withoutRun(records: readonly UndoRecord[], run: string): UndoRecord[] {
  return records.filter(r => r.run !== run);
}

/** The newest `edit` record of run `run` whose source before is `before` (the kernel's entry). */
export function editRecordOf(records: readonly UndoRecord[], run: string, before: string): IEditRecord | null {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r?.kind === 'edit' && r.run === run && r.before === (r.withheld ? digest(before) : before)) {
      return r;
    }
  }
  return null;
}

/**
 * The outputs a cell gets when its edit is reverted: those kept before the edit; else, where the
 * cell ran since the edit (its execution count moved), none (the outputs came from code that no
 * longer exists); else `null`: leave them (they are still the person's).
 */
export function outputsAfterRevert(record: IKeptOutputs, now: { execution_count: number | null }): IKeptOutputs | null {
  if (record.outputs !== null) {
    return record;
  }
  if (now.execution_count === record.execution_count) {
    return null;
  }
  return { execution_count: null, outputs: [] };
}

/** One cell as `undoFromRecords` reads it. */
export interface IRecordedCell {
  id: string;
  records: readonly UndoRecord[];
}

/**
 * The newest run recorded with anchor `anchor` (the run of the newest record there), or `null`.
 */
export function newestRecordedRun(cells: readonly IRecordedCell[], anchor: string): string | null {
  let best: UndoRecord | null = null;
  for (const cell of cells) {
    for (const r of cell.records) {
      if (r.anchor === anchor && (best === null || r.at >= best.at)) {
        best = r;
      }
    }
  }
  return best?.run ?? null;
}

/**
 * The `undo_changes` the notebook's records make for run `run`, newest change first (what the
 * kernel would send, built without it). An insert's entry carries the cell's source only where
 * it is still the inserted one (else the source no revert would match, so it is skipped).
 */
export function undoFromRecords(
  cells: readonly (IRecordedCell & { source: string })[],
  run: string,
  request_id = 'notebook'
): IUndoChanges {
  const found: { at: number; entry: UndoEntry }[] = [];
  for (const cell of cells) {
    for (const r of cell.records) {
      if (r.run !== run) {
        continue;
      }
      // the agent's source is kept as a digest: the entry names the cell's source where it is
      // still the agent's, else a text no cell holds (so the revert skips it, "changed since")
      const agents = digest(cell.source) === (r.kind === 'delete' ? '' : r.after);
      const current = agents ? cell.source : `${cell.source}\u0000changed`;
      if (r.kind === 'edit' && r.withheld) {
        continue; // no copy of its source was kept: only the kernel can revert it
      }
      if (r.kind === 'edit') {
        found.push({ at: r.at, entry: { kind: 'edit', cell_id: cell.id, before: r.before, after: current } });
      } else if (r.kind === 'insert') {
        found.push({ at: r.at, entry: { kind: 'insert', cell_id: cell.id, source: current } });
      } else {
        found.push({
          at: r.at,
          entry: { kind: 'delete', cell: { ...r.cell }, after_cell_id: r.after_cell_id, index: r.index }
        });
      }
    }
  }
  found.sort((a, b) => b.at - a.at);
  return { v: 1, type: 'undo_changes', request_id, run, changes: found.map(f => f.entry) };
}
