// The identity rule: assign, keep, move (keep the id), copy (fresh id + forked_from).
import assert from 'node:assert/strict';
import { test } from 'vitest';

import { Lookup, contentsLookup, resolveIdentity } from '../src/identity';

const OLD = 'a'.repeat(32);
const NEW = 'b'.repeat(32);
const makeId = (): string => NEW;

function lookupOf(files: Record<string, string | null>): Lookup {
  return async path => (path in files ? { found: true, id: files[path] ?? null } : { found: false });
}

test('no identity: a fresh one at the current path', async () => {
  for (const stored of [undefined, {}, { id: 'bad', path: 'x' }]) {
    const r = await resolveIdentity(stored, 'Untitled.ipynb', lookupOf({}), makeId);
    assert.deepEqual(r, { identity: { id: NEW, path: 'Untitled.ipynb' }, verdict: 'assigned' });
  }
});

test('same path: kept, the file is not looked at', async () => {
  const r = await resolveIdentity({ id: OLD, path: 'a.ipynb' }, 'a.ipynb', () => assert.fail('looked up'), makeId);
  assert.equal(r.verdict, 'kept');
  assert.deepEqual(r.identity, { id: OLD, path: 'a.ipynb' });
});

test('moved: nothing at the recorded path, or another notebook took the name', async () => {
  const cases: Record<string, string | null>[] = [{}, { 'old/a.ipynb': null }, { 'old/a.ipynb': NEW }];
  for (const files of cases) {
    const r = await resolveIdentity({ id: OLD, path: 'old/a.ipynb' }, 'new/a.ipynb', lookupOf(files), makeId);
    assert.deepEqual(r, { identity: { id: OLD, path: 'new/a.ipynb' }, verdict: 'moved' });
  }
});

test('copied: the original is still there with the same id', async () => {
  const r = await resolveIdentity(
    { id: OLD, path: 'a.ipynb' },
    'a-Copy1.ipynb',
    lookupOf({ 'a.ipynb': OLD }),
    makeId
  );
  assert.deepEqual(r, { identity: { id: NEW, path: 'a-Copy1.ipynb', forked_from: OLD }, verdict: 'forked' });
});

test('a failing check forks: a fresh id is the safe side', async () => {
  const failing: Lookup = async () => {
    throw new Error('500');
  };
  const r = await resolveIdentity({ id: OLD, path: 'a.ipynb' }, 'b.ipynb', failing, makeId);
  assert.equal(r.verdict, 'forked');
});

test('contentsLookup maps the contents API', async () => {
  const error = (status: number): Error => Object.assign(new Error(String(status)), { response: { status } });
  const contents = {
    get: async (path: string) => {
      if (path === 'missing.ipynb') throw error(404);
      if (path === 'folder') throw error(400);
      if (path === 'broken.ipynb') throw error(500);
      return { content: { metadata: path === 'plain.ipynb' ? {} : { dsh_notebook: { id: OLD, path } } } };
    }
  };
  const lookup = contentsLookup(contents);
  assert.deepEqual(await lookup('missing.ipynb'), { found: false });
  assert.deepEqual(await lookup('folder'), { found: true, id: null });
  assert.deepEqual(await lookup('plain.ipynb'), { found: true, id: null });
  assert.deepEqual(await lookup('a.ipynb'), { found: true, id: OLD });
  await assert.rejects(lookup('broken.ipynb'));
});
