import { assert, test } from 'vitest';

import type { INotebookModel } from '@jupyterlab/notebook';

import { readCells } from '../src/cells';
import { hasPrivateTag, withPrivateTag } from '../src/privatetag';

/** A notebook model with the fields `readCells` reads: one ordinary and one private code cell. */
function model(): INotebookModel {
  const cell = (id: string, source: string, tags: string[]) => ({
    id,
    type: 'code',
    executionCount: 3,
    getMetadata: (key: string) => (key === 'tags' ? tags : undefined),
    sharedModel: { getSource: () => source },
    outputs: {
      length: 1,
      get: () => ({ toJSON: () => ({ output_type: 'stream', name: 'stdout', text: `printed by ${id}: ${source}` }) })
    }
  });
  const cells = [cell('open', 'x = 1', []), cell('kept', "salary = 91234  # PRIVATE-CANARY", ['dsh-private'])];
  return { cells: { length: cells.length, get: (i: number) => cells[i] } } as unknown as INotebookModel;
}

test('a cell tagged dsh-private is read as private, with no source and no outputs', () => {
  const reply = readCells('r1', 'n.ipynb', model(), null);
  const [open, kept] = reply.cells;
  assert.equal(open?.source, 'x = 1');
  assert.equal(open?.outputs.length, 1);
  assert.isUndefined(open?.private);
  assert.equal(kept?.private, true);
  assert.equal(kept?.source, '');
  assert.deepEqual(kept?.outputs, []);
  assert.notInclude(JSON.stringify(reply), 'CANARY');
  assert.notInclude(JSON.stringify(reply), '91234');
});

test('the toolbar toggle adds and removes only the dsh-private tag', () => {
  assert.deepEqual(withPrivateTag(['keep', 'dsh-agent'], true), ['keep', 'dsh-agent', 'dsh-private']);
  assert.deepEqual(withPrivateTag(['dsh-private', 'keep', 'dsh-private'], false), ['keep']);
  assert.deepEqual(withPrivateTag(undefined, true), ['dsh-private']);
  assert.deepEqual(withPrivateTag('not a list', false), []);
  assert.isTrue(hasPrivateTag(['x', 'dsh-private']));
  assert.isFalse(hasPrivateTag(undefined));
});
