/**
 * What the kernel sends the page on the `dsh_notebook.frontend` comm: the shape of each message,
 * as `parse.ts` hands it on (validated, bounded). Two kinds:
 * - notices, which the page takes and answers nothing: `hello` (answered by `hello_reply`, which
 *   also goes unasked after a reload), `waiting`, `run_output`, `insert_cell`;
 * - requests, each with a `request_id` the page's one reply carries (`page.ts`, `IReplies`):
 *   `read_notebook`, `apply_change`, `run_cells`, `undo_changes`.
 */

export interface IHello {
  v: 1;
  type: 'hello';
  kernel_version: string;
}

export type WaitingKind = 'approval' | 'question';

export interface IWaitingCell {
  cell_id: string;
  kind: WaitingKind;
  label: string;
  /** The kernel's id for `%dsh allow` / `%dsh answer` (`a1`, `q2`); absent from older kernels. */
  request_id?: string;
}

/** What waits for the person now, the whole state (latest wins; `count == 0` clears it). */
export interface IWaiting {
  v: 1;
  type: 'waiting';
  count: number;
  cells: IWaitingCell[];
}

export interface IRunBundle {
  'text/markdown': string;
  'text/plain': string;
}

export type RunOutputState = 'live' | 'settled';

/** The static transcript of the run a widget shows (see `../runoutput.ts`). */
export interface IRunOutput {
  v: 1;
  type: 'run_output';
  model_id: string;
  cell_id: string | null;
  state: RunOutputState;
  bundle: IRunBundle;
  /** Sent again in answer to this page's `hello_reply` (a reload, a second page). */
  replay?: true;
}

/** One nbformat v4 output of an agent cell, as validated (data values are strings, never HTML). */
export type AgentOutput =
  | { output_type: 'stream'; name: 'stdout' | 'stderr'; text: string }
  | { output_type: 'error'; ename: string; evalue: string; traceback: string[] }
  | {
      output_type: 'display_data';
      data: Record<string, string>;
      metadata: Record<string, Record<string, unknown>>;
    }
  | {
      output_type: 'execute_result';
      data: Record<string, string>;
      metadata: Record<string, Record<string, unknown>>;
      execution_count: number | null;
    };

/**
 * An approved `run_python` call that finished: the page inserts it as an unexecuted code cell
 * below the `%%dsh` cell `anchor` (see `../agentcells.ts`).
 */
export interface IInsertCell {
  v: 1;
  type: 'insert_cell';
  anchor: string;
  session: string;
  run: string;
  call: number;
  source: string;
  outputs: AgentOutput[];
}

/**
 * The notebook as the person sees it, please (see `../cells.ts`). The optional fields choose
 * the cells of a notebook longer than `MAX_READ_CELLS`; without them the page sends the first
 * `MAX_READ_CELLS`.
 */
export interface IReadNotebook {
  v: 1;
  type: 'read_notebook';
  request_id: string;
  /** The cell (id or id prefix) the window is centred on (the asking `%%dsh` cell); else the active cell. */
  around?: string;
  /** At most `window` cells around `around` (0: none; default `MAX_READ_CELLS`). */
  window?: number;
  /** Cells whose id is one of these (1-200 characters) or starts with one of 4 or more, wherever. */
  cell_ids?: string[];
  /** Positions `first`..`last` (from 0, both included). */
  first?: number;
  last?: number;
}

/**
 * Who made a change: the runtime session, run and call id of the tool call. `anchor` (optional,
 * additive) is the id of the `%%dsh` cell of that run: where "Undo this run" is shown.
 */
export interface IChangeOrigin {
  session: string;
  run: string;
  call: string;
  anchor?: string;
}

/** A cell's source replaced (`before` as the kernel last read it): a change, and its undo entry. */
export interface ICellEdit {
  kind: 'edit';
  cell_id: string;
  before: string;
  after: string;
}

export type Change =
  | ICellEdit
  | { kind: 'insert'; after_cell_id: string; cell_type: 'code' | 'markdown'; source: string }
  | { kind: 'delete'; cell_id: string; before: string };

/** One approved change to apply (see `../celledit.ts`). */
export interface IApplyChange {
  v: 1;
  type: 'apply_change';
  request_id: string;
  origin: IChangeOrigin;
  change: Change;
  /**
   * `false`: the change's `before` holds what the kernel masks (a secret, a private value); the
   * notebook's undo records keep no copy of it (`../undorecord.ts`), so undoing it needs the kernel.
   */
  record?: false;
}

/** Run these cells in order as the person's Run would (see `../runcells.ts`). */
export interface IRunCells {
  v: 1;
  type: 'run_cells';
  request_id: string;
  cell_ids: string[];
  timeout_s: number;
  origin: IChangeOrigin;
}

export type UndoEntry =
  | ICellEdit
  | { kind: 'insert'; cell_id: string; source: string }
  | {
      kind: 'delete';
      cell: { cell_type: 'code' | 'markdown' | 'raw'; source: string; id: string };
      after_cell_id: string | null;
      index: number;
    }
  | { kind: 'agent_cell'; run: string; call: number; source: string };

/** A run's ledger to revert, newest change first (`changes: []`: nothing to undo). */
export interface IUndoChanges {
  v: 1;
  type: 'undo_changes';
  request_id: string;
  run: string;
  changes: UndoEntry[];
}

/** A kernel message the page answers with exactly one reply (`page.ts`, `IReplies`). */
export type KernelRequest = IReadNotebook | IApplyChange | IRunCells | IUndoChanges;

export type KernelMessage = IHello | IWaiting | IRunOutput | IInsertCell | KernelRequest;

/** The message of type `T`. */
export type KernelMessageOf<T extends KernelMessage['type']> = Extract<KernelMessage, { type: T }>;
