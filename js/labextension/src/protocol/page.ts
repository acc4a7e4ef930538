/**
 * What the page sends the kernel on the `dsh_notebook.frontend` comm: the shape of each message
 * and the builders of those the page makes from nothing else (`hello_reply`, `subshell_ready`,
 * `undo_request`). The replies to the kernel's requests are built where the page does the work
 * (`../cells.ts`, `../celledit.ts`, `../runcells.ts`); `IReplies` names which reply answers which
 * request. The kernel refuses a reply over the bounds of `constants.ts`.
 */

import { CAPABILITIES } from './constants';
import { WIDGET_BUNDLE_HASH } from '../widgetbundle';

export interface IHelloReply {
  v: 1;
  type: 'hello_reply';
  version: string;
  capabilities: string[];
}

/** Sent once the comm's subshell started; only its header matters to the kernel. */
export interface ISubshellReady {
  v: 1;
  type: 'subshell_ready';
}

/** The page's "Undo this run" on the `%%dsh` cell `anchor`. */
export interface IUndoRequest {
  v: 1;
  type: 'undo_request';
  anchor: string;
}

export interface ICellOutput {
  output_type: 'stream' | 'execute_result' | 'display_data' | 'error' | 'update_display_data';
  mime?: string[];
  /** A stream's text; a display's `text/markdown`, else its `text/plain`. */
  text?: string;
  ename?: string;
  evalue?: string;
}

export interface INotebookCell {
  index: number;
  id: string;
  cell_type: 'code' | 'markdown' | 'raw';
  source: string;
  execution_count: number | null;
  agent: boolean;
  selected: boolean;
  outputs: ICellOutput[];
  /** Present (true) while the cell runs or waits to run (JupyterLab 4.1+; absent before). */
  running?: boolean;
  /** Present (true) for a cell tagged `dsh-private`: `source` is empty, `outputs` none. */
  private?: boolean;
}

export interface IReadNotebookReply {
  v: 1;
  type: 'read_notebook_reply';
  request_id: string;
  path: string;
  total_cells: number;
  cells: INotebookCell[];
  /** Present (true) when the cells are those the request chose (`cells.ts`, `chosenPositions`). */
  chosen?: boolean;
}

export type ApplyStatus = 'applied' | 'stale' | 'missing' | 'failed';

export interface IApplyChangeReply {
  v: 1;
  type: 'apply_change_reply';
  request_id: string;
  status: ApplyStatus;
  cell_id: string | null;
  index: number | null;
  source: string | null;
  message?: string;
}

export type RunCellStatus = 'ok' | 'error' | 'running' | 'not_run' | 'missing';

export interface IRunCellOutput {
  output_type: 'stream' | 'execute_result' | 'display_data' | 'error';
  mime?: string[];
  text?: string;
  ename?: string;
  evalue?: string;
  /** The plain-text traceback (ANSI escapes stripped), at most `MAX_OUTPUT_TEXT`. */
  traceback?: string;
}

export interface IRunCellResult {
  cell_id: string;
  index: number | null;
  status: RunCellStatus;
  execution_count: number | null;
  outputs: IRunCellOutput[];
}

export interface IRunCellsReply {
  v: 1;
  type: 'run_cells_reply';
  request_id: string;
  cells: IRunCellResult[];
}

export interface IUndoSkipped {
  cell_id: string;
  reason: string;
}

export interface IUndoReply {
  v: 1;
  type: 'undo_reply';
  request_id: string;
  reverted: number;
  skipped: IUndoSkipped[];
}

/** The reply that answers each kernel request (`kernel.ts`, `KernelRequest`), by its type. */
export interface IReplies {
  read_notebook: IReadNotebookReply;
  apply_change: IApplyChangeReply;
  run_cells: IRunCellsReply;
  undo_changes: IUndoReply;
}

export type PageMessage = IHelloReply | ISubshellReady | IUndoRequest | IReplies[keyof IReplies];

/**
 * `widget_bundle:<hash>`: this page serves the widget bundle of that content hash from the
 * extension's static folder (`<fullLabextensionsUrl>/dsh-notebook/static/dsh-widget.<hash>.js`
 * and `.css`), so a kernel with the same bundle sends widgets a small loader instead of it.
 */
export const WIDGET_BUNDLE_CAPABILITY = `widget_bundle:${WIDGET_BUNDLE_HASH}`;

export function helloReply(version: string): IHelloReply {
  return { v: 1, type: 'hello_reply', version, capabilities: [...CAPABILITIES, WIDGET_BUNDLE_CAPABILITY] };
}

export function subshellReady(): ISubshellReady {
  return { v: 1, type: 'subshell_ready' };
}

export function undoRequest(anchor: string): IUndoRequest {
  return { v: 1, type: 'undo_request', anchor };
}
