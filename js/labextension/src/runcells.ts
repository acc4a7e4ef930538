/**
 * The `run_cells_reply` of a `run_cells` request: pure rules (no JupyterLab imports, tested with
 * node; `celledits.ts` starts the executions).
 *
 * The page starts every cell's execution at once, in the order given, as Run All does (the kernel
 * queues them; `stop_on_error` aborts the queue after the first error, so cells after an error
 * are `not_run`). `collectRun` waits for each in order, up to `timeout_s` in all: a cell not
 * finished by then is `running` (the page never interrupts the kernel; the cell goes on and its
 * outputs land in the notebook). Outputs are summarized by `read_notebook`'s summary
 * (`cells.ts` `summarizeOutputs`), errors with their plain-text traceback (ANSI escapes stripped).
 */

import { summarizeOutputs } from './cells';
import type { IRunCells } from './protocol/kernel';
import type { IRunCellResult, IRunCellsReply, RunCellStatus } from './protocol/page';

/** How one execution ended: its reply's status (`aborted`: not run after an earlier error). */
export type ExecutionEnd = 'ok' | 'error' | 'aborted';

/** One cell being run, as `collectRun` sees it. */
export interface IRunTarget {
  id: string;
  index: number;
  /** `ok` at once for a markdown / raw cell (rendered, not executed). */
  done: Promise<ExecutionEnd>;
  /** The cell's execution count and nbformat outputs now. */
  snapshot(): { execution_count: number | null; outputs: unknown[] };
}

const PENDING = Symbol('pending');

function result(id: string, target: IRunTarget | null, status: RunCellStatus): IRunCellResult {
  if (target === null) {
    return { cell_id: id, index: null, status, execution_count: null, outputs: [] };
  }
  const { execution_count, outputs } = target.snapshot();
  return {
    cell_id: target.id,
    index: target.index,
    status,
    execution_count: status === 'not_run' ? null : execution_count,
    outputs: status === 'not_run' ? [] : summarizeOutputs(outputs, true)
  };
}

/**
 * Wait for `targets` (one per requested id, `null` for an id matching no cell) in order, at most
 * `request.timeout_s` in all; the reply. Never rejects (a failed execution reads `error`).
 */
export async function collectRun(request: IRunCells, targets: readonly (IRunTarget | null)[]): Promise<IRunCellsReply> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof PENDING>(resolve => {
    timer = setTimeout(() => resolve(PENDING), request.timeout_s * 1000);
  });
  const cells: IRunCellResult[] = [];
  let timedOut = false;
  let failed = false;
  for (let i = 0; i < request.cell_ids.length; i++) {
    const id = request.cell_ids[i] ?? '';
    const target = targets[i] ?? null;
    if (target === null) {
      cells.push(result(id, null, 'missing'));
      continue;
    }
    if (failed) {
      cells.push(result(id, target, 'not_run'));
      continue;
    }
    let end: ExecutionEnd | typeof PENDING = PENDING;
    if (!timedOut) {
      end = await Promise.race([target.done.catch((): ExecutionEnd => 'error'), timeout]);
    }
    if (end === PENDING) {
      timedOut = true;
      cells.push(result(id, target, 'running'));
    } else if (end === 'aborted') {
      failed = true;
      cells.push(result(id, target, 'not_run'));
    } else {
      failed = end === 'error';
      cells.push(result(id, target, end));
    }
  }
  clearTimeout(timer);
  return { v: 1, type: 'run_cells_reply', request_id: request.request_id, cells };
}
