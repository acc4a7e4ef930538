/**
 * The notebook as the person sees it, for the kernel's `read_notebook` (the agent's
 * `notebook_cells` tool): every cell of the notebook model in order — so cells that never ran and
 * edits not yet run or saved are there — with its type, source, execution count, the `dsh-agent`
 * tag, whether it is the active cell, and a summary of its outputs (the text of streams and
 * results, the mime types of rich outputs, an error's name and value; never image data). The
 * output summary is also the `run_cells_reply`'s (`runcells.ts`).
 *
 * In a notebook longer than `MAX_READ_CELLS` the request chooses which cells (`chosenPositions`:
 * a window around the asking cell, cells by id or position, wherever they are).
 *
 * Bounded to what the kernel accepts (`MAX_READ_CELLS` cells, `MAX_READ_SOURCE` characters of
 * source, `MAX_READ_OUTPUTS` outputs with `MAX_OUTPUT_TEXT` characters each); longer parts are cut
 * with the kernel's marker (`truncationMark`). Pure over the model: reads, never changes it.
 */

import type { INotebookModel } from '@jupyterlab/notebook';
import type { ICellModel, ICodeCellModel } from '@jupyterlab/cells';

import {
  AGENT_TAG,
  MAX_OUTPUT_TEXT,
  MAX_READ_CELLS,
  MAX_READ_OUTPUTS,
  MAX_READ_SOURCE,
  PRIVATE_TAG
} from './protocol/constants';
import type { IReadNotebook } from './protocol/kernel';
import type { ICellOutput, INotebookCell, IReadNotebookReply, IRunCellOutput } from './protocol/page';

// CSI sequences (colours, cursor), OSC sequences, and lone escapes
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/**
 * The marker that replaces cut text, spelled as the kernel spells it everywhere
 * (`transcript.bounds.truncation_mark`): `[… 1,234 characters omitted …]`.
 */
export function truncationMark(omitted: number): string {
  const count = String(omitted).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `[… ${count} characters omitted …]`;
}

/**
 * `text` if it fits in `limit`, else its head (`keepTail`: its tail) and the marker on a line of
 * its own, at most `limit` characters in all (only the marker when `limit` is smaller than it).
 */
export function cut(text: string, limit: number, keepTail = false): string {
  if (text.length <= limit) {
    return text;
  }
  const room = Math.max(0, limit - truncationMark(text.length).length - 1);
  const mark = truncationMark(text.length - room);
  if (room === 0) {
    return mark;
  }
  return keepTail ? `${mark}\n${text.slice(text.length - room)}` : `${text.slice(0, room)}\n${mark}`;
}

function joined(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  return Array.isArray(value) ? value.filter(v => typeof v === 'string').join('') : '';
}

/**
 * One nbformat output as the kernel reads it (`read_notebook_reply`, `run_cells_reply`), or
 * `null` (not a stored output of a known kind): a stream's text (its tail), a display's mime types
 * and its `text/markdown`, else its `text/plain`, an error's name and value and, with `traceback`,
 * its plain-text traceback (ANSI escapes stripped, its tail: the end names the error). Never
 * image data; every text within `MAX_OUTPUT_TEXT`.
 */
export function summarizeOutput(raw: unknown, traceback = false): IRunCellOutput | null {
  if (typeof raw !== 'object' || raw === null) {
    return null;
  }
  const out = raw as Record<string, unknown>;
  const kind = out.output_type;
  if (kind === 'stream') {
    return { output_type: 'stream', text: cut(joined(out.text), MAX_OUTPUT_TEXT, true) };
  }
  if (kind === 'error') {
    const error: IRunCellOutput = {
      output_type: 'error',
      ename: cut(joined(out.ename), 200),
      evalue: cut(joined(out.evalue), MAX_OUTPUT_TEXT)
    };
    if (traceback) {
      const lines = Array.isArray(out.traceback) ? out.traceback.filter(l => typeof l === 'string') : [];
      error.traceback = cut(stripAnsi(lines.join('\n')), MAX_OUTPUT_TEXT, true);
    }
    return error;
  }
  if (kind !== 'execute_result' && kind !== 'display_data') {
    return null;
  }
  const data = typeof out.data === 'object' && out.data !== null ? (out.data as Record<string, unknown>) : {};
  const summary: IRunCellOutput = {
    output_type: kind,
    mime: Object.keys(data)
      .filter(m => m.length > 0 && m.length <= 200)
      .slice(0, 32)
  };
  // markdown first: a settled %%dsh cell keeps its transcript there (its text/plain is one
  // line), and IPython's Markdown display has only a repr as text/plain
  const text = joined(data['text/markdown']) || joined(data['text/plain']);
  if (text) {
    summary.text = cut(text, MAX_OUTPUT_TEXT);
  }
  return summary;
}

/** At most `MAX_READ_OUTPUTS` summaries of `outputs` (see `summarizeOutput`), in order. */
export function summarizeOutputs(outputs: readonly unknown[], traceback = false): IRunCellOutput[] {
  const found: IRunCellOutput[] = [];
  for (const raw of outputs) {
    if (found.length >= MAX_READ_OUTPUTS) {
      break;
    }
    const summary = summarizeOutput(raw, traceback);
    if (summary !== null) {
      found.push(summary);
    }
  }
  return found;
}

