/**
 * The kernel's approved changes and runs, applied to one open notebook document (rules:
 * `celledit.ts`, `runcells.ts`).
 *
 * Everything goes through the notebook's shared model, so every view and a collaborator see it and
 * JupyterLab's own undo (`z`) reverts a change as one step. A changed or new cell is highlighted
 * for ~2 s in every view (class `dsh-agent-edited`). `run` executes cells as the person's Run All
 * does (`CodeCell.execute` in a view of this document, all queued at once, the kernel's
 * stop-on-error); it never interrupts the kernel. Handlers run on the page's main thread and never
 * throw (a failure becomes the reply's `failed` / `error`).
 */

import { CodeCell, MarkdownCell } from '@jupyterlab/cells';
import type { ISharedCell, ISharedCodeCell } from '@jupyter/ydoc';
import type { DocumentRegistry } from '@jupyterlab/docregistry';
import type { INotebookModel, NotebookPanel } from '@jupyterlab/notebook';

import { AGENT_METADATA_KEY, agentOrigin } from './agentcell';
import { EditMark, ICellStore, INewCell, IStoreCell, applyChange, editMark, findCell, undoChanges } from './celledit';
import type { IApplyChange, IRunCells, IUndoChanges } from './protocol/kernel';
import type { IApplyChangeReply, IRunCellsReply, IUndoReply } from './protocol/page';
import { ExecutionEnd, IRunTarget, collectRun } from './runcells';
import { IKeptOutputs, UNDO_KEY, UndoRecord, readRecords, undoFromRecords } from './undorecord';
import { oneUndoStep } from './undostep';

export const EDITED_CLASS = 'dsh-agent-edited';
const HIGHLIGHT_MS = 2000;

/**
 * The notebook's shared model as a `celledit.ts` store. The notebook's cell lists (`model.cells`,
 * `sharedModel.cells`) follow the document only when a transaction ends, so this store keeps its
 * own list of the shared cells, taken when it is made and changed with every insert and delete:
 * indices stay right inside one `transact`. Make one store per message.
 */
export class NotebookStore implements ICellStore {
  constructor(private readonly _model: INotebookModel) {
    this._cells = [..._model.sharedModel.cells];
  }

  cells(): IStoreCell[] {
    return this._cells.map(cell => {
      const meta = cell.getMetadata(AGENT_METADATA_KEY);
      const agent = agentOrigin(meta);
      const count = cell.cell_type === 'code' ? (cell as ISharedCodeCell).execution_count : null;
      return {
        id: cell.getId(),
        source: cell.getSource(),
        edited: editMark(meta),
        agent: agent === null ? null : { run: agent.run, call: agent.call },
        records: readRecords(meta),
        execution_count: typeof count === 'number' ? count : null,
        cell_type: cell.cell_type === 'markdown' || cell.cell_type === 'raw' ? cell.cell_type : 'code'
      };
    });
  }

  outputs(index: number): { execution_count: number | null; outputs: unknown[] } {
    const cell = this._cell(index);
    if (cell.cell_type !== 'code') {
      return { execution_count: null, outputs: [] };
    }
    const code = cell as ISharedCodeCell;
    const count = code.execution_count;
    return { execution_count: typeof count === 'number' ? count : null, outputs: [...code.getOutputs()] };
  }

  setOutputs(index: number, kept: IKeptOutputs): void {
    const cell = this._cell(index);
    if (cell.cell_type !== 'code') {
      return;
    }
    const code = cell as ISharedCodeCell;
    code.setOutputs((kept.outputs ?? []) as never);
    code.execution_count = kept.execution_count;
  }

  setRecords(index: number, records: UndoRecord[]): void {
    this._setMeta(index, UNDO_KEY, records.length === 0 ? null : records);
  }

  transact(f: () => void): void {
    const shared = this._model.sharedModel;
    oneUndoStep(shared, () => shared.transact(f));
  }

  setSource(index: number, source: string): void {
    this._cell(index).setSource(source);
  }

  insert(index: number, cell: INewCell): string {
    const own: Record<string, unknown> = {};
    if (cell.edited !== undefined) {
      own.edited = { ...cell.edited };
    }
    if (cell.records !== undefined && cell.records.length > 0) {
      own[UNDO_KEY] = cell.records;
    }
    const metadata: Record<string, unknown> = Object.keys(own).length === 0 ? {} : { [AGENT_METADATA_KEY]: own };
    if (cell.cell_type === 'code' && (cell.outputs?.outputs ?? []).length === 0) {
      // A code cell with no output has nothing to distrust (Jupyter's rule), and JupyterLab
      // marks the empty cells it inserts so: unmarked, Notebook 7 reads "Not Trusted" and the
      // save is not signed. A deleted cell put back with its outputs stays unmarked.
      metadata.trusted = true;
    }
    const json: Record<string, unknown> = { cell_type: cell.cell_type, source: cell.source, metadata };
    if (cell.id !== undefined) {
      json.id = cell.id;
    }
    if (cell.cell_type === 'code' && cell.outputs !== undefined) {
      json.outputs = cell.outputs.outputs ?? [];
      json.execution_count = cell.outputs.execution_count;
    }
    const created = this._model.sharedModel.insertCell(index, json as never);
    this._cells.splice(index, 0, created);
    return created.getId();
  }

  remove(index: number): void {
    this._cell(index);
    this._model.sharedModel.deleteCell(index);
    this._cells.splice(index, 1);
  }

  mark(index: number, mark: EditMark | null): void {
    this._setMeta(index, 'edited', mark === null ? null : { ...mark });
  }

