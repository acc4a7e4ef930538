/**
 * Binds one open notebook document (one context, however many views): its identity (resolved on open and on every path change, see
 * `identity.ts`), the identity on its execute requests, the comm link on its kernel connection
 * (re-applied on every kernel change; a restart keeps the connection) and its waiting signal.
 *
 * While the identity is being resolved (one contents request, only when the stored path differs
 * from the file's path) execute requests carry no identity rather than a possibly wrong one.
 * Each view (panel) has its own `WaitingState`; all show the same kernel state. The outputs of
 * its dsh runs are kept readable by `RunOutputs` (a reload, a second page, a reopen without the
 * kernel).
 */

import type { ISessionContext } from '@jupyterlab/apputils';
import type { DocumentRegistry } from '@jupyterlab/docregistry';
import type { INotebookModel, NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel } from '@jupyterlab/services';
import type { JSONObject } from '@lumino/coreutils';

import { AgentCells, UNDO_WAIT_MS, UndoRunButtons } from './agentcells';
import { markEditsLinked } from './buttons';
import { CellEdits } from './celledits';
import { addIdentityToExecutes } from './executehook';
import { Lookup, resolveIdentity } from './identity';
import { isPrivateCell, readCells } from './cells';
import { linkKernel, RequestAnswers } from './link';
import { METADATA_KEY } from './protocol/constants';
import { identityMetadata, IIdentityMetadata, IStoredIdentity, parseStoredIdentity } from './protocol/identity';
import type { IReadNotebook, IWaiting } from './protocol/kernel';
import { IReadNotebookReply, IUndoReply, undoRequest } from './protocol/page';
import { RunOutputs } from './runoutputs';
import { WaitingState } from './waiting';

export class NotebookBinding {
  constructor(
    panel: NotebookPanel,
    private readonly _lookup: Lookup,
    private readonly _version: string,
    private readonly _onWaiting: () => void = () => undefined
  ) {
    const context = (this._context = panel.context);
    this._runs = new RunOutputs(context);
    this._agentCells = new AgentCells(context);
    this._edits = new CellEdits(context, () => this._panels);
    void context.ready.then(() => this._resolve(context.path));
    context.pathChanged.connect((_, path) => {
      if (context.isReady) {
        void this._resolve(path);
      }
    });
    const sessionContext = (this._sessionContext = panel.sessionContext);
    sessionContext.kernelChanged.connect((_, change) => this._attach(change.newValue));
    this._attach(sessionContext.session?.kernel ?? null);
  }

  /** Show the waiting signal on `panel` too (a view of this document); returns its state. */
  addView(panel: NotebookPanel): WaitingState {
    new UndoRunButtons(
      panel,
      anchor => this._requestUndo(anchor),
      run => this._edits.undoFromNotebook(run)
    );
    const state = new WaitingState(panel);
    state.update(this._waiting);
    this._views.add(state);
    this._panels.add(panel);
    markEditsLinked(panel, this._comm !== null && !this._comm.isDisposed);
    panel.disposed.connect(() => {
      this._views.delete(state);
      this._panels.delete(panel);
    });
    return state;
  }

  /** How many approvals and questions wait in this notebook now. */
  get waitingCount(): number {
    return this._waiting?.count ?? 0;
  }

  /** The identity to send with a request from cell `cellId`; `null` while resolving. It says
   * whether that cell is private now (one pass over the cells, only for a cell id). */
  identityFor(cellId: string | null): IIdentityMetadata | null {
    if (this._pending > 0 || this._context.isDisposed) {
      return null;
    }
    const model = this._context.model;
    const stored = parseStoredIdentity(model.getMetadata(METADATA_KEY));
    if (stored === null) {
      return null;
    }
    let isPrivate = false;
    if (cellId !== null) {
      for (let i = 0; i < model.cells.length; i++) {
        const cell = model.cells.get(i);
        if (cell.id === cellId) {
          isPrivate = isPrivateCell(cell);
          break;
        }
      }
    }
    return identityMetadata(stored, cellId, isPrivate);
  }

  private _setWaiting(waiting: IWaiting | null): void {
    this._waiting = waiting;
    for (const view of this._views) {
      view.update(waiting);
    }
    this._onWaiting();
  }

  private _attach(kernel: Kernel.IKernelConnection | null): void {
    this._setWaiting(null);
    this._setComm(null); // the new kernel's link, if it loads us, opens its own
    void this._restoreInterrupted();
    if (kernel === null) {
      return;
    }
    addIdentityToExecutes(kernel, cellId => this.identityFor(cellId));
    this._watchRestarts(kernel);
    linkKernel(kernel, {
      version: this._version,
      onWaiting: waiting => this._setWaiting(waiting),
      onRunOutput: output => void this._runs.onMessage(output),
      onInsertCell: cell => void this._agentCells.onMessage(cell),
      answers: this._answers,
      onComm: comm => this._setComm(comm)
    });
  }

