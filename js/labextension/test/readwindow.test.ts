import { assert, test } from 'vitest';

import type { INotebookModel } from '@jupyterlab/notebook';

import { chosenPositions, readCells } from '../src/cells';

/** A notebook model of `n` code cells (`cell-0001`, …); those in `hidden` are tagged dsh-private. */
function model(n: number, hidden: number[] = []): INotebookModel {
  const cells = Array.from({ length: n }, (_, i) => ({
    id: `cell-${String(i + 1).padStart(4, '0')}`,
    type: 'code',
    executionCount: null,
    getMetadata: (key: string) => (key === 'tags' && hidden.includes(i) ? ['dsh-private'] : undefined),
    sharedModel: { getSource: () => `x_${i + 1} = ${i + 1}` },
    outputs: { length: 0, get: () => ({ toJSON: () => ({}) }) }
  }));
  return { cells: { length: cells.length, get: (i: number) => cells[i] } } as unknown as INotebookModel;
}

const positions = (reply: ReturnType<typeof readCells>): number[] => reply.cells.map(c => c.index);

test('asked for nothing (an older kernel), the page sends the first 500 cells', () => {
  const reply = readCells('r', 'n.ipynb', model(1000), null);
  assert.equal(reply.total_cells, 1000);
  assert.deepEqual(positions(reply), Array.from({ length: 500 }, (_, i) => i));
  assert.isUndefined(reply.chosen);
});

test('a window around the asking cell reaches cell 900 of 1,000 and its neighbours', () => {
  const reply = readCells('r', 'n.ipynb', model(1000), 'cell-0001', { around: 'cell-0900' });
  assert.equal(reply.cells.length, 500);
  assert.equal(reply.total_cells, 1000);
  assert.equal(reply.chosen, true);
  const at = positions(reply);
  assert.include(at, 899);
  assert.include(at, 898);
  assert.include(at, 999); // the window is clamped to the end, so it keeps 500 cells
  assert.equal(at[0], 500);
  const small = readCells('r', 'n.ipynb', model(1000), null, { around: 'cell-0900', window: 5 });
  assert.deepEqual(positions(small), [897, 898, 899, 900, 901]);
});

test('cells by id (full or a short prefix) and by position are sent wherever they are', () => {
  const reply = readCells('r', 'n.ipynb', model(1000), null, { cell_ids: ['cell-0950', 'cell-0002'], first: 700, last: 702, window: 0 });
  assert.deepEqual(positions(reply), [1, 700, 701, 702, 949]);
  const prefix = readCells('r', 'n.ipynb', model(1000), null, { cell_ids: ['cell-095'], window: 0 });
  assert.deepEqual(positions(prefix), [949, 950, 951, 952, 953, 954, 955, 956, 957, 958]);
  assert.equal(prefix.cells[0]?.source, 'x_950 = 950');
});

test('without a known asking cell the window is centred on the active cell', () => {
  const reply = readCells('r', 'n.ipynb', model(1000), 'cell-0700', { around: 'gone-cell', window: 3 });
  assert.deepEqual(positions(reply), [698, 699, 700]);
  assert.equal(reply.cells[1]?.selected, true);
});

test('private cells are always sent, bare, so the kernel knows them wherever they are', () => {
  const reply = readCells('r', 'n.ipynb', model(1000, [10, 990]), null, { around: 'cell-0500', window: 2 });
  assert.deepEqual(positions(reply), [10, 498, 499, 990]);
  assert.equal(reply.cells[0]?.private, true);
  assert.equal(reply.cells[0]?.source, '');
});

test('never more than 500 cells, the ones nearest the centre kept first', () => {
  const ids = Array.from({ length: 2000 }, (_, i) => `c${i}`);
  const chosen = chosenPositions(ids, [], { cell_ids: ['c1999'], first: 0, last: 1999, around: 'c1000' }, -1);
  assert.equal(chosen.length, 500);
  assert.include(chosen, 1999);
  assert.deepEqual(chosen.slice(0, 3), [0, 1, 2]);
});
