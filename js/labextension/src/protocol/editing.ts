/**
 * Reading the kernel's editing requests (`docs/cell-editing.md`): `apply_change` (one approved
 * change: `edit` / `insert` / `delete`), `run_cells` and `undo_changes` (a run's ledger, newest
 * first). Their shapes: `kernel.ts`; the page's replies: `page.ts`.
 *
 * Guarantees: never throws; anything malformed or over `MAX_CELL_SOURCE`, `MAX_RUN_CELLS`,
 * `MAX_RUN_TIMEOUT` or `MAX_UNDO_CHANGES` is refused whole (`null`).
 */

import { isInteger, isRecord, isSource, isText } from './checks';
import { MAX_RUN_CELLS, MAX_RUN_TIMEOUT, MAX_UNDO_CHANGES } from './constants';
import type { Change, IApplyChange, ICellEdit, IChangeOrigin, IRunCells, IUndoChanges, UndoEntry } from './kernel';

function parseOrigin(raw: unknown): IChangeOrigin | null {
  if (!isRecord(raw) || !isText(raw.session, false) || !isText(raw.run, false) || !isText(raw.call, false)) {
    return null;
  }
  const origin: IChangeOrigin = { session: raw.session, run: raw.run, call: raw.call };
  if (isText(raw.anchor, false)) {
    origin.anchor = raw.anchor;
  }
  return origin;
}

function parseCellEdit(raw: Record<string, unknown>): ICellEdit | null {
  const { cell_id, before, after } = raw;
  return isText(cell_id, false) && isSource(before) && isSource(after) ? { kind: 'edit', cell_id, before, after } : null;
}

function parseChange(raw: unknown): Change | null {
  if (!isRecord(raw)) {
    return null;
  }
  if (raw.kind === 'edit') {
    return parseCellEdit(raw);
  }
  if (raw.kind === 'insert') {
    const { after_cell_id, cell_type, source } = raw;
    const type = cell_type === undefined ? 'code' : cell_type;
    if (!isText(after_cell_id, false) || !isSource(source) || (type !== 'code' && type !== 'markdown')) {
      return null;
    }
    return { kind: 'insert', after_cell_id, cell_type: type, source };
  }
  if (raw.kind === 'delete') {
    const { cell_id, before } = raw;
    return isText(cell_id, false) && isSource(before) ? { kind: 'delete', cell_id, before } : null;
  }
  return null;
}

export function parseApplyChange(data: Record<string, unknown>): IApplyChange | null {
  const origin = parseOrigin(data.origin);
  const change = parseChange(data.change);
  if (!isText(data.request_id, false) || origin === null || change === null) {
    return null;
  }
  const message: IApplyChange = { v: 1, type: 'apply_change', request_id: data.request_id, origin, change };
  if (data.record === false) {
    message.record = false;
  }
  return message;
}

export function parseRunCells(data: Record<string, unknown>): IRunCells | null {
  const { request_id, cell_ids, timeout_s } = data;
  const origin = parseOrigin(data.origin);
  if (!isText(request_id, false) || origin === null || !Array.isArray(cell_ids)) {
    return null;
  }
  if (cell_ids.length < 1 || cell_ids.length > MAX_RUN_CELLS || !cell_ids.every(id => isText(id, false))) {
    return null;
  }
  const timeout = timeout_s === undefined ? 60 : timeout_s;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 1 || timeout > MAX_RUN_TIMEOUT) {
    return null;
  }
  return { v: 1, type: 'run_cells', request_id, cell_ids: [...(cell_ids as string[])], timeout_s: timeout, origin };
}

function parseUndoEntry(raw: unknown): UndoEntry | null {
  if (!isRecord(raw)) {
    return null;
  }
  if (raw.kind === 'edit') {
    return parseCellEdit(raw);
  }
  if (raw.kind === 'insert') {
    const { cell_id, source } = raw;
    return isText(cell_id, false) && isSource(source) ? { kind: 'insert', cell_id, source } : null;
  }
  if (raw.kind === 'agent_cell') {
    const { run, call, source } = raw;
    if (!isText(run, false) || !isInteger(call) || !isSource(source)) {
      return null;
    }
    return { kind: 'agent_cell', run, call, source };
  }
  if (raw.kind === 'delete') {
    const { cell, after_cell_id, index } = raw;
    if (!isRecord(cell) || !isText(cell.id, false) || !isSource(cell.source)) {
      return null;
    }
    const type = cell.cell_type;
    if (type !== 'code' && type !== 'markdown' && type !== 'raw') {
      return null;
    }
    if (!(after_cell_id === null || after_cell_id === undefined || isText(after_cell_id, false))) {
      return null;
    }
    if (!isInteger(index) || index < 0) {
      return null;
    }
    return {
      kind: 'delete',
      cell: { cell_type: type, source: cell.source, id: cell.id },
      after_cell_id: after_cell_id ?? null,
      index
    };
  }
  return null;
}

export function parseUndoChanges(data: Record<string, unknown>): IUndoChanges | null {
  const { request_id, run, changes } = data;
  // `run` is '' (and `changes` []) when the kernel has nothing to undo
  if (!isText(request_id, false) || !isText(run) || !Array.isArray(changes)) {
    return null;
  }
  if (changes.length > MAX_UNDO_CHANGES) {
    return null;
  }
  const parsed = changes.map(parseUndoEntry);
  if (parsed.some(c => c === null)) {
    return null;
  }
  return { v: 1, type: 'undo_changes', request_id, run, changes: parsed as UndoEntry[] };
}
