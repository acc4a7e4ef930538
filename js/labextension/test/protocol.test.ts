// The TypeScript side of protocol v1: same rules as dsh_notebook/frontend/protocol.py.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { withIdentity } from '../src/executehook';
import {
  helloReply,
  identityMetadata,
  isId,
  newId,
  parseKernelMessage,
  parseStoredIdentity,
  RESERVED_TYPES,
  WIDGET_BUNDLE_CAPABILITY
} from '../src/protocol';

const ID = '0123456789abcdef0123456789abcdef';
const waiting = { v: 1, type: 'waiting', count: 1, cells: [{ cell_id: 'c1', kind: 'approval', label: 'bash' }] };

test('fresh ids are uuid4 hex and distinct', () => {
  const a = newId();
  assert.ok(isId(a), a);
  assert.equal(a[12], '4');
  assert.notEqual(a, newId());
  for (let i = 0; i < 200; i++) {
    const id = newId();
    assert.ok(isId(id) && id[12] === '4' && '89ab'.includes(id[16] ?? ''), id);
  }
});

test('waiting and hello parse', () => {
  assert.deepEqual(parseKernelMessage(waiting), waiting);
  assert.deepEqual(parseKernelMessage({ v: 1, type: 'hello', kernel_version: '0.1.0' }), {
    v: 1,
    type: 'hello',
    kernel_version: '0.1.0'
  });
  assert.deepEqual(parseKernelMessage({ ...waiting, count: 0, cells: [] })?.type, 'waiting');
  // request_id (additive): kept when a non-empty string, dropped otherwise
  const withId = { ...waiting, cells: [{ ...waiting.cells[0], request_id: 'a1' }] };
  assert.deepEqual(parseKernelMessage(withId), withId);
  const badId = { ...waiting, cells: [{ ...waiting.cells[0], request_id: 7 }] };
  assert.deepEqual(parseKernelMessage(badId), waiting);
});

test('unknown, other versions and malformed messages are null, never thrown', () => {
  const bad: unknown[] = [
    null,
    'waiting',
    [],
    { ...waiting, v: 2 },
    { ...waiting, count: -1 },
    { ...waiting, count: 1.5 },
    { ...waiting, count: '1' },
    { ...waiting, cells: 'c1' },
    { ...waiting, cells: [{ cell_id: 'c1', kind: 'other', label: '' }] },
    { ...waiting, cells: [{ cell_id: '', kind: 'approval', label: '' }] },
    { ...waiting, cells: [null] },
    { v: 1, type: 'hello' },
    { v: 1, type: 'hello_reply', version: '0', capabilities: [] },
    ...RESERVED_TYPES.map(type => ({ v: 1, type }))
  ];
  for (const message of bad) {
    assert.equal(parseKernelMessage(message), null, JSON.stringify(message));
  }
});

test('stored identity: only a valid id and path count', () => {
  assert.deepEqual(parseStoredIdentity({ id: ID, path: 'a.ipynb' }), { id: ID, path: 'a.ipynb' });
  assert.deepEqual(parseStoredIdentity({ id: ID, path: 'a.ipynb', forked_from: ID }), {
    id: ID,
    path: 'a.ipynb',
    forked_from: ID
  });
  for (const value of [undefined, null, {}, { id: 'x', path: 'a' }, { id: ID.toUpperCase(), path: 'a' }, { id: ID }]) {
    assert.equal(parseStoredIdentity(value), null, JSON.stringify(value));
  }
});

test('execute metadata keeps what JupyterLab sent and adds dsh_notebook', () => {
  const identity = identityMetadata({ id: ID, path: 'a.ipynb' }, 'c1');
  const seen: (string | null)[] = [];
  const out = withIdentity({ cellId: 'c1', recordTiming: false }, cellId => {
    seen.push(cellId);
    return identity;
  });
  assert.deepEqual(seen, ['c1']);
  assert.deepEqual(out, {
    cellId: 'c1',
    recordTiming: false,
    dsh_notebook: { v: 1, id: ID, path: 'a.ipynb', cell_id: 'c1' }
  });
  assert.deepEqual(withIdentity(undefined, () => null), undefined);
  const failing = withIdentity({ cellId: 'c1' }, () => {
    throw new Error('boom');
  });
  assert.deepEqual(failing, { cellId: 'c1' });
});

test('hello_reply announces the implemented capabilities', () => {
  assert.deepEqual(helloReply('0.1.0'), {
    v: 1,
    type: 'hello_reply',
    version: '0.1.0',
    capabilities: ['identity', 'waiting', 'run_output', 'insert_cell', 'read_notebook', 'edit_cells', 'run_cells', WIDGET_BUNDLE_CAPABILITY]
  });
  assert.match(WIDGET_BUNDLE_CAPABILITY, /^widget_bundle:[0-9a-f]{16}$/);
});

test('read_notebook carries a request id; without one it is ignored', () => {
  assert.deepEqual(parseKernelMessage({ v: 1, type: 'read_notebook', request_id: 'n1' }), {
    v: 1,
    type: 'read_notebook',
    request_id: 'n1'
  });
  for (const bad of [{ v: 1, type: 'read_notebook' }, { v: 1, type: 'read_notebook', request_id: '' }]) {
    assert.equal(parseKernelMessage(bad), null);
  }
});
