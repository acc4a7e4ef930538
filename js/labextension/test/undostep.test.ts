// One undo step (undostep.ts) on the real shared model of a notebook (@jupyter/ydoc's YNotebook).
import assert from 'node:assert/strict';
import { YNotebook } from '@jupyter/ydoc';
import { test } from 'vitest';

import { oneUndoStep } from '../src/undostep';

function notebook(): YNotebook {
  const nb = YNotebook.create({ disableDocumentWideUndoRedo: true });
  nb.insertCell(0, { cell_type: 'code', source: 'a = 1', metadata: {} });
  nb.undoManager.clear();
  return nb;
}

const sources = (nb: YNotebook): string[] => nb.cells.map(c => c.getSource());

function cell(nb: YNotebook, index: number): YNotebook['cells'][number] {
  const found = nb.cells[index];
  assert.ok(found !== undefined, `no cell ${index}`);
  return found;
}

test('changes made within the capture timeout share one undo step without oneUndoStep', () => {
  const nb = notebook();
  nb.transact(() => nb.insertCell(1, { cell_type: 'code', source: 'agent', metadata: {} }));
  nb.transact(() => nb.deleteCell(1)); // at once: Yjs merges it into the step above
  nb.undo();
  assert.deepEqual(sources(nb), ['a = 1']); // one z undid both: the insert is not back
});

test('oneUndoStep keeps its changes one step of their own, apart from the step before', () => {
  const nb = notebook();
  nb.transact(() => nb.insertCell(1, { cell_type: 'code', source: 'agent', metadata: {} }));
  oneUndoStep(nb, () =>
    nb.transact(() => {
      cell(nb, 0).setSource('a = 10');
      nb.deleteCell(1);
    })
  );
  assert.deepEqual(sources(nb), ['a = 10']);
  nb.undo(); // undoes exactly the step: the cell is back, the edit is reverted
  assert.deepEqual(sources(nb), ['a = 1', 'agent']);
  nb.undo();
  assert.deepEqual(sources(nb), ['a = 1']);
});

test('oneUndoStep keeps the change after it out of its step, and merges what it does itself', () => {
  const nb = notebook();
  oneUndoStep(nb, () => {
    nb.insertCell(1, { cell_type: 'code', source: 'b', metadata: {} });
    cell(nb, 1).setMetadata({ trusted: true }); // a second transaction, still the same step
  });
  nb.transact(() => cell(nb, 0).setSource('a = 2'));
  nb.undo();
  assert.deepEqual(sources(nb), ['a = 1', 'b']);
  nb.undo();
  assert.deepEqual(sources(nb), ['a = 1']);
});

test('a model without an undo manager just runs the function', () => {
  let ran = 0;
  oneUndoStep({}, () => (ran += 1));
  oneUndoStep({ undoManager: null }, () => (ran += 1));
  assert.equal(ran, 2);
});
