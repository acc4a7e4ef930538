/**
 * The notebook as the person sees it, for the kernel's `read_notebook` (the agent's
 * `notebook_cells` tool): every cell of the notebook model in order — so cells that never ran and
 * edits not yet run or saved are there — with its type, source, execution count, the `dsh-agent`
 * tag, whether it is the active cell, and a summary of its outputs (the text of streams and
 * results, the mime types of rich outputs, an error's name and value; never image data). The
 * output summary is also the `run_cells_reply`'s (`runcells.ts`).
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

/** The `read_notebook_reply` for `requestId` from the notebook `model` at `path`. */
export function readCells(
  requestId: string,
  path: string,
  model: INotebookModel,
  selectedId: string | null
): IReadNotebookReply {
  const cells: INotebookCell[] = [];
  const total = model.cells.length;
  for (let i = 0; i < total && i < MAX_READ_CELLS; i++) {
    cells.push(cellOf(model.cells.get(i), i, selectedId));
  }
  return { v: 1, type: 'read_notebook_reply', request_id: requestId, path: cut(path, 4000), total_cells: total, cells };
}
