/**
 * A `%%dsh` cell's run is never put in a scrolled box (Notebook 7).
 *
 * Notebook 7's scroll-output plugin (`@jupyter-notebook/notebook-extension:scroll-output`,
 * setting `autoScrollOutputs`, on by default) puts a code cell whose outputs are taller than 100
 * lines (1.3 × the font size × 100, ~1,820 px) in a box about 300 px high that scrolls on its own
 * (class `jp-mod-outputsScrolled` on the cell), whenever the cell's outputs change and when the
 * notebook opens, unless the cell's metadata says `scrolled`. A run's transcript ends with what
 * the person has to see: the card waiting for their decision and the run's summary; in the box
 * they sit below its fold, a scroller inside the page's scroller.
 *
 * So on a `%%dsh` cell whose outputs JupyterLab itself does not scroll (`outputsScrolled`, the
 * person's own toggle) and whose metadata does not say `scrolled`, the class is taken off as soon
 * as it is put on (a `MutationObserver` on each code cell's class, whose callback runs before the
 * next paint: the box never shows). The transcript keeps its full height in the page, which
 * scrolls as for any tall output; nothing is scrolled, and neither the notebook nor its metadata
 * change. In JupyterLab (no such plugin) nothing ever happens. Never throws.
 */

import { CodeCell } from '@jupyterlab/cells';
import type { NotebookPanel } from '@jupyterlab/notebook';

import { isPromptSource } from './runoutput';

/** The class Notebook 7's plugin (and JupyterLab's own toggle) puts on a cell to box its outputs. */
export const SCROLLED_CLASS = 'jp-mod-outputsScrolled';

/** Whether a cell of `source`, whose `scrolled` metadata is `scrolled`, keeps its outputs unboxed. */
export function keepsUnboxed(source: string, scrolled: unknown): boolean {
  return scrolled === undefined && isPromptSource(source);
}

/** Keeps the `%%dsh` cells of one notebook panel unboxed (see the module docstring). */
export class RunsUnboxed {
  constructor(panel: NotebookPanel) {
    this._panel = panel;
    this._observer = new MutationObserver(records => {
      for (const record of records) {
        const cell = this._cells.get(record.target);
        if (cell !== undefined) {
          this._unbox(cell);
        }
      }
    });
    const watch = (): void => this._watchAll();
    void panel.context.ready.then(() => {
      if (panel.isDisposed) {
        return;
      }
      panel.content.model?.cells.changed.connect(watch);
      watch();
    });
    panel.disposed.connect(() => {
      this._observer.disconnect();
      panel.content.model?.cells.changed.disconnect(watch);
    });
  }

  private _watchAll(): void {
    try {
      for (const cell of this._panel.content.widgets) {
        if (cell instanceof CodeCell && !this._cells.has(cell.node)) {
          this._cells.set(cell.node, cell);
          this._observer.observe(cell.node, { attributes: true, attributeFilter: ['class'] });
          this._unbox(cell);
        }
      }
    } catch (error) {
      console.warn('dsh-notebook: could not watch the cells for boxed outputs', error);
    }
  }

  private _unbox(cell: CodeCell): void {
    try {
      if (cell.isDisposed || !cell.node.classList.contains(SCROLLED_CLASS) || cell.outputsScrolled) {
        return;
      }
      if (keepsUnboxed(cell.model.sharedModel.getSource(), cell.model.getMetadata('scrolled'))) {
        cell.node.classList.remove(SCROLLED_CLASS);
      }
    } catch (error) {
      console.warn('dsh-notebook: could not unbox a run', error);
    }
  }

  private readonly _panel: NotebookPanel;
  private readonly _observer: MutationObserver;
  private readonly _cells = new WeakMap<Node, CodeCell>();
}
