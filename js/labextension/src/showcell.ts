/**
 * "Show in notebook" from the run widget: one document-level listener (installed once per page)
 * for the bubbling, composed `CustomEvent('dsh-show-cell', {detail: {cellId}})` the widget
 * dispatches (`cellId`: a full cell id or its 8-character short id). The cell is looked up in the
 * notebook panel that holds the event's target, else the current notebook; it is scrolled into
 * view, made the active (selected) cell in command mode and flashed (`dsh-agent-edited`).
 * With `waiting: true` (the queued note's "Show": the cell of the run ahead) a card of that cell
 * that waits for a decision is then brought on screen as "Go to the next waiting request" does
 * (its buttons visible, what it asks to read focused, no decision button).
 * An unknown or ambiguous id, or a malformed event, does nothing. Never throws.
 */

import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import { flashCell } from './celledits';
import { showCard, waitingCard } from './gotowaiting';

export const SHOW_CELL_EVENT = 'dsh-show-cell';

/** The cell id of a show-cell event's detail, or `null`. */
export function showCellId(detail: unknown): string | null {
  if (typeof detail !== 'object' || detail === null) {
    return null;
  }
  const id = (detail as Record<string, unknown>).cellId;
  return typeof id === 'string' && id.length > 0 && id.length <= 200 ? id : null;
}

let installed = false;

export function listenShowCell(tracker: INotebookTracker): void {
  if (installed) {
    return;
  }
  installed = true;
  document.addEventListener(SHOW_CELL_EVENT, event => {
    try {
      const id = showCellId((event as CustomEvent).detail);
      if (id === null) {
        return;
      }
      const path = event.composedPath();
      let panel: NotebookPanel | null = null;
      tracker.forEach(p => {
        if (panel === null && path.includes(p.node)) {
          panel = p;
        }
      });
      const waiting = ((event as CustomEvent).detail as Record<string, unknown>).waiting === true;
      showCell(panel ?? tracker.currentWidget, id, waiting);
    } catch (error) {
      console.warn('dsh-notebook: could not show the cell', error);
    }
  });
}

/** Scroll to, select and flash the cell `id` (full or a unique prefix) of `panel`; with
 * `waiting`, then show the card of that cell that waits for a decision, if any. */
export function showCell(panel: NotebookPanel | null, id: string, waiting = false): boolean {
  if (panel === null || panel.isDisposed) {
    return false;
  }
  const notebook = panel.content;
  const exact = notebook.widgets.findIndex(w => w.model.id === id);
  const prefixed = notebook.widgets.flatMap((w, i) => (w.model.id.startsWith(id) ? [i] : []));
  const index = exact >= 0 ? exact : prefixed.length === 1 ? (prefixed[0] ?? -1) : -1;
  const widget = notebook.widgets[index];
  if (widget === undefined) {
    return false;
  }
  notebook.deselectAll();
  notebook.activeCellIndex = index;
  notebook.mode = 'command';
  const done = (): void => {
    flashCell(panel, widget.model.id);
    const card = waiting ? waitingCard(widget.node) : null;
    if (card !== null) {
      showCard(card);
    }
  };
  void notebook.scrollToCell(widget, 'center').then(done, done);
  return true;
}
