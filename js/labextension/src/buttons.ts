/**
 * Insert below and Ask dsh in one notebook panel (the rules are in `insertions.ts`).
 *
 * - Insert below from the live widget: the panel listens for the widget's bubbling
 *   `dsh-notebook:insert-cell` event, finds the cell that holds the event's target and inserts an
 *   unexecuted code cell with exactly that code below it (below the cells already inserted from
 *   the same cell in this page, so several inserts keep their order). The kernel is not involved,
 *   so this works while it is busy.
 * - Insert below (and Copy) on the Python code blocks of a settled transcript (a `display_data`
 *   with the `dsh_notebook.run` marker): JupyterLab renders it as plain markdown, so the buttons
 *   are added to the rendered DOM.
 * - Ask dsh and Fix with dsh on every error output of a code cell that is not a `%%dsh` cell and
 *   has an execution count: Ask inserts the `%%dsh` prompt of `askSource` below (the cell's code
 *   and traceback, named by short id), selected, not run; Fix inserts `fixSource`'s prompt below
 *   and runs it (the agent is expected to propose an `edit_cell`, shown as a diff card). Fix
 *   is hidden while the panel is not marked `EDITS_LINKED` (`markEditsLinked`).
 *
 * Decorations follow the DOM: a MutationObserver (child lists only) marks the cells that changed
 * and one pass per animation frame at most decorates those; a button is added once per rendered
 * output (a re-render drops it and the next pass adds it again). Buttons build DOM from text only.
 * Nothing here throws into JupyterLab: a failing pass is logged and skipped.
 */

import { CodeCell } from '@jupyterlab/cells';
import type { Cell } from '@jupyterlab/cells';
import type { NotebookPanel } from '@jupyterlab/notebook';

import {
  EDITS_LINKED,
  INSERT_CELL_EVENT,
  askSource,
  cellSource,
  fixSource,
  fenceLanguage,
  isDshCell,
  isPythonFence,
  isRunTranscript,
  isToolHeading,
  parseInsertDetail
} from './insertions';
import { oneUndoStep } from './undostep';

const ASK_CLASS = 'dsh-nb-ask';
const FIX_CLASS = 'dsh-nb-fix';
const BAR_CLASS = 'dsh-nb-code-bar';

function button(label: string, title: string, onClick: () => void, cls: string): HTMLButtonElement {
  const el = document.createElement('button');
  el.type = 'button';
  el.className = `dsh-nb-btn ${cls}`;
  el.textContent = label;
  el.title = title;
  el.setAttribute('aria-label', title);
  el.addEventListener('click', event => {
    event.preventDefault();
    event.stopPropagation();
    onClick();
  });
  return el;
}

/**
 * Mark `panel` as linked to a kernel that loaded dsh_notebook (its comm is open), or not: Fix
 * with dsh shows only on a linked panel (`style/index.css`), since only then can this page apply
 * the edit the agent proposes.
 */
export function markEditsLinked(panel: NotebookPanel, linked: boolean): void {
  if (linked) {
    panel.node.dataset[EDITS_LINKED] = 'true';
  } else {
    delete panel.node.dataset[EDITS_LINKED];
  }
}

function flash(el: HTMLElement, text: string): void {
  const label = el.textContent;
  el.textContent = text;
  setTimeout(() => (el.textContent = label), 1500);
}

export class NotebookButtons {
  constructor(private readonly _panel: NotebookPanel) {
    const node = _panel.content.node;
    node.addEventListener(INSERT_CELL_EVENT, this._onInsert);
    this._observer = new MutationObserver(records => {
      for (const record of records) {
        const target = record.target instanceof Element ? record.target : record.target.parentElement;
        const cell = target?.closest('.jp-Cell');
        if (cell) {
          this._dirty.add(cell);
        }
      }
      this._schedule();
    });
    this._observer.observe(node, { childList: true, subtree: true });
    _panel.disposed.connect(() => this.dispose());
    void _panel.context.ready.then(() => {
      for (const cell of _panel.content.widgets) {
        this._dirty.add(cell.node);
      }
      this._schedule();
    });
  }

  dispose(): void {
    this._observer.disconnect();
    this._panel.content.node.removeEventListener(INSERT_CELL_EVENT, this._onInsert);
    this._dirty.clear();
  }

  private readonly _onInsert = (event: Event): void => {
    const detail = parseInsertDetail((event as CustomEvent).detail);
    const target = event.target instanceof Node ? event.target : null;
    if (detail === null || target === null) {
      return;
    }
    event.stopPropagation();
    const cell = this._panel.content.widgets.find(widget => widget.node.contains(target));
    if (cell !== undefined) {
      this._insertFrom(cell, detail.code);
    }
  };

  /** A code cell with `code` below `source` and below the cells already inserted from it. */
  private _insertFrom(source: Cell, code: string): void {
    const notebook = this._panel.content;
    const cells = notebook.widgets;
    let index = cells.indexOf(source);
    if (index < 0 || notebook.model === null) {
      return;
    }
    const inserted = this._insertedFrom.get(source.model.id) ?? new Set<string>();
    while (index + 1 < cells.length && inserted.has(cells[index + 1]!.model.id)) {
      index += 1;
    }
    const id = this._insertAt(index + 1, code);
    if (id !== null) {
      inserted.add(id);
      this._insertedFrom.set(source.model.id, inserted);
    }
  }

