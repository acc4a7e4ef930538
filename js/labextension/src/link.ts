/**
 * The frontend's end of the `dsh_notebook.frontend` comm, on one kernel connection.
 *
 * Registers the comm target (the registry lives on the connection object, so it survives kernel
 * restarts) and answers the kernel's `hello` with `hello_reply`. After a page reload the kernel's
 * comm is still open but unknown to this page: `comm_info_request` finds it and the link adopts
 * it and answers `hello_reply` again, so the kernel re-sends its state. `waiting` messages go to
 * `onWaiting`, `run_output` messages to `onRunOutput`, `insert_cell` to `onInsertCell`,
 * `apply_change` / `run_cells` / `undo_changes` to `edits` (answered on the same comm); a closed comm, a restart or a dead kernel
 * report `null` to `onWaiting` (nothing waits).
 * Unknown and malformed messages are ignored, never thrown.
 */

import type { Kernel, KernelMessage } from '@jupyterlab/services';
import type { JSONObject } from '@lumino/coreutils';

import {
  COMM_TARGET,
  IApplyChange,
  IApplyChangeReply,
  IInsertCell,
  IRunCells,
  IRunCellsReply,
  IUndoChanges,
  IUndoReply,
  IReadNotebookReply,
  IRunOutput,
  IWaiting,
  helloReply,
  parseKernelMessage,
  subshellReady
} from './protocol';
import { preloadWidgetBundle } from './preload';

export type WaitingListener = (waiting: IWaiting | null) => void;
export type RunOutputListener = (output: IRunOutput) => void;
export type InsertCellListener = (message: IInsertCell) => void;
/** Answers `read_notebook`: the reply for that request id (see `cells.ts`). */
export type NotebookReader = (requestId: string) => IReadNotebookReply | null;

/**
 * The editing side of the link (`docs/cell-editing.md`): each handler answers its request (a
 * `null` answer sends nothing); `onComm` gets the comm the page may send on (`undo_request`),
 * and `null` when it closed or the kernel restarted or died.
 */
export interface IEditHandlers {
  applyChange(message: IApplyChange): IApplyChangeReply | null;
  runCells(message: IRunCells): Promise<IRunCellsReply | null>;
  undoChanges(message: IUndoChanges): IUndoReply | null;
  onComm(comm: Kernel.IComm | null): void;
}

const linked = new WeakSet<Kernel.IKernelConnection>();

export function linkKernel(
  kernel: Kernel.IKernelConnection,
  version: string,
  onWaiting: WaitingListener,
  onRunOutput: RunOutputListener = () => undefined,
  onInsertCell: InsertCellListener = () => undefined,
  onReadNotebook: NotebookReader = () => null,
  edits: IEditHandlers | null = null
): void {
  if (linked.has(kernel)) {
    return;
  }
  linked.add(kernel);
  const reply = helloReply(version) as unknown as JSONObject;

  const wire = (comm: Kernel.IComm): void => {
    comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => {
      const message = parseKernelMessage(msg.content.data);
      if (message?.type === 'waiting') {
        onWaiting(message);
      } else if (message?.type === 'run_output') {
        onRunOutput(message);
      } else if (message?.type === 'insert_cell') {
        onInsertCell(message);
      } else if (message?.type === 'read_notebook') {
        answerRead(comm, message.request_id, onReadNotebook);
      } else if (message?.type === 'apply_change') {
        answer(comm, () => edits?.applyChange(message) ?? null);
      } else if (message?.type === 'undo_changes') {
        answer(comm, () => edits?.undoChanges(message) ?? null);
      } else if (message?.type === 'run_cells' && edits !== null) {
        edits
          .runCells(message)
          .then(done => answer(comm, () => done))
          .catch(error => console.error('dsh-notebook: could not run the cells', error));
      } else if (message?.type === 'hello') {
        comm.send(reply);
      }
    };
    comm.onClose = () => {
      onWaiting(null);
      edits?.onComm(null);
    };
    edits?.onComm(comm);
    announceSubshell(comm);
    preloadWidgetBundle(); // this kernel loaded dsh_notebook: its run widgets will need it
  };

  kernel.registerCommTarget(COMM_TARGET, (comm, msg) => {
    wire(comm);
    if (parseKernelMessage(msg.content.data)?.type === 'hello') {
      comm.send(reply);
    }
  });

  kernel.statusChanged.connect((_, status) => {
    if (status === 'restarting' || status === 'autorestarting' || status === 'dead') {
      onWaiting(null);
      edits?.onComm(null);
    }
  });

  void adoptOpenComms(kernel, wire, reply);
}

/**
 * JupyterLab 4.4+ gives each comm target a kernel subshell, started after the comm opened (so the
 * first `hello_reply` goes before it): once it runs, say so, so the kernel knows this page's
 * replies are handled while a cell runs. Older frontends have no `subshellStarted`: nothing sent.
 */
export function announceSubshell(comm: Kernel.IComm): void {
  const started = (comm as { subshellStarted?: Promise<void> }).subshellStarted;
  if (started === undefined || typeof started.then !== 'function') {
    return;
  }
  started
    .then(() => {
      if (!comm.isDisposed && (comm as { subshellId?: string | null }).subshellId) {
        comm.send(subshellReady() as unknown as JSONObject);
      }
    })
    .catch(() => undefined); // no subshell (creation failed): the main shell, as before
}

function answer(comm: Kernel.IComm, make: () => object | null): void {
  try {
    const message = make();
    if (message !== null && !comm.isDisposed) {
      comm.send(message as unknown as JSONObject);
    }
  } catch (error) {
    console.error('dsh-notebook: could not answer the kernel', error);
  }
}

function answerRead(comm: Kernel.IComm, requestId: string, read: NotebookReader): void {
  try {
    const cells = read(requestId);
    if (cells !== null) {
      comm.send(cells as unknown as JSONObject);
    }
  } catch (error) {
    console.error('dsh-notebook: could not read the notebook for the kernel', error);
  }
}

async function adoptOpenComms(
  kernel: Kernel.IKernelConnection,
  wire: (comm: Kernel.IComm) => void,
  reply: JSONObject
): Promise<void> {
  try {
    const info = await kernel.requestCommInfo({ target_name: COMM_TARGET });
    if (info.content.status !== 'ok') {
      return;
    }
    for (const [commId, { target_name }] of Object.entries(info.content.comms)) {
      if (target_name !== COMM_TARGET || kernel.hasComm(commId)) {
        continue;
      }
      const comm = kernel.createComm(COMM_TARGET, commId);
      wire(comm);
      comm.send(reply);
    }
  } catch (error) {
    console.debug('dsh-notebook: no open comms to adopt', error);
  }
}
