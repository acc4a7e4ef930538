// The waiting signal's advice when the asking cell is gone (issue 24 item 7, third bullet).
import assert from 'node:assert/strict';
import { test } from 'vitest';

import { missingCells, orphanAdvice } from '../src/advice';
import type { IWaitingCell } from '../src/protocol/kernel';

const approval: IWaitingCell = { cell_id: 'gone', kind: 'approval', label: 'bash', request_id: 'a1' };
const question: IWaitingCell = { cell_id: 'here', kind: 'question', label: 'Which?', request_id: 'q2' };

test('only the cells the notebook lacks are missing', () => {
  assert.deepEqual(missingCells([approval, question], id => id === 'here'), [approval]);
});

test('the advice names the commands with the request ids', () => {
  const text = orphanAdvice([approval, question]);
  assert.match(text, /no longer in this notebook/);
  assert.match(text, /%dsh allow a1 {3}or {3}%dsh reject a1/);
  assert.match(text, /%dsh answer q2 CHOICE {3}or {3}%dsh dismiss q2/);
  assert.match(text, /%dsh pending lists/);
});

test('an older kernel without ids is sent to %dsh pending', () => {
  const { request_id: _unused, ...old } = approval;
  assert.match(orphanAdvice([old]), /run %dsh pending to see its id/);
});