  /** Insert an unexecuted code cell at `index`, make it the active cell; its model id. */
  private _insertAt(index: number, source: string): string | null {
    const notebook = this._panel.content;
    const model = notebook.model;
    if (model === null) {
      return null;
    }
    // trusted as JupyterLab's own inserted cells are: it has no output to distrust (unmarked,
    // Notebook 7 reads "Not Trusted" until it runs)
    const metadata = { trusted: true };
    oneUndoStep(model.sharedModel, () => model.sharedModel.insertCell(index, { cell_type: 'code', source, metadata }));
    notebook.deselectAll();
    notebook.activeCellIndex = index;
    notebook.mode = 'command';
    const cell = notebook.widgets[index];
    cell?.node.scrollIntoView({ block: 'nearest' });
    return cell?.model.id ?? null;
  }

  private _schedule(): void {
    if (this._pending || this._panel.isDisposed) {
      return;
    }
    this._pending = true;
    requestAnimationFrame(() => {
      this._pending = false;
      try {
        this._decorate();
      } catch (error) {
        console.warn('dsh-notebook: could not add the cell buttons', error);
      }
    });
  }

  private _decorate(): void {
    if (this._dirty.size === 0 || this._panel.isDisposed) {
      return;
    }
    const dirty = this._dirty;
    this._dirty = new Set();
    for (const cell of this._panel.content.widgets) {
      if (dirty.has(cell.node) && cell.model.type === 'code') {
        this._decorateCell(cell as CodeCell);
      }
    }
  }

  private _decorateCell(cell: CodeCell): void {
    const outputs = cell.model.outputs;
    const children = cell.outputArea.widgets;
    for (let i = 0; i < outputs.length && i < children.length; i++) {
      const output = outputs.get(i);
      const node = children[i]!.node;
      if (output.type === 'error') {
        const count = cell.model.executionCount;
        if (typeof count === 'number' && !isDshCell(cell.model.sharedModel.getSource())) {
          const raw = output.toJSON() as { traceback?: unknown };
          const traceback = Array.isArray(raw.traceback) ? raw.traceback.filter(l => typeof l === 'string') : [];
          this._addAsk(cell, node, traceback);
        }
      } else if (isRunTranscript(output.metadata, output.data)) {
        this._addCodeButtons(cell, node);
      }
    }
  }

  private _addAsk(cell: CodeCell, node: HTMLElement, traceback: string[]): void {
    if (node.querySelector(`:scope > .${ASK_CLASS}`)) {
      return;
    }
    const id = cell.model.id;
    const ask = button(
      'Ask dsh',
      `Ask dsh about this error: a %%dsh cell below with this cell's code and traceback`,
      () => {
        const index = this._panel.content.widgets.indexOf(cell);
        if (index >= 0) {
          this._insertAt(index + 1, askSource(id, cell.model.sharedModel.getSource(), traceback));
        }
      },
      ASK_CLASS
    );
    const fix = button(
      'Fix with dsh',
      'Ask dsh to fix this cell: runs a %%dsh cell below; you review its edit as a diff before it applies',
      () => {
        const index = this._panel.content.widgets.indexOf(cell);
        if (index >= 0) {
          this._insertAt(index + 1, fixSource(id, traceback));
          const inserted = this._panel.content.widgets[index + 1];
          if (inserted instanceof CodeCell) {
            void CodeCell.execute(inserted, this._panel.sessionContext).catch(error =>
              console.warn('dsh-notebook: could not run the Fix with dsh cell', error)
            );
          }
        }
      },
      FIX_CLASS
    );
    node.append(ask, fix);
  }

  /** Insert below + Copy on the answer's Python code blocks of a settled transcript. */
  private _addCodeButtons(cell: CodeCell, node: HTMLElement): void {
    for (const pre of Array.from(node.querySelectorAll('pre'))) {
      const code = pre.querySelector('code');
      if (code === null || pre.previousElementSibling?.classList.contains(BAR_CLASS)) {
        continue;
      }
      if (!isPythonFence(fenceLanguage(code.className)) || isToolHeading(headingBefore(pre))) {
        continue;
      }
      const text = cellSource(code.textContent ?? '');
      const bar = document.createElement('div');
      bar.className = BAR_CLASS;
      const insert = button('Insert below', 'Insert this code as a new cell below', () => {
        this._insertFrom(cell, text);
        flash(insert, 'Inserted');
      }, 'dsh-nb-insert');
      const copy = button('Copy', 'Copy this code', () => {
        void navigator.clipboard?.writeText(text).then(() => flash(copy, 'Copied'), () => undefined);
      }, 'dsh-nb-copy');
      bar.append(insert, copy);
      pre.parentNode?.insertBefore(bar, pre);
    }
  }

  private readonly _observer: MutationObserver;
  private _dirty = new Set<Element>();
  private _pending = false;
  /** Source cell model id -> ids of the cells inserted below it from this page. */
  private readonly _insertedFrom = new Map<string, Set<string>>();
}

/** The text of the `**…**` paragraph right before `pre` (a tool or approval heading), or null. */
function headingBefore(pre: Element): string | null {
  const previous = pre.previousElementSibling;
  if (previous === null || previous.tagName !== 'P' || previous.firstElementChild?.tagName !== 'STRONG') {
    return null;
  }
  return previous.firstElementChild.textContent ?? '';
}
