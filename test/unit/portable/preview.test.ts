// The load dialog's summary of a portable capsule: its task as plain text, its ledger in one line (denied commands counted), its checksum.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { previewOf } from '../../../src/engine/portable/preview.js';
import { bodyText } from './helpers.js';

test('task from the Goal section without markdown marks; ledger counts; checksum status', () => {
  const body = bodyText();
  const p = previewOf({ body, modified: false, hasLedger: true });
  assert.equal(p.task, 'Move the auth flow to OAuth device codes.');
  assert.match(p.ledger, /^\d+ file\(s\) modified · \d+ command\(s\) · last verification: /);
  assert.equal(p.checksum, 'verified');
  assert.equal(previewOf({ body, modified: true, hasLedger: true }).checksum, 'edited');
});

test('denied commands are counted; a capsule without a ledger says so', () => {
  const body = `${bodyText()}`.replace(
    /\*\*Commands run \(\d+, newest first\):\*\*\n- none/,
    '**Commands run (2, newest first):**\n- `rm -rf build` → denied\n- `npm test` → exit 0',
  );
  assert.match(previewOf({ body, modified: false, hasLedger: true }).ledger, /2 command\(s\) \(1 denied\)/);
  assert.equal(previewOf({ body: '## Goal\nShip it.\n', modified: false, hasLedger: false }).ledger, 'none (the capsule has no ledger)');
});
