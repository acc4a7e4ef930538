/**
 * The command "dsh: Go to the next waiting request" (palette and Alt+Shift+D): a keyboard route to
 * the approvals and questions that wait in the current notebook, instead of 40+ Tab stops.
 *
 * Each use goes to the next waiting cell of the current notebook (in the kernel's order, wrapping
 * around), scrolls so that the waiting card's buttons are on screen (the card's end, not the
 * cell's centre: a tall card keeps its buttons below the fold otherwise) and focuses what the card
 * asks the person to read (its diff, the cells to run, the code: the widget marks it
 * `data-dsh-read`), never a decision button: one more Enter must not apply an edit the person has
 * not read (issue 43). The card's first button is one Tab away. A card without that mark (a
 * question, an older widget) gets its first enabled button focused. A cell whose card is not
 * rendered (yet) is scrolled to and focused as a cell (`WaitingState.reveal`). With nothing
 * waiting it does nothing (the command is disabled).
 */

import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import type { WaitingState } from './waiting';

export const GO_TO_WAITING = 'dsh-notebook:go-to-waiting';
export const GO_TO_WAITING_KEYS = ['Alt Shift D'];
const LABEL = 'dsh: Go to the next waiting request';

/** The first waiting card in `root`: an approval or question card still open. */
export function waitingCard(root: ParentNode): HTMLElement | null {
  // the card with the buttons first: a waiting tool card encloses its approval card
  return (
    root.querySelector<HTMLElement>('.dsh-approval.dsh-state-pending, .dsh-question.dsh-state-pending') ??
    root.querySelector<HTMLElement>('.dsh-card.dsh-state-waiting')
  );
}

/** The widget's mark on what a card asks the person to read first (`READ_FIRST` in
 * js/src/cards/celledit.ts). */
export const READ_FIRST = 'data-dsh-read';

/** Bring `card`'s buttons on screen and focus what it asks to read (else its first enabled
 * button); false with neither. */
export function showCard(card: HTMLElement): boolean {
  const read = card.querySelector<HTMLElement>(`[${READ_FIRST}]`);
  // the decision's buttons (Allow once, …) before any other (Copy): one query each, in order
  const button =
    card.querySelector<HTMLButtonElement>('.dsh-actions button:not([disabled])') ??
    card.querySelector<HTMLButtonElement>('button:not([disabled])');
  const target = card.querySelector<HTMLElement>('.dsh-actions') ?? button ?? card;
  target.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  // what to read on screen too (a card taller than the view keeps its buttons there)
  read?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  const focused = read ?? button;
  if (focused === null) {
    return false;
  }
  focused.focus({ preventScroll: true });
  return true;
}

export function registerGoToWaiting(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  stateOf: (panel: NotebookPanel) => WaitingState | undefined,
  palette: { addItem(options: { command: string; category: string }): unknown } | null
): void {
  const visited = new WeakMap<WaitingState, number>();
  const current = (): WaitingState | undefined => {
    const panel = tracker.currentWidget;
    return panel === null ? undefined : stateOf(panel);
  };
  app.commands.addCommand(GO_TO_WAITING, {
    label: LABEL,
    caption: 'Scroll to the next approval or question that waits for you and focus its first button',
    isEnabled: () => (current()?.count ?? 0) > 0,
    execute: async () => {
      const state = current();
      if (state === undefined || state.count === 0) {
        return;
      }
      const notebook = state.panel.content;
      const cells = state.cells;
      const start = ((visited.get(state) ?? -1) + 1) % cells.length;
      for (let step = 0; step < cells.length; step++) {
        const at = (start + step) % cells.length;
        const id = cells[at]?.cell_id;
        const index = notebook.widgets.findIndex(cell => cell.model.id === id);
        const cell = notebook.widgets[index];
        if (cell === undefined) {
          continue;
        }
        visited.set(state, at);
        notebook.activeCellIndex = index;
        notebook.mode = 'command';
        await notebook.scrollToCell(cell, 'start');
        const card = waitingCard(cell.node);
        if (card === null || !showCard(card)) {
          cell.node.focus();
        }
        return;
      }
      await state.reveal(); // none of them is in the notebook: the notice says how to answer
    }
  });
  app.commands.addKeyBinding({ command: GO_TO_WAITING, keys: GO_TO_WAITING_KEYS, selector: 'body' });
  palette?.addItem({ command: GO_TO_WAITING, category: 'dsh' });
}
