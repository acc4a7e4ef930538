/**
 * The frontend's end of the `dsh_notebook.frontend` comm, on one kernel connection.
 *
 * Registers the comm target (the registry lives on the connection object, so it survives kernel
 * restarts) and answers the kernel's `hello` with `hello_reply`. After a page reload the kernel's
 * comm is still open but unknown to this page: `comm_info_request` finds it and the link adopts
 * it and answers `hello_reply` again, so the kernel re-sends its state.
 *
 * Each kernel message goes by its type to exactly one handler (`handlers`, one entry per message
 * of `protocol/kernel.ts`): the notices to `ILinkOptions`' listeners; the requests
 * (`read_notebook`, `apply_change`, `run_cells`, `undo_changes`) all take one path, `answer`: the
 * page's answer for that type (`ILinkOptions.answers`) makes the reply, sent on the same comm
 * (a `null` reply, or no answer for that type, sends nothing). A closed comm, a restart or a dead
 * kernel report `null` to `onWaiting` (nothing waits) and to `onComm`.
 * Unknown and malformed messages are ignored; a failing listener or answer is logged, never thrown.
 */

import type { Kernel, KernelMessage } from '@jupyterlab/services';
import type { JSONObject } from '@lumino/coreutils';

import { COMM_TARGET } from './protocol/constants';
import type {
  IInsertCell,
  IRunOutput,
  IWaiting,
  KernelMessage as ProtocolMessage,
  KernelMessageOf,
  KernelRequest
} from './protocol/kernel';
import { helloReply, IReplies, PageMessage, subshellReady } from './protocol/page';
import { parseKernelMessage } from './protocol/parse';
import { preloadWidgetBundle } from './preload';

/** The page's answer to each kernel request, by its type: the reply, or `null` to send none. */
export type RequestAnswers = {
  readonly [T in KernelRequest['type']]: (
    message: KernelMessageOf<T>
  ) => IReplies[T] | null | Promise<IReplies[T] | null>;
};

/** What one link needs: the version it announces, its listeners and the page's answers. */
export interface ILinkOptions {
  /** Sent in `hello_reply`. */
  readonly version: string;
  /** Each `waiting`; `null` when nothing waits (the comm closed, the kernel restarts or died). */
  readonly onWaiting: (waiting: IWaiting | null) => void;
  readonly onRunOutput?: (output: IRunOutput) => void;
  readonly onInsertCell?: (message: IInsertCell) => void;
  /** The page's answers to the kernel's requests; a request without one is not answered. */
  readonly answers?: Partial<RequestAnswers>;
  /**
   * The comm the page may send on (`undo_request`), and `null` when it closed or the kernel
   * restarted or died.
   */
  readonly onComm?: (comm: Kernel.IComm | null) => void;
}

type Handlers = {
  readonly [T in ProtocolMessage['type']]: (message: KernelMessageOf<T>, comm: Kernel.IComm) => void;
};

const linked = new WeakSet<Kernel.IKernelConnection>();

/** Link `kernel` (once per connection object; a second call does nothing). */
export function linkKernel(kernel: Kernel.IKernelConnection, options: ILinkOptions): void {
  if (linked.has(kernel)) {
    return;
  }
  linked.add(kernel);
  const reply = helloReply(options.version) as unknown as JSONObject;
  const { answers = {} } = options;
  const request =
    <T extends KernelRequest['type']>(type: T) =>
    (message: KernelMessageOf<T>, comm: Kernel.IComm): void => {
      const made = answers[type];
      if (made !== undefined) {
        answer(comm, type, () => made(message));
      }
    };
  const handlers: Handlers = {
    hello: (_, comm) => comm.send(reply),
    waiting: message => options.onWaiting(message),
    run_output: message => options.onRunOutput?.(message),
    insert_cell: message => options.onInsertCell?.(message),
    read_notebook: request('read_notebook'),
    apply_change: request('apply_change'),
    run_cells: request('run_cells'),
    undo_changes: request('undo_changes')
  };
  const closed = (): void => {
    options.onWaiting(null);
    options.onComm?.(null);
  };

  const wire = (comm: Kernel.IComm): void => {
    comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => {
      const message = parseKernelMessage(msg.content.data);
      if (message !== null) {
        dispatch(handlers, message, comm);
      }
    };
    comm.onClose = closed;
    options.onComm?.(comm);
    announceSubshell(comm, reply);
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
      closed();
    }
  });

  void adoptOpenComms(kernel, wire, reply);
}

/** Hand `message` to the one handler of its type (the table is keyed by type, so they match). */
function dispatch(handlers: Handlers, message: ProtocolMessage, comm: Kernel.IComm): void {
  try {
    (handlers[message.type] as (message: ProtocolMessage, comm: Kernel.IComm) => void)(message, comm);
  } catch (error) {
    console.error(`dsh-notebook: could not handle the kernel's ${message.type}`, error);
  }
}

/**
 * JupyterLab 4.4+ gives each comm target a kernel subshell, started after the comm opened (so the
 * first `hello_reply` goes before it, on the main shell, queued behind every cell of a Run All):
 * once it runs, send `hello` (the `hello_reply`, so the kernel knows this page while those cells
 * run, from the first `%%dsh` prompt on) and say so (`subshell_ready`: this page's replies are
 * handled while a cell runs). Older frontends have no `subshellStarted`: nothing sent.
 */
export function announceSubshell(comm: Kernel.IComm, hello: JSONObject | null = null): void {
  const started = (comm as { subshellStarted?: Promise<void> }).subshellStarted;
  if (started === undefined || typeof started.then !== 'function') {
    return;
  }
  started
    .then(() => {
      if (!comm.isDisposed && (comm as { subshellId?: string | null }).subshellId) {
        if (hello !== null) {
          comm.send(hello);
        }
        comm.send(subshellReady() as unknown as JSONObject);
      }
    })
    .catch(() => undefined); // no subshell (creation failed): the main shell, as before
}

/**
 * The one path of a reply to a kernel request of `type`: what `make` returns (or resolves to) is
 * sent on `comm` unless it is `null` or the comm is gone; a failure is logged, never thrown.
 */
function answer(
  comm: Kernel.IComm,
  type: KernelRequest['type'],
  make: () => PageMessage | null | Promise<PageMessage | null>
): void {
  const failed = (error: unknown): void => console.error(`dsh-notebook: could not answer the kernel's ${type}`, error);
  const send = (reply: PageMessage | null): void => {
    try {
      if (reply !== null && !comm.isDisposed) {
        comm.send(reply as unknown as JSONObject);
      }
    } catch (error) {
      failed(error);
    }
  };
  try {
    const made = make();
    if (made instanceof Promise) {
      made.then(send, failed);
    } else {
      send(made); // at once, as the kernel's message is handled
    }
  } catch (error) {
    failed(error);
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