function outputsOf(cell: ICellModel): ICellOutput[] {
  if (cell.type !== 'code') {
    return [];
  }
  const area = (cell as ICodeCellModel).outputs;
  const found: ICellOutput[] = [];
  for (let i = 0; i < area.length && found.length < MAX_READ_OUTPUTS; i++) {
    const summary = summarizeOutput(area.get(i).toJSON());
    if (summary !== null) {
      found.push(summary);
    }
  }
  return found;
}

function hasTag(cell: ICellModel, tag: string): boolean {
  const tags = cell.getMetadata('tags');
  return Array.isArray(tags) && tags.includes(tag);
}

function isAgentCell(cell: ICellModel): boolean {
  return hasTag(cell, AGENT_TAG);
}

/** Whether `cell` is private (tagged `dsh-private`): its source and outputs never leave the page. */
export function isPrivateCell(cell: ICellModel): boolean {
  return hasTag(cell, PRIVATE_TAG);
}

function cellOf(cell: ICellModel, index: number, selectedId: string | null): INotebookCell {
  const type = cell.type === 'markdown' || cell.type === 'raw' ? cell.type : 'code';
  const count = type === 'code' ? (cell as ICodeCellModel).executionCount : null;
  // JupyterLab 4.1+: 'running' from the execute request until its reply (queued included)
  const state = type === 'code' ? (cell as { executionState?: unknown }).executionState : undefined;
  const hidden = isPrivateCell(cell);
  return {
    index,
    id: cut(cell.id, 200),
    cell_type: type,
    source: hidden ? '' : cut(cell.sharedModel.getSource(), MAX_READ_SOURCE),
    execution_count: typeof count === 'number' && count >= 0 ? count : null,
    agent: isAgentCell(cell),
    selected: selectedId !== null && cell.id === selectedId,
    outputs: hidden ? [] : outputsOf(cell),
    ...(state === 'running' ? { running: true } : {}),
    ...(hidden ? { private: true } : {})
  };
}

/** Which cells a `read_notebook` asks for (its optional fields, `IReadNotebook`). */
export type ReadWant = Pick<IReadNotebook, 'around' | 'window' | 'cell_ids' | 'first' | 'last'>;

/**
 * The positions of the cells `want` asks for, in notebook order, at most `MAX_READ_CELLS`: first
 * every cell whose id is one of `cell_ids` or starts with one of 4+ characters (a short id), then every private
 * cell (sent bare, so the kernel knows them wherever they are), then the `first`..`last` range,
 * then the `window` cells around `around` (its id, or the first id starting with it; else the
 * active cell `selected`, else the first cell; `window` defaults to `MAX_READ_CELLS` with
 * `around`, else 0). Asked for nothing (an older kernel): the first `MAX_READ_CELLS`.
 */
export function chosenPositions(ids: readonly string[], privates: readonly number[], want: ReadWant, selected: number): number[] {
  const total = ids.length;
  const chosen = new Set<number>();
  const add = (i: number): boolean => {
    if (chosen.size >= MAX_READ_CELLS) {
      return false;
    }
    chosen.add(i);
    return true;
  };
  for (const given of want.cell_ids ?? []) {
    ids.forEach((id, i) => (id === given || (given.length >= 4 && id.startsWith(given))) && add(i));
  }
  privates.forEach(add);
  if (want.first !== undefined || want.last !== undefined) {
    for (let i = want.first ?? 0; i <= Math.min(want.last ?? total - 1, total - 1) && add(i); i++);
  }
  const asked = Object.values(want).some(v => v !== undefined);
  const wide = Math.min(want.window ?? (want.around !== undefined || !asked ? MAX_READ_CELLS : 0), total);
  const around = want.around;
  const exact = around === undefined ? -1 : ids.indexOf(around);
  const found = around === undefined || exact >= 0 ? exact : ids.findIndex(id => id.startsWith(around));
  const centre = !asked ? 0 : found >= 0 ? found : Math.max(selected, 0);
  const start = Math.max(0, Math.min(centre - Math.floor(wide / 2), total - wide));
  // nearest the centre first, so a window cut by the cap still holds it
  const order = Array.from({ length: wide }, (_, k) => start + k).sort((a, b) => Math.abs(a - centre) - Math.abs(b - centre));
  order.forEach(add);
  return [...chosen].sort((a, b) => a - b);
}

/**
 * The `read_notebook_reply` for `requestId` from the notebook `model` at `path`: the cells
 * `want` chooses (`chosenPositions`), each with its position; `total_cells` says how many exist.
 */
export function readCells(
  requestId: string,
  path: string,
  model: INotebookModel,
  selectedId: string | null,
  want: ReadWant = {}
): IReadNotebookReply {
  const total = model.cells.length;
  const ids: string[] = [];
  const privates: number[] = [];
  let selected = -1;
  for (let i = 0; i < total; i++) {
    const cell = model.cells.get(i);
    ids.push(cell.id);
    if (cell.id === selectedId) {
      selected = i;
    }
    if (isPrivateCell(cell)) {
      privates.push(i);
    }
  }
  const cells = chosenPositions(ids, privates, want, selected).map(i => cellOf(model.cells.get(i), i, selectedId));
  const reply: IReadNotebookReply = { v: 1, type: 'read_notebook_reply', request_id: requestId, path: cut(path, 4000), total_cells: total, cells };
  if (Object.values(want).some(v => v !== undefined)) {
    reply.chosen = true; // the cells asked for: an id not sent is in no cell
  }
  return reply;
}
