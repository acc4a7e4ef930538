/**
 * Agent cells in one open notebook document (rules: `agentcell.ts`).
 *
 * `AgentCells.onMessage` inserts an `insert_cell` from the kernel into the notebook model (the
 * shared model: one undoable change, so JupyterLab's own undo removes it; every view and a
 * collaborator sees it). Source and outputs are data: the source is set as cell text, outputs
 * are nbformat outputs of plain text and images only (validated in `protocol.ts`), never HTML.
 * Nothing is executed. `UndoRunButtons` (one per view) shows, under each `%%dsh` cell whose
 * newest run changed the notebook (agent cells, or cells marked `edited` with that anchor), an
 * "Undo this run" button: a click asks the kernel (`undo_request`), which sends the run's ledger
 * back to be reverted as one step (`celledits.ts`); the result (reverted / skipped) is shown
 * next to the button. When the kernel does not answer within `UNDO_WAIT_MS`, has no comm (gone,
 * restarting) or has nothing to undo (a restart emptied its ledger), the button reverts the run
 * from what the notebook itself keeps (`undorecord.ts`: the edits, inserted and deleted cells, the
 * agent cells of the run, with the outputs from before) in one undoable change, and says the
 * kernel's values are not restored; a notebook without records falls back to deleting the run's
 * agent cells. What a page that is not connected misses is not replayed (see the kernel's
 * `send_insert_cell`): the transcript keeps the code.
 */

import type { ICellModel } from '@jupyterlab/cells';
import type { DocumentRegistry } from '@jupyterlab/docregistry';
import type { INotebookModel, NotebookPanel } from '@jupyterlab/notebook';

import { AGENT_METADATA_KEY, ICellInfo, agentCellJSON, agentOrigin, insertionIndex, newestRunCells } from './agentcell';
import { editMark, undoSummary } from './celledit';
import type { IInsertCell } from './protocol/kernel';
import type { IUndoReply } from './protocol/page';
import { oneUndoStep } from './undostep';

export const REMOVE_BAR_CLASS = 'dsh-agent-cells-bar';
export const REMOVE_BUTTON_CLASS = 'dsh-remove-run-cells';
export const UNDO_BUTTON_CLASS = 'dsh-undo-run';
export const UNDO_RESULT_CLASS = 'dsh-undo-result';
/** How long "Undo this run" waits for the kernel before it falls back. */
export const UNDO_WAIT_MS = 4000;
const NOTE_MS = 8000;

/** Asks the kernel to undo the newest run of `anchor`: its reply, or `null` (no answer, no kernel). */
export type UndoRequester = (anchor: string) => Promise<IUndoReply | null>;
/** Reverts run `run` from the notebook's own records (`CellEdits.undoFromNotebook`), or `null`. */
export type NotebookUndo = (run: string) => IUndoReply | null;

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
      oneUndoStep(model.sharedModel, () => {
        model.sharedModel.insertCell(index, agentCellJSON(message) as never);
        // Its outputs are what this kernel produced for the approved call in this session (text
        // and images, never agent HTML), trusted as a cell run here is: an untrusted cell with
        // rich output would keep the save from being signed and the notebook reopens "Not
        // Trusted". Marking it trusted writes its metadata: part of the same undo step.
        const cell = model.cells.get(index);
        if (cell !== undefined) {
          cell.trusted = true;
        }
      });
    }
  }
}

