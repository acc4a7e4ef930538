/**
 * Agent cells in one open notebook document (rules: `agentcell.ts`).
 *
 * `AgentCells.onMessage` inserts an `insert_cell` from the kernel into the notebook model (the
 * shared model: one undoable change, so JupyterLab's own undo removes it; every view and a
 * collaborator sees it). Source and outputs are data: the source is set as cell text, outputs
 * are nbformat outputs of plain text and images only (validated in `protocol.ts`), never HTML.
 * Nothing is executed. `RemoveRunButtons` (one per view) shows, under each `%%dsh` cell whose
 * run wrote agent cells, a "Remove this run's cells" button; a click deletes them in one
 * undoable change. What a page that is not connected misses is not replayed (see the kernel's
 * `send_insert_cell`): the transcript keeps the code.
 */

import type { ICellModel } from '@jupyterlab/cells';
import type { DocumentRegistry } from '@jupyterlab/docregistry';
import type { INotebookModel, NotebookPanel } from '@jupyterlab/notebook';

import { AGENT_METADATA_KEY, ICellInfo, agentCellJSON, agentOrigin, insertionIndex, newestRunCells } from './agentcell';
import type { IInsertCell } from './protocol';

export const REMOVE_BAR_CLASS = 'dsh-agent-cells-bar';
export const REMOVE_BUTTON_CLASS = 'dsh-remove-run-cells';

function infos(model: INotebookModel): ICellInfo[] {
  const out: ICellInfo[] = [];
  for (let i = 0; i < model.cells.length; i++) {
    const cell: ICellModel = model.cells.get(i);
    out.push({ id: cell.id, agent: agentOrigin(cell.getMetadata(AGENT_METADATA_KEY)) });
  }
  return out;
}

export class AgentCells {
  constructor(private readonly _context: DocumentRegistry.IContext<INotebookModel>) {}

  /** An `insert_cell` from this notebook's kernel. */
  async onMessage(message: IInsertCell): Promise<void> {
    await this._context.ready;
    if (this._context.isDisposed) {
      return;
    }
    const model = this._context.model;
    const index = insertionIndex(infos(model), message);
    if (index === null) {
      console.warn('dsh-notebook: the %%dsh cell of an agent cell is gone; not inserted');
      return;
    }
    if (index >= 0) {
      model.sharedModel.insertCell(index, agentCellJSON(message) as never);
    }
  }
}

/** The "Remove this run's cells" buttons of one view. */
export class RemoveRunButtons {
  constructor(private readonly _panel: NotebookPanel) {
    const refresh = (): void => this._schedule();
    void _panel.context.ready.then(() => {
      if (_panel.isDisposed) {
        return;
      }
      const cells = _panel.content.model?.cells;
      cells?.changed.connect(refresh);
      _panel.disposed.connect(() => cells?.changed.disconnect(refresh));
      refresh();
    });
    _panel.content.modelContentChanged.connect(refresh);
  }

  private _schedule(): void {
    if (this._pending) {
      return;
    }
    this._pending = true;
    requestAnimationFrame(() => {
      this._pending = false;
      this._refresh();
    });
  }

  private _refresh(): void {
    if (this._panel.isDisposed) {
      return;
    }
    const notebook = this._panel.content;
    const model = notebook.model;
    if (model === null) {
      return;
    }
    const cells = infos(model);
    const anchors = new Set(cells.flatMap(c => (c.agent === null ? [] : [c.agent.anchor])));
    notebook.widgets.forEach(widget => {
      const id = widget.model.id;
      const bar = widget.node.querySelector(`:scope > .${REMOVE_BAR_CLASS}`);
      if (!anchors.has(id)) {
        bar?.remove();
        return;
      }
      const count = newestRunCells(cells, id).indices.length;
      const node = bar ?? this._makeBar(id);
      const label = node.querySelector('.dsh-agent-cells-count');
      if (label !== null) {
        label.textContent = `dsh: this run wrote ${count} agent cell${count === 1 ? '' : 's'} below`;
      }
      if (bar === null) {
        widget.node.appendChild(node);
      }
    });
  }

  private _makeBar(anchorId: string): HTMLElement {
    const bar = document.createElement('div');
    bar.className = REMOVE_BAR_CLASS;
    const label = document.createElement('span');
    label.className = 'dsh-agent-cells-count';
    const button = document.createElement('button');
    button.className = `${REMOVE_BUTTON_CLASS} jp-Button`;
    button.type = 'button';
    button.textContent = "Remove this run's cells";
    button.title = 'Delete the code cells this run of the agent inserted (Undo brings them back)';
    button.addEventListener('click', event => {
      event.stopPropagation();
      this.remove(anchorId);
    });
    bar.append(label, button);
    return bar;
  }

  /** Delete the agent cells of the newest run anchored at `anchorId` (one undoable change). */
  remove(anchorId: string): void {
    const model = this._panel.isDisposed ? null : this._panel.content.model;
    if (model === null) {
      return;
    }
    const { indices } = newestRunCells(infos(model), anchorId);
    model.sharedModel.transact(() => {
      for (const index of indices) {
        model.sharedModel.deleteCell(index);
      }
    });
  }

  private _pending = false;
}
