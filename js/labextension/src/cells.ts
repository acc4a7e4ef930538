/**
 * The notebook as the person sees it, for the kernel's `read_notebook` (the agent's
 * `notebook_cells` tool): every cell of the notebook model in order — so cells that never ran and
 * edits not yet run or saved are there — with its type, source, execution count, the `dsh-agent`
 * tag, whether it is the active cell, and a summary of its outputs (the text of streams and
 * results, the mime types of rich outputs, an error's name and value; never image data).
 *
 * Bounded to what the kernel accepts (`MAX_READ_CELLS` cells, `MAX_READ_SOURCE` characters of
 * source, `MAX_READ_OUTPUTS` outputs with `MAX_OUTPUT_TEXT` characters each); longer parts are cut
 * with a note. Pure over the model: reads, never changes it.
 */

import type { INotebookModel } from '@jupyterlab/notebook';
import type { ICellModel, ICodeCellModel } from '@jupyterlab/cells';

import {
  ICellOutput,
  INotebookCell,
  IReadNotebookReply,
  MAX_READ_OUTPUTS,
  MAX_READ_SOURCE,
  MAX_OUTPUT_TEXT,
  MAX_READ_CELLS
} from './protocol';

export const AGENT_TAG = 'dsh-agent';

const OUTPUT_TYPES = new Set(['stream', 'execute_result', 'display_data', 'error', 'update_display_data']);

function cut(text: string, limit: number, keepTail = false): string {
  if (text.length <= limit) {
    return text;
  }
  const note = ` … [cut: ${text.length - limit} more chars] `;
  const room = Math.max(0, limit - note.length);
  return keepTail ? note + text.slice(text.length - room) : text.slice(0, room) + note;
}

function joined(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  return Array.isArray(value) ? value.filter(v => typeof v === 'string').join('') : '';
}

function summarize(raw: Record<string, unknown>): ICellOutput | null {
  const kind = raw.output_type;
  if (typeof kind !== 'string' || !OUTPUT_TYPES.has(kind)) {
    return null;
  }
  const output: ICellOutput = { output_type: kind as ICellOutput['output_type'] };
  if (kind === 'stream') {
    output.text = cut(joined(raw.text), MAX_OUTPUT_TEXT, true);
  } else if (kind === 'error') {
    output.ename = cut(joined(raw.ename), 200);
    output.evalue = cut(joined(raw.evalue), MAX_OUTPUT_TEXT);
  } else {
    const data = typeof raw.data === 'object' && raw.data !== null ? (raw.data as Record<string, unknown>) : {};
    output.mime = Object.keys(data)
      .filter(m => m.length > 0 && m.length <= 200)
      .slice(0, 32);
    // markdown first: a settled %%dsh cell keeps its transcript there (its text/plain is one
    // line), and IPython's Markdown display has only a repr as text/plain
    const text = joined(data['text/markdown']) || joined(data['text/plain']);
    if (text) {
      output.text = cut(text, MAX_OUTPUT_TEXT);
    }
  }
  return output;
}

function outputsOf(cell: ICellModel): ICellOutput[] {
  if (cell.type !== 'code') {
    return [];
  }
  const area = (cell as ICodeCellModel).outputs;
  const found: ICellOutput[] = [];
  for (let i = 0; i < area.length && found.length < MAX_READ_OUTPUTS; i++) {
    const summary = summarize(area.get(i).toJSON() as unknown as Record<string, unknown>);
    if (summary !== null) {
      found.push(summary);
    }
  }
  return found;
}

function isAgentCell(cell: ICellModel): boolean {
  const tags = cell.getMetadata('tags');
  return Array.isArray(tags) && tags.includes(AGENT_TAG);
}

function cellOf(cell: ICellModel, index: number, selectedId: string | null): INotebookCell {
  const type = cell.type === 'markdown' || cell.type === 'raw' ? cell.type : 'code';
  const count = type === 'code' ? (cell as ICodeCellModel).executionCount : null;
  // JupyterLab 4.1+: 'running' from the execute request until its reply (queued included)
  const state = type === 'code' ? (cell as { executionState?: unknown }).executionState : undefined;
  return {
    index,
    id: cut(cell.id, 200),
    cell_type: type,
    source: cut(cell.sharedModel.getSource(), MAX_READ_SOURCE),
    execution_count: typeof count === 'number' && count >= 0 ? count : null,
    agent: isAgentCell(cell),
    selected: selectedId !== null && cell.id === selectedId,
    outputs: outputsOf(cell),
    ...(state === 'running' ? { running: true } : {})
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
