/**
 * The outputs of dsh runs in one open notebook document (see `runoutput.ts` for the rules).
 *
 * - `run_output` settled: the run's widget output (in the cell that started it, else anywhere)
 *   becomes the static transcript. A page that still knows the output's display_id has had it
 *   replaced by `update_display_data` already (then nothing is found: a no-op); a reloaded or a
 *   second page has not, and without this would keep a closed widget.
 * - `run_output` live: the latest transcript per run is kept, and the document's `toJSON` (what
 *   a save writes, autosave included) adds it to each still-live run widget. Only the saved copy
 *   changes: the widget on the page is not touched, so it is not re-rendered (the widget
 *   renderer's `renderModel` would add a second view of the same model to the output).
 * - on open, on every kernel change and after a kernel restart: a run widget whose model the
 *   kernel does not have (a new kernel after the old one was shut down, a restarted one, or no
 *   kernel) becomes its saved transcript (or the latest live one this page received), marked
 *   interrupted, never "Error displaying widget: model not found".
 * - `run_output` replayed (sent again in answer to this page's hello): when no output of that run
 *   is in the notebook and its `%%dsh` cell has no outputs at all (the page was reloaded before
 *   the run's output was ever saved), the run is put back there: its live widget while it runs,
 *   else its transcript. A cell the person cleared in this page is never refilled: only replays
 *   (once per hello) do this, and only into an empty prompt cell.
 */

import type { ICodeCellModel } from '@jupyterlab/cells';
import type { DocumentRegistry } from '@jupyterlab/docregistry';
import type { INotebookModel } from '@jupyterlab/notebook';
import type { Kernel } from '@jupyterlab/services';

import type { IRunBundle, IRunOutput } from './protocol/kernel';
import {
  IOutputJSON,
  interruptedOutput,
  isPromptSource,
  restartedOutput,
  isRunWidget,
  notebookForSave,
  showsRun,
  staticRunOutput,
  widgetModelId,
  widgetRunOutput
} from './runoutput';

const WIDGET_TARGET = 'jupyter.widget';
/** How long a collaborative page waits for the running page's own replacement (ms). */
const COLLABORATIVE_GRACE_MS = 1500;

export class RunOutputs {
  constructor(private readonly _context: DocumentRegistry.IContext<INotebookModel>) {
    const model = _context.model;
    const toJSON = model.toJSON.bind(model);
    model.toJSON = () => notebookForSave(toJSON(), this._live);
  }

  /** A `run_output` from this notebook's kernel. */
  async onMessage(message: IRunOutput): Promise<void> {
    if (message.state === 'live') {
      this._live.set(message.model_id, message.bundle);
      if (message.replay === true) {
        await this._context.ready;
        if (!this._shown(message.model_id)) {
          this._restore(message.cell_id, widgetRunOutput(message.model_id, message.bundle));
        }
      }
      return;
    }
    this._live.delete(message.model_id);
    await this._context.ready;
    if (this._context.model.collaborative) {
      // Real-time collaboration: the page that ran the cell replaces this output through its
      // display_id at the same moment, and two concurrent replacements of one shared output
      // merge into two outputs. Let that edit arrive first; replace only if it did not.
      await new Promise(resolve => setTimeout(resolve, COLLABORATIVE_GRACE_MS));
    }
    const replaced = this._replace(message.cell_id, message.model_id, message.bundle);
    if (!replaced && message.replay === true) {
      this._restore(message.cell_id, staticRunOutput(message.bundle, message.model_id, false));
    }
  }

  /** Turn run widgets whose model `kernel` does not have into their interrupted transcript. */
  async restoreInterrupted(kernel: Kernel.IKernelConnection | null): Promise<void> {
    await this._context.ready;
    if (!this._anyRunWidget()) {
      return;
    }
    let alive = new Set<string>();
    if (kernel !== null) {
      try {
        const info = await kernel.requestCommInfo({ target_name: WIDGET_TARGET });
        if (info.content.status !== 'ok') {
          return;
        }
        alive = new Set(Object.keys(info.content.comms));
      } catch (error) {
        console.debug('dsh-notebook: cannot list the kernel widgets', error);
        return;
      }
    }
    this._each((output, set) => {
      const modelId = widgetModelId(output);
      if (modelId === null || alive.has(modelId) || !isRunWidget(output)) {
        return;
      }
      const live = this._live.get(modelId);
      // a live transcript received by this page: the run was going on here when its kernel
      // restarted or changed; otherwise what was saved (a reopen)
      const replacement = live !== undefined ? restartedOutput(output, live) : interruptedOutput(output);
      if (replacement !== null) {
        set(replacement);
      }
    });
  }

  private _anyRunWidget(): boolean {
    let found = false;
    this._each(output => {
      found = found || isRunWidget(output);
    });
    return found;
  }

  /** Whether any output of the notebook shows run `modelId` (its widget or a static transcript). */
  private _shown(modelId: string): boolean {
    let found = false;
    this._each(output => {
      const meta = output.metadata?.dsh_notebook;
      const marked = typeof meta === 'object' && meta !== null && (meta as Record<string, unknown>).model_id === modelId;
      found = found || marked || widgetModelId(output) === modelId;
    });
    return found;
  }

  /** Put `output` into prompt cell `cellId` when that cell has no outputs at all. */
  private _restore(cellId: string | null, output: IOutputJSON): void {
    if (cellId === null || this._context.isDisposed) {
      return;
    }
    const cells = this._context.model.cells;
    for (let i = 0; i < cells.length; i++) {
      const cell = cells.get(i);
      if (cell.id !== cellId || cell.type !== 'code') {
        continue;
      }
      const outputs = (cell as ICodeCellModel).outputs;
      if (outputs.length === 0 && isPromptSource(cell.sharedModel.getSource())) {
        // An output the page adds is untrusted unless the cell is: the widget renderer (not
        // "safe") would fall back to text/plain. The cell is empty and this output holds only
        // the widget reference and plain text, as the kernel would have displayed it.
        cell.trusted = true;
        outputs.add(output as unknown as Parameters<typeof outputs.add>[0]);
      }
      return;
    }
  }

  /** The run's output (in cell `cellId` first) becomes the static transcript; whether one did. */
  private _replace(cellId: string | null, modelId: string, bundle: IRunBundle): boolean {
    const replacement = staticRunOutput(bundle, modelId, false);
    let done = false;
    const visit = (output: IOutputJSON, set: (value: IOutputJSON) => void): void => {
      if (showsRun(output, modelId)) {
        set(replacement);
        done = true;
      }
    };
    if (cellId !== null) {
      this._each(visit, cellId);
    }
    if (!done) {
      this._each(visit);
    }
    return done;
  }

  /** `visit` every output (of cell `cellId` only, when given); `set` replaces that output. */
  private _each(visit: (output: IOutputJSON, set: (value: IOutputJSON) => void) => void, cellId?: string): void {
    if (this._context.isDisposed) {
      return;
    }
    const cells = this._context.model.cells;
    for (let i = 0; i < cells.length; i++) {
      const cell = cells.get(i);
      if (cell.type !== 'code' || (cellId !== undefined && cell.id !== cellId)) {
        continue;
      }
      const outputs = (cell as ICodeCellModel).outputs;
      for (let j = 0; j < outputs.length; j++) {
        const output = outputs.get(j).toJSON() as unknown as IOutputJSON;
        visit(output, value => outputs.set(j, value as unknown as Parameters<typeof outputs.set>[1]));
      }
    }
  }

  private readonly _live = new Map<string, IRunBundle>();
}