  /** The comm of the kernel's link (`null`: none); Fix with dsh shows only while there is one. */
  private _setComm(comm: Kernel.IComm | null): void {
    this._comm = comm;
    for (const panel of this._panels) {
      markEditsLinked(panel, comm !== null); // only a linked page can apply the agent's edit
    }
  }

  /** This notebook's answers to the kernel's requests (`docs/cell-editing.md` for the edits). */
  private readonly _answers: RequestAnswers = {
    read_notebook: message => this._readCells(message),
    apply_change: message => this._edits.applyChange(message),
    run_cells: message => this._edits.runCells(message),
    undo_changes: message => {
      const reply = this._edits.undoChanges(message);
      const waiter = this._undoWaiters.shift();
      waiter?.(reply);
      return reply;
    }
  };

  /**
   * Ask the kernel to undo the newest run of `anchor`: the reply of the `undo_changes` it sends
   * back (the next one this page reverts), or `null` after `UNDO_WAIT_MS` or without a comm.
   */
  private _requestUndo(anchor: string): Promise<IUndoReply | null> {
    const comm = this._comm;
    if (comm === null || comm.isDisposed) {
      return Promise.resolve(null);
    }
    return new Promise(resolve => {
      const waiter = (reply: IUndoReply | null): void => {
        clearTimeout(timer);
        resolve(reply);
      };
      const timer = setTimeout(() => {
        this._undoWaiters = this._undoWaiters.filter(w => w !== waiter);
        resolve(null);
      }, UNDO_WAIT_MS);
      this._undoWaiters.push(waiter);
      try {
        comm.send(undoRequest(anchor) as unknown as JSONObject);
      } catch {
        waiter(null);
        this._undoWaiters = this._undoWaiters.filter(w => w !== waiter);
      }
    });
  }

  /** A restart keeps the connection (no kernel change): once the new kernel is up, run widgets
   * of the old one read "interrupted" with what this page had of their transcript. */
  private _watchRestarts(kernel: Kernel.IKernelConnection): void {
    if (this._watched.has(kernel)) {
      return;
    }
    this._watched.add(kernel);
    let restarting = false;
    kernel.statusChanged.connect((_, status) => {
      if (status === 'restarting' || status === 'autorestarting') {
        restarting = true;
      } else if (restarting && status === 'idle') {
        restarting = false;
        void this._runs.restoreInterrupted(kernel).catch(error =>
          console.error('dsh-notebook: could not restore interrupted runs', error)
        );
      }
    });
  }

  /** The notebook's cells for the kernel's `read_notebook` (the model as shown, unsaved edits). */
  private _readCells(message: IReadNotebook): IReadNotebookReply | null {
    if (this._context.isDisposed) {
      return null;
    }
    let selected: string | null = null;
    for (const panel of this._panels) {
      selected = panel.content.activeCell?.model.id ?? null;
      if (panel.content.node.contains(document.activeElement) || panel.isVisible) {
        break; // prefer the view the person looks at
      }
    }
    return readCells(message.request_id, this._context.path, this._context.model, selected, message);
  }

  /** Once the session has its kernel (or none): run widgets of models it lacks read "interrupted". */
  private async _restoreInterrupted(): Promise<void> {
    try {
      await this._sessionContext.ready;
      await this._runs.restoreInterrupted(this._sessionContext.session?.kernel ?? null);
    } catch (error) {
      console.error('dsh-notebook: could not restore interrupted runs', error);
    }
  }

  private async _resolve(path: string): Promise<void> {
    this._pending += 1;
    try {
      const model = this._context.model;
      const resolution = await resolveIdentity(model.getMetadata(METADATA_KEY), path, this._lookup);
      if (resolution.verdict !== 'kept' && !this._context.isDisposed) {
        // The identity alone is not the person's change: a notebook that was clean stays clean
        // (it opens unmodified); the id reaches the file with their next save. Until then a
        // reopen resolves it again, and nothing of a conversation exists before a cell runs,
        // which makes the document dirty.
        const clean = !model.dirty;
        model.setMetadata(METADATA_KEY, { ...resolution.identity } satisfies IStoredIdentity);
        if (clean) {
          model.dirty = false;
        }
      }
    } catch (error) {
      console.error('dsh-notebook: could not resolve the notebook identity', error);
    } finally {
      this._pending -= 1;
    }
  }

  private readonly _context: DocumentRegistry.IContext<INotebookModel>;
  private readonly _runs: RunOutputs;
  private readonly _agentCells: AgentCells;
  private readonly _edits: CellEdits;
  private _comm: Kernel.IComm | null = null;
  private _undoWaiters: ((reply: IUndoReply | null) => void)[] = [];
  private readonly _sessionContext: ISessionContext;
  private readonly _views = new Set<WaitingState>();
  private readonly _panels = new Set<NotebookPanel>();
  private _waiting: IWaiting | null = null;
  private readonly _watched = new WeakSet<Kernel.IKernelConnection>();
  private _pending = 0;
}
