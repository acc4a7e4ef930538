/**
 * Reading what the kernel sends the page: `parseKernelMessage` hands a comm message by its
 * `type` to exactly one parser (`PARSERS`, one entry per message of `kernel.ts`) and returns
 * what that parser makes of it. The notices' parsers are here; `insert_cell`'s is in
 * `agentoutput.ts`, the editing requests' in `editing.ts`.
 *
 * Guarantee: `parseKernelMessage` never throws; anything that is not a well-formed message of
 * this version (another `v`, an unknown `type`, a wrong or over-long field) gives `null` and is
 * ignored.
 */

import { parseInsertCell } from './agentoutput';
import { isInteger, isRecord, isText } from './checks';
import { MAX_BUNDLE_TEXT, MAX_READ_CELLS, MAX_READ_IDS, PROTOCOL_VERSION } from './constants';
import { parseApplyChange, parseRunCells, parseUndoChanges } from './editing';
import type { IReadNotebook, IRunOutput, IWaiting, IWaitingCell, KernelMessage, KernelMessageOf } from './kernel';

/** The most cells one `waiting` may name. */
const MAX_WAITING_CELLS = 1000;

type Parsers = {
  readonly [T in KernelMessage['type']]: (data: Record<string, unknown>) => KernelMessageOf<T> | null;
};

/** A kernel message's type -> its one parser (given a record with `v` checked). */
const PARSERS: Parsers = {
  hello: data => (isText(data.kernel_version) ? { v: 1, type: 'hello', kernel_version: data.kernel_version } : null),
  waiting: parseWaiting,
  run_output: parseRunOutput,
  insert_cell: parseInsertCell,
  read_notebook: parseReadNotebook,
  apply_change: parseApplyChange,
  run_cells: parseRunCells,
  undo_changes: parseUndoChanges
};

function isKernelType(type: unknown): type is KernelMessage['type'] {
  return typeof type === 'string' && Object.hasOwn(PARSERS, type);
}

/** A comm message from the kernel, or `null` (unknown, other version, malformed). */
export function parseKernelMessage(data: unknown): KernelMessage | null {
  if (!isRecord(data) || data.v !== PROTOCOL_VERSION || !isKernelType(data.type)) {
    return null;
  }
  return PARSERS[data.type](data);
}

function parseWaitingCell(raw: unknown): IWaitingCell | null {
  if (!isRecord(raw) || !isText(raw.cell_id, false) || !isText(raw.label)) {
    return null;
  }
  if (raw.kind !== 'approval' && raw.kind !== 'question') {
    return null;
  }
  const cell: IWaitingCell = { cell_id: raw.cell_id, kind: raw.kind, label: raw.label };
  if (isText(raw.request_id, false)) {
    cell.request_id = raw.request_id;
  }
  return cell;
}

function parseWaiting(data: Record<string, unknown>): IWaiting | null {
  const { count, cells } = data;
  if (!isInteger(count) || count < 0 || !Array.isArray(cells) || cells.length > MAX_WAITING_CELLS) {
    return null;
  }
  const parsed = cells.map(parseWaitingCell);
  if (parsed.some(c => c === null)) {
    return null;
  }
  return { v: 1, type: 'waiting', count, cells: parsed as IWaitingCell[] };
}

function isBundleText(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_BUNDLE_TEXT;
}

function parseRunOutput(data: Record<string, unknown>): IRunOutput | null {
  const { model_id, cell_id, state, bundle } = data;
  if (!isText(model_id, false) || !(cell_id === null || isText(cell_id, false))) {
    return null;
  }
  if ((state !== 'live' && state !== 'settled') || !isRecord(bundle)) {
    return null;
  }
  const markdown = bundle['text/markdown'];
  const plain = bundle['text/plain'];
  if (!isBundleText(markdown) || !isBundleText(plain)) {
    return null;
  }
  const message: IRunOutput = {
    v: 1,
    type: 'run_output',
    model_id,
    cell_id,
    state,
    bundle: { 'text/markdown': markdown, 'text/plain': plain }
  };
  if (data.replay === true) {
    message.replay = true;
  }
  return message;
}

function isPosition(value: unknown): value is number {
  return isInteger(value) && value >= 0;
}

/** A `read_notebook`: its request id and, each optional, `around` (an id), `window` (0 to
 * `MAX_READ_CELLS`), `cell_ids` (at most `MAX_READ_IDS` ids of 1-200 characters) and a
 * `first`..`last` range of positions; any of them malformed: `null`. */
function parseReadNotebook(data: Record<string, unknown>): IReadNotebook | null {
  if (!isText(data.request_id, false)) {
    return null;
  }
  const message: IReadNotebook = { v: 1, type: 'read_notebook', request_id: data.request_id };
  const { around, window, cell_ids: ids, first, last } = data;
  if (around !== undefined) {
    if (typeof around !== 'string' || around.length === 0 || around.length > 200) {
      return null;
    }
    message.around = around;
  }
  if (window !== undefined) {
    if (!isPosition(window) || window > MAX_READ_CELLS) {
      return null;
    }
    message.window = window;
  }
  if (ids !== undefined) {
    const valid = (id: unknown): id is string => typeof id === 'string' && id.length >= 1 && id.length <= 200;
    if (!Array.isArray(ids) || ids.length > MAX_READ_IDS || !ids.every(valid)) {
      return null;
    }
    message.cell_ids = [...ids];
  }
  for (const [key, value] of [['first', first], ['last', last]] as const) {
    if (value !== undefined) {
      if (!isPosition(value)) {
        return null;
      }
      message[key] = value;
    }
  }
  if (message.first !== undefined && message.last !== undefined && message.last < message.first) {
    return null;
  }
  return message;
}
