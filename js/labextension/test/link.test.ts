// The link tells the kernel when its comm has a subshell of its own (JupyterLab 4.4+).
import assert from 'node:assert/strict';
import { test } from 'vitest';

import type { Kernel } from '@jupyterlab/services';

import { announceSubshell } from '../src/link';

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
