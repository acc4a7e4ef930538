/**
 * What the waiting signal says when the cell that asked is not in the notebook any more (an
 * unsaved reload removed it, or the person deleted it): the kernel still waits, and only a
 * `%dsh` command can answer. Pure text (no DOM), shown with `textContent`.
 */

import type { IWaitingCell } from './protocol/kernel';

/** The cells of `waiting` that `present` does not hold (by cell id). */
export function missingCells(waiting: readonly IWaitingCell[], present: (cellId: string) => boolean): IWaitingCell[] {
  return waiting.filter(cell => !present(cell.cell_id));
}

/** How to answer `cells` from a code cell: one line each, then where to list them all. */
export function orphanAdvice(cells: readonly IWaitingCell[]): string {
  const lines = [
    'The cell that asked is no longer in this notebook (reloaded before it was saved, or deleted), ' +
      'but the kernel still waits for your answer. Answer it in a code cell:'
  ];
  for (const cell of cells.slice(0, 10)) {
    const id = cell.request_id;
    if (id === undefined) {
      lines.push(`• ${cell.kind} (${cell.label}): run %dsh pending to see its id`);
    } else if (cell.kind === 'approval') {
      lines.push(`• approval for ${cell.label}: %dsh allow ${id}   or   %dsh reject ${id}`);
    } else {
      lines.push(`• question "${cell.label}": %dsh answer ${id} CHOICE   or   %dsh dismiss ${id}`);
    }
  }
  lines.push('%dsh pending lists everything that waits.');
  return lines.join('\n');
}