/** The "Undo this run" buttons of one view. */
export class UndoRunButtons {
  constructor(
    private readonly _panel: NotebookPanel,
    private readonly _request: UndoRequester,
    private readonly _fromNotebook: NotebookUndo = () => null
  ) {
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

  /** Per anchor: how many agent cells and edited cells its newest run has in the notebook. */
  private _changed(model: INotebookModel): Map<string, { agent: number; edited: number }> {
    return this._scan(model).counts;
  }

  /** Per anchor: its newest run, and how many agent cells and changed cells that run has here. */
  private _scan(model: INotebookModel): {
    runs: Map<string, string>;
    counts: Map<string, { agent: number; edited: number }>;
  } {
    const runs = new Map<string, string>();
    const cells: { anchor: string; run: string; agent: boolean }[] = [];
    for (let i = 0; i < model.cells.length; i++) {
      const meta = model.cells.get(i).getMetadata(AGENT_METADATA_KEY);
      const agent = agentOrigin(meta);
      const edited = editMark(meta);
      if (agent !== null) {
        cells.push({ anchor: agent.anchor, run: agent.run, agent: true });
      }
      if (edited?.anchor !== undefined) {
        cells.push({ anchor: edited.anchor, run: edited.run, agent: false });
      }
    }
    for (const cell of cells) {
      runs.set(cell.anchor, cell.run); // the last one in the notebook: the newest run there
    }
    const counts = new Map<string, { agent: number; edited: number }>();
    for (const cell of cells) {
      if (runs.get(cell.anchor) !== cell.run) {
        continue;
      }
      const count = counts.get(cell.anchor) ?? { agent: 0, edited: 0 };
      count[cell.agent ? 'agent' : 'edited'] += 1;
      counts.set(cell.anchor, count);
    }
    return { runs, counts };
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
    const changed = this._changed(model);
    const now = Date.now();
    notebook.widgets.forEach(widget => {
      const id = widget.model.id;
      const bar = widget.node.querySelector<HTMLElement>(`:scope > .${REMOVE_BAR_CLASS}`);
      const count = changed.get(id);
      const note = this._notes.get(id);
      const noteLive = note !== undefined && note.until > now;
      if (count === undefined && !noteLive) {
        bar?.remove();
        return;
      }
      const node = bar ?? this._makeBar(id);
      const label = node.querySelector('.dsh-agent-cells-count');
      if (label !== null) {
        label.textContent = count === undefined ? '' : describe(count);
      }
      const button = node.querySelector<HTMLButtonElement>(`.${UNDO_BUTTON_CLASS}`);
      if (button !== null) {
        button.hidden = count === undefined;
        button.disabled = this._busy.has(id);
      }
      const result = node.querySelector(`.${UNDO_RESULT_CLASS}`);
      if (result !== null) {
        result.textContent = noteLive ? note.text : '';
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
    button.className = `${REMOVE_BUTTON_CLASS} ${UNDO_BUTTON_CLASS} jp-Button`;
    button.type = 'button';
    button.textContent = 'Undo this run';
    button.title =
      "Revert every change this run of the agent made (edits, inserted and deleted cells, agent cells), skipping cells you changed since; one step, so Undo brings it back";
    button.addEventListener('click', event => {
      event.stopPropagation();
      void this.undo(anchorId);
    });
    const result = document.createElement('span');
    result.className = UNDO_RESULT_CLASS;
    result.setAttribute('role', 'status');
    bar.append(label, button, result);
    return bar;
  }

  /** Undo the newest run anchored at `anchorId`: by the kernel, else its agent cells here. */
  async undo(anchorId: string): Promise<void> {
    if (this._busy.has(anchorId)) {
      return;
    }
    this._busy.add(anchorId);
    this._schedule();
    let text: string;
    try {
      const reply = await this._request(anchorId);
      if (reply !== null && (reply.reverted > 0 || reply.skipped.length > 0)) {
        text = `Undone: ${undoSummary(reply)}.`;
      } else {
        const why =
          reply === null ? 'the kernel did not answer (restarted or busy?)' : 'the kernel has nothing to undo for this run (restarted?)';
        const model = this._panel.isDisposed ? null : this._panel.content.model;
        const run = model === null ? undefined : this._scan(model).runs.get(anchorId);
        const own = run === undefined ? null : this._fromNotebook(run);
        if (own !== null) {
          text = `Undone from what the notebook keeps: ${undoSummary(own)}. ${capital(why)}: the kernel's values are not restored.`;
        } else {
          const removed = this.remove(anchorId);
          text =
            removed > 0
              ? `${capital(why)}: removed this run's ${removed} agent cell${removed === 1 ? '' : 's'}; Undo (z) reverts edits step by step.`
              : `${capital(why)}; Undo (z) reverts edits step by step.`;
        }
      }
    } finally {
      this._busy.delete(anchorId);
    }
    this._notes.set(anchorId, { text, until: Date.now() + NOTE_MS });
    this._schedule();
    setTimeout(() => this._schedule(), NOTE_MS + 50);
  }

  /** Delete the agent cells of the newest run anchored at `anchorId` (one undoable change); how many. */
  remove(anchorId: string): number {
    const model = this._panel.isDisposed ? null : this._panel.content.model;
    if (model === null) {
      return 0;
    }
    const { indices } = newestRunCells(infos(model), anchorId);
    oneUndoStep(model.sharedModel, () =>
      model.sharedModel.transact(() => {
        for (const index of indices) {
          model.sharedModel.deleteCell(index);
        }
      })
    );
    return indices.length;
  }

  private _pending = false;
  private readonly _busy = new Set<string>();
  private readonly _notes = new Map<string, { text: string; until: number }>();
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function describe(count: { agent: number; edited: number }): string {
  const parts: string[] = [];
  if (count.agent > 0) {
    parts.push(`wrote ${count.agent} agent cell${count.agent === 1 ? '' : 's'} below`);
  }
  if (count.edited > 0) {
    parts.push(`changed ${count.edited} cell${count.edited === 1 ? '' : 's'}`);
  }
  return `dsh: this run ${parts.join(' and ')}`;
}
