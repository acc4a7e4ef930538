// The TypeScript side of protocol v1 (src/protocol/): same rules as dsh_notebook/page_protocol/.
import assert from 'node:assert/strict';
import { test } from 'vitest';

import { summarizeOutput, truncationMark } from '../src/cells';
import { withIdentity } from '../src/executehook';
import * as constants from '../src/protocol/constants';
import { identityMetadata, isId, newId, parseStoredIdentity } from '../src/protocol/identity';
import { helloReply, undoRequest, WIDGET_BUNDLE_CAPABILITY } from '../src/protocol/page';
import { parseKernelMessage } from '../src/protocol/parse';
import fixtureJson from './fixtures/page-protocol.json';

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
    ...constants.RESERVED_TYPES.map(type => ({ v: 1, type }))
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

// -- the shared examples (js/labextension/test/fixtures/page-protocol.json, also read by
// tests/test_frontend_protocol_fixture.py) ---------------------------------------------------------

/** The fixture's value with `$repeat` / `$concat` written out. */
function expand(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(expand);
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if ('$repeat' in record) {
      const item = expand(record.$repeat);
      const times = record.times as number;
      return typeof item === 'string' ? item.repeat(times) : Array.from({ length: times }, () => item);
    }
    if ('$concat' in record) {
      return (record.$concat as unknown[]).map(v => expand(v) as string).join('');
    }
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand(v)]));
  }
  return value;
}

interface IInvalid {
  why: string;
  message: unknown;
}
interface IFixture {
  limits: Record<string, unknown>;
  truncation_mark: { omitted: number; text: string };
  kernel_to_page: { valid: Record<string, unknown>[]; invalid: IInvalid[] };
  page_to_kernel: { valid: Record<string, unknown>[]; invalid: IInvalid[] };
  identity: { valid: Record<string, unknown>[]; invalid: IInvalid[] };
  output_summaries: { output: unknown; summary: unknown; run_summary?: unknown }[];
}
const fixture = expand(fixtureJson) as IFixture;

test('shared examples: every limit is the kernel\'s', () => {
  const ours = constants as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(fixture.limits)) {
    assert.deepEqual(ours[name], value, name);
  }
  const exported = Object.keys(ours).filter(n => n.startsWith('MAX_'));
  assert.deepEqual(exported.sort(), Object.keys(fixture.limits).filter(n => n.startsWith('MAX_')).sort());
});

test('shared examples: the truncation mark is spelled as the kernel spells it', () => {
  assert.equal(truncationMark(fixture.truncation_mark.omitted), fixture.truncation_mark.text);
});

test('shared examples: kernel messages are accepted unchanged or refused', () => {
  for (const message of fixture.kernel_to_page.valid) {
    assert.deepEqual(parseKernelMessage(message), message, String(message.type));
  }
  for (const { why, message } of fixture.kernel_to_page.invalid) {
    assert.equal(parseKernelMessage(message), null, why);
  }
});

test('shared examples: what the page builds is what the kernel reads', () => {
  const valid = (type: string) => fixture.page_to_kernel.valid.filter(m => m.type === type);
  assert.deepEqual(undoRequest('c1'), valid('undo_request')[0]);
  const hello = valid('hello_reply')[0]!;
  assert.deepEqual(Object.keys(helloReply('0.1.0')).sort(), Object.keys(hello).sort());
  const [plain, forked, hidden] = fixture.identity.valid as { id: string; path: string; cell_id: string | null; forked_from?: string }[];
  assert.deepEqual(identityMetadata({ id: plain!.id, path: plain!.path }, plain!.cell_id), plain);
  assert.deepEqual(
    identityMetadata({ id: forked!.id, path: forked!.path, forked_from: forked!.forked_from }, forked!.cell_id),
    forked
  );
  assert.deepEqual(identityMetadata({ id: hidden!.id, path: hidden!.path }, hidden!.cell_id, true), hidden);
  for (const { output, summary, run_summary } of fixture.output_summaries) {
    assert.deepEqual(summarizeOutput(output), summary);
    assert.deepEqual(summarizeOutput(output, true), run_summary ?? summary);
  }
});
