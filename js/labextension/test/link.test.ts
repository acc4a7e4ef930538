// The page's end of the comm (link.ts): every kernel message to the one handler of its type, every
// request answered on one path, and `subshell_ready` once the comm has a subshell (JupyterLab 4.4+).
import assert from 'node:assert/strict';
import { test } from 'vitest';

import type { Kernel } from '@jupyterlab/services';

import { announceSubshell, ILinkOptions, linkKernel } from '../src/link';
import { bundleKey } from '../src/preload';
import { helloReply } from '../src/protocol/page';
import { WIDGET_BUNDLE_HASH } from '../src/widgetbundle';
import fixtureJson from './fixtures/page-protocol.json';

function fakeComm(extra: Record<string, unknown>): { comm: Kernel.IComm; sent: unknown[] } {
  const sent: unknown[] = [];
  const comm = { isDisposed: false, send: (data: unknown) => sent.push(data), ...extra };
  return { comm: comm as unknown as Kernel.IComm, sent };
}

const settle = () => new Promise(resolve => setTimeout(resolve, 0));

test('subshell_ready is sent once the comm subshell started', async () => {
  const { comm, sent } = fakeComm({ subshellStarted: Promise.resolve(), subshellId: 'sub-1' });
  announceSubshell(comm);
  await settle();
  assert.deepEqual(sent, [{ v: 1, type: 'subshell_ready' }]);
});

test('the hello_reply goes again on the started subshell, before subshell_ready (a Run All)', async () => {
  const { comm, sent } = fakeComm({ subshellStarted: Promise.resolve(), subshellId: 'sub-1' });
  const hello = helloReply('1.2.3') as unknown as Record<string, never>;
  announceSubshell(comm, hello);
  await settle();
  assert.deepEqual(sent, [hello, { v: 1, type: 'subshell_ready' }]);
});

test('nothing is sent without subshells (older frontends, a failed start, no id)', async () => {
  const older = fakeComm({});
  const failed = fakeComm({ subshellStarted: Promise.reject(new Error('no')), subshellId: null });
  const none = fakeComm({ subshellStarted: Promise.resolve(), subshellId: null });
  for (const { comm } of [older, failed, none]) {
    announceSubshell(comm);
  }
  await settle();
  assert.deepEqual([older.sent, failed.sent, none.sent], [[], [], []]);
});

// -- linkKernel: each kernel message goes by its type to one handler; each request is answered on
// one path (issue 44 item 3, page side) -----------------------------------------------------------

interface ILinked {
  open: (data: unknown) => { sent: unknown[]; comm: Kernel.IComm };
  status: (status: string) => void;
  seen: unknown[];
}

function linkFake(answers: ILinkOptions['answers']): ILinked {
  // the real preload needs a page: one whose bundle is already loading
  const global = globalThis as unknown as Record<string | symbol, unknown>;
  global.document ??= {};
  global[bundleKey(WIDGET_BUNDLE_HASH)] ??= Promise.resolve(null);
  let target: ((comm: Kernel.IComm, msg: unknown) => void) | null = null;
  const statusListeners: ((sender: unknown, status: string) => void)[] = [];
  const kernel = {
    registerCommTarget: (name: string, callback: typeof target) => {
      assert.equal(name, 'dsh_notebook.frontend');
      target = callback;
    },
    statusChanged: { connect: (fn: (sender: unknown, status: string) => void) => statusListeners.push(fn) },
    requestCommInfo: async () => ({ content: { status: 'ok', comms: {} } })
  };
  const seen: unknown[] = [];
  linkKernel(kernel as unknown as Kernel.IKernelConnection, {
    version: '9.9.9',
    onWaiting: waiting => seen.push(['waiting', waiting]),
    onRunOutput: output => seen.push(['run_output', output]),
    onInsertCell: cell => seen.push(['insert_cell', cell]),
    answers,
    onComm: comm => seen.push(['comm', comm === null ? null : 'open'])
  });
  return {
    open: data => {
      const { comm, sent } = fakeComm({});
      target!(comm, { content: { data } });
      return { comm, sent };
    },
    status: status => statusListeners.forEach(fn => fn(kernel, status)),
    seen
  };
}

function deliver(comm: Kernel.IComm, data: unknown): void {
  void comm.onMsg({ content: { data } } as unknown as Parameters<Kernel.IComm['onMsg']>[0]);
}

const valid = (fixtureJson as { kernel_to_page: { valid: Record<string, unknown>[] } }).kernel_to_page.valid;
const first = (type: string) => valid.find(m => m.type === type)!;

test('each kernel message reaches the one handler of its type; each request is answered once', async () => {
  const asked: string[] = [];
  const reply = (type: string, request_id: string) => ({ v: 1, type, request_id }) as never;
  const link = linkFake({
    read_notebook: m => (asked.push(m.type), reply('read_notebook_reply', m.request_id)),
    apply_change: m => (asked.push(m.type), reply('apply_change_reply', m.request_id)),
    run_cells: async m => (asked.push(m.type), reply('run_cells_reply', m.request_id)),
    undo_changes: m => (asked.push(m.type), reply('undo_reply', m.request_id))
  });
  const { comm, sent } = link.open(first('hello'));
  assert.deepEqual(sent, [helloReply('9.9.9')]);
  for (const type of ['hello', 'waiting', 'run_output', 'insert_cell', 'read_notebook', 'apply_change', 'run_cells', 'undo_changes']) {
    deliver(comm, first(type));
  }
  await settle();
  assert.deepEqual(asked, ['read_notebook', 'apply_change', 'run_cells', 'undo_changes']);
  assert.deepEqual(link.seen, [
    ['comm', 'open'],
    ['waiting', first('waiting')],
    ['run_output', first('run_output')],
    ['insert_cell', first('insert_cell')]
  ]);
  assert.deepEqual(sent, [
    helloReply('9.9.9'),
    helloReply('9.9.9'),
    reply('read_notebook_reply', 'n1'),
    reply('apply_change_reply', 'e1'),
    reply('undo_reply', 'u1'),
    reply('run_cells_reply', 'r1') // answered when its cells ran
  ]);
});

test('a request without an answer, a null answer, a failing one and a malformed message send nothing', async () => {
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args[0]);
  try {
    const link = linkFake({
      read_notebook: () => null,
      apply_change: () => {
        throw new Error('boom');
      },
      run_cells: () => Promise.reject(new Error('late boom'))
    });
    const { comm, sent } = link.open({ v: 1, type: 'something else' });
    for (const type of ['read_notebook', 'apply_change', 'run_cells', 'undo_changes']) {
      deliver(comm, first(type));
    }
    deliver(comm, { ...first('read_notebook'), request_id: '' });
    deliver(comm, { ...first('waiting'), v: 2 });
    await settle();
    assert.deepEqual(sent, []);
    assert.deepEqual(errors, [
      "dsh-notebook: could not answer the kernel's apply_change",
      "dsh-notebook: could not answer the kernel's run_cells"
    ]);
    assert.deepEqual(link.seen, [['comm', 'open']]);
  } finally {
    console.error = original;
  }
});

test('a closed comm, a restart or a dead kernel: nothing waits and there is no comm', () => {
  const link = linkFake({});
  const { comm } = link.open(first('hello'));
  void comm.onClose({} as never);
  for (const status of ['restarting', 'autorestarting', 'dead', 'busy']) {
    link.status(status);
  }
  const nothing = [['waiting', null], ['comm', null]];
  assert.deepEqual(link.seen, [['comm', 'open'], ...nothing, ...nothing, ...nothing, ...nothing]);
});
