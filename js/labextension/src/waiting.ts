/**
 * The waiting signal outside the cell: what approvals and questions wait in one notebook.
 *
 * `WaitingState` holds the kernel's latest `waiting` message for one notebook and shows it on
 * the notebook's tab (`data-dsh-waiting` + class `dsh-mod-waiting` on the title: a badge in
 * JupyterLab) and as a toolbar button (JupyterLab and Notebook 7, which has no status bar);
 * `WaitingStatus` is the JupyterLab status-bar item for the current notebook. Clicking either
 * button scrolls to the first waiting cell (by cell id) and focuses it; when none of the waiting
 * cells is in the notebook (an unsaved reload removed the `%%dsh` cell, the kernel still waits),
 * it shows a notice on the panel that says so and how to answer (`%dsh allow ID`, see
 * `advice.ts`) instead of doing nothing. A count of 0 hides all, the notice included.
 * Labels are the kernel's text and are set as text, never as HTML.
 */

import type { NotebookPanel } from '@jupyterlab/notebook';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { missingCells, orphanAdvice } from './advice';
import type { IWaiting, IWaitingCell } from './protocol/kernel';

export function describe(count: number): string {
  return `dsh: ${count} waiting`;
}

function tooltip(cells: readonly IWaitingCell[]): string {
  const lines = cells.slice(0, 10).map(c => `${c.kind === 'approval' ? 'approval' : 'question'}: ${c.label}`);
  return [...lines, 'Click to go to the first waiting cell'].join('\n');
}

export class WaitingState {
  constructor(readonly panel: NotebookPanel) {
    this.button = new WaitingButton(() => void this.reveal(), 'dsh-waiting-toolbar');
    panel.toolbar.insertItem(10, 'dsh-waiting', this.button);
    this.button.render(0, []);
  }

  get count(): number {
    return this._count;
  }

  get cells(): readonly IWaitingCell[] {
    return this._cells;
  }

  /** Emitted whenever the count or cells change. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  update(waiting: IWaiting | null): void {
    this._count = waiting?.count ?? 0;
    this._cells = waiting?.cells ?? [];
    const title = this.panel.title;
    const dataset = { ...title.dataset };
    delete dataset['dsh-waiting'];
    if (this._count > 0) {
      dataset['dsh-waiting'] = String(this._count);
      title.className = addClass(title.className, 'dsh-mod-waiting');
    } else {
      title.className = removeClass(title.className, 'dsh-mod-waiting');
    }
    title.dataset = dataset;
    this.button.render(this._count, this._cells);
    if (this._notice !== null && this._count === 0) {
      this._hideNotice();
    }
    this._changed.emit();
  }

  /** Scroll to the first waiting cell that is in the notebook and focus it. */
  async reveal(): Promise<boolean> {
    const notebook = this.panel.content;
    for (const waiting of this._cells) {
      const index = notebook.widgets.findIndex(cell => cell.model.id === waiting.cell_id);
      const cell = notebook.widgets[index];
      if (cell === undefined) {
        continue;
      }
      notebook.activeCellIndex = index;
      notebook.mode = 'command';
      await notebook.scrollToCell(cell, 'center');
      cell.node.focus();
      return true;
    }
    const ids = new Set(notebook.widgets.map(cell => cell.model.id));
    const missing = missingCells(this._cells, id => ids.has(id));
    if (missing.length > 0) {
      this._showNotice(orphanAdvice(missing));
    }
    return false;
  }

  private _showNotice(text: string): void {
    this._hideNotice();
    const notice = document.createElement('div');
    notice.className = 'dsh-waiting-notice';
    notice.setAttribute('role', 'alert');
    const body = document.createElement('div');
    body.className = 'dsh-waiting-notice-text';
    body.textContent = text;
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'dsh-waiting-notice-close';
    close.textContent = 'Close';
    close.addEventListener('click', () => this._hideNotice());
    notice.append(body, close);
    this.panel.node.appendChild(notice);
    this._notice = notice;
  }

  private _hideNotice(): void {
    this._notice?.remove();
    this._notice = null;
  }

  readonly button: WaitingButton;
  private _count = 0;
  private _cells: IWaitingCell[] = [];
  private _notice: HTMLElement | null = null;
  private _changed = new Signal<this, void>(this);
}

/** A text button that shows "dsh: N waiting" and hides itself at 0. */
export class WaitingButton extends Widget {
  constructor(onClick: () => void, className: string) {
    super({ node: document.createElement('button') });
    this.addClass('dsh-waiting');
    this.addClass(className);
    const node = this.node as HTMLButtonElement;
    node.type = 'button';
    node.addEventListener('click', onClick);
  }

  render(count: number, cells: readonly IWaitingCell[]): void {
    this.node.textContent = describe(count);
    this.node.title = tooltip(cells);
    this.node.dataset.count = String(count);
    this.setHidden(count === 0);
  }
}

/** The status-bar item: follows the current notebook's `WaitingState`. */
export class WaitingStatus {
  constructor() {
    this.item = new WaitingButton(() => void this._state?.reveal(), 'dsh-waiting-status');
    this.item.render(0, []);
  }

  /** Follow `state` (the current notebook's), or nothing. */
  follow(state: WaitingState | null): void {
    this._state?.changed.disconnect(this._refresh, this);
    this._state = state;
    state?.changed.connect(this._refresh, this);
    this._refresh();
  }

  get isActive(): boolean {
    return (this._state?.count ?? 0) > 0;
  }

  get activeStateChanged(): ISignal<this, void> {
    return this._activeStateChanged;
  }

  private _refresh(): void {
    this.item.render(this._state?.count ?? 0, this._state?.cells ?? []);
    this._activeStateChanged.emit();
  }

  readonly item: WaitingButton;
  private _state: WaitingState | null = null;
  private _activeStateChanged = new Signal<this, void>(this);
}

function addClass(classes: string, name: string): string {
  const list = classes.split(/\s+/).filter(Boolean);
  return list.includes(name) ? list.join(' ') : [...list, name].join(' ');
}

function removeClass(classes: string, name: string): string {
  return classes
    .split(/\s+/)
    .filter(c => c && c !== name)
    .join(' ');
}