  /** Sets (`null`: drops) one key of the cell's `dsh_notebook` metadata. */
  private _setMeta(index: number, key: string, item: unknown): void {
    const cell = this._cell(index);
    const current = cell.getMetadata(AGENT_METADATA_KEY);
    const value: Record<string, unknown> =
      typeof current === 'object' && current !== null && !Array.isArray(current) ? { ...current } : {};
    if (item === null) {
      delete value[key];
    } else {
      value[key] = item;
    }
    if (Object.keys(value).length === 0) {
      cell.deleteMetadata(AGENT_METADATA_KEY);
    } else {
      cell.setMetadata(AGENT_METADATA_KEY, value as never);
    }
  }

  private _cell(index: number): ISharedCell {
    const cell = this._cells[index];
    if (cell === undefined) {
      throw new Error(`no cell at ${index}`);
    }
    return cell;
  }

  private readonly _cells: ISharedCell[];
}

/** Highlight the cell `id` for a moment in `panel` (a view of its notebook). */
export function flashCell(panel: NotebookPanel, id: string): void {
  const widget = panel.content.widgets.find(w => w.model.id === id);
  if (widget === undefined) {
    return;
  }
  widget.node.classList.remove(EDITED_CLASS);
  void widget.node.offsetWidth; // restart the animation
  widget.node.classList.add(EDITED_CLASS);
  setTimeout(() => widget.node.classList.remove(EDITED_CLASS), HIGHLIGHT_MS);
}

export class CellEdits {
  constructor(
    private readonly _context: DocumentRegistry.IContext<INotebookModel>,
    private readonly _panels: () => Iterable<NotebookPanel>
  ) {}

  applyChange(message: IApplyChange): IApplyChangeReply {
    if (!this._context.isReady || this._context.isDisposed) {
      return {
        v: 1,
        type: 'apply_change_reply',
        request_id: message.request_id,
        status: 'failed',
        cell_id: null,
        index: null,
        source: null,
        message: 'the notebook is not open on this page'
      };
    }
    const reply = applyChange(new NotebookStore(this._context.model), message);
    if (reply.status === 'applied' && reply.cell_id !== null && message.change.kind !== 'delete') {
      this._flash(reply.cell_id);
    }
    return reply;
  }

  undoChanges(message: IUndoChanges): IUndoReply {
    if (!this._context.isReady || this._context.isDisposed) {
      return { v: 1, type: 'undo_reply', request_id: message.request_id, reverted: 0, skipped: [] };
    }
    return undoChanges(new NotebookStore(this._context.model), message);
  }

  /**
   * Revert run `run` from what the notebook itself keeps (its undo records, and the run's agent
   * cells), without the kernel: one step; the reply, or `null` when the notebook keeps no record
   * of that run (then only agent cells can be removed: `UndoRunButtons.remove`).
   */
  undoFromNotebook(run: string): IUndoReply | null {
    if (!this._context.isReady || this._context.isDisposed) {
      return null;
    }
    const store = new NotebookStore(this._context.model);
    const cells = store.cells();
    const request = undoFromRecords(cells, run);
    if (request.changes.length === 0) {
      return null; // agent cells only: the caller removes them as before, and says so
    }
    for (let i = cells.length - 1; i >= 0; i--) {
      const agent = cells[i]?.agent;
      if (agent?.run === run) {
        request.changes.push({ kind: 'agent_cell', run, call: agent.call, source: cells[i]?.source ?? '' });
      }
    }
    return undoChanges(store, request);
  }

  /** Run the cells of `message` in a view of this notebook; the reply (see `runcells.ts`). */
  async runCells(message: IRunCells): Promise<IRunCellsReply> {
    const panel = this._panel();
    const targets: (IRunTarget | null)[] = [];
    if (panel === null) {
      return collectRun(message, message.cell_ids.map(() => null));
    }
    const notebook = panel.content;
    const infos = new NotebookStore(this._context.model).cells();
    for (const id of message.cell_ids) {
      const index = findCell(infos, id);
      const widget = index >= 0 ? notebook.widgets[index] : undefined;
      if (widget === undefined) {
        targets.push(null);
        continue;
      }
      targets.push(this._start(panel, widget, index));
    }
    return collectRun(message, targets);
  }

  private _start(panel: NotebookPanel, widget: NotebookPanel['content']['widgets'][number], index: number): IRunTarget {
    const model = widget.model;
    const snapshot = (): { execution_count: number | null; outputs: unknown[] } => {
      if (!(widget instanceof CodeCell)) {
        return { execution_count: null, outputs: [] };
      }
      const area = widget.model.outputs;
      const outputs: unknown[] = [];
      for (let i = 0; i < area.length; i++) {
        outputs.push(area.get(i).toJSON());
      }
      const count = widget.model.executionCount;
      return { execution_count: typeof count === 'number' ? count : null, outputs };
    };
    let done: Promise<ExecutionEnd>;
    if (widget instanceof CodeCell) {
      done = CodeCell.execute(widget, panel.sessionContext).then(reply => {
        const status = reply?.content.status;
        return status === 'error' ? 'error' : status === 'aborted' ? 'aborted' : 'ok';
      });
    } else {
      if (widget instanceof MarkdownCell) {
        widget.rendered = true;
      }
      done = Promise.resolve('ok');
    }
    return { id: model.id, index, done, snapshot };
  }

  /** The view to run in: the one the person looks at, else any. */
  private _panel(): NotebookPanel | null {
    let found: NotebookPanel | null = null;
    for (const panel of this._panels()) {
      if (panel.isDisposed) {
        continue;
      }
      found ??= panel;
      if (panel.isVisible) {
        return panel;
      }
    }
    return found;
  }

  private _flash(id: string): void {
    requestAnimationFrame(() => {
      for (const panel of this._panels()) {
        if (!panel.isDisposed) {
          flashCell(panel, id);
        }
      }
    });
  }
}
