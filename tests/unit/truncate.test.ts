import assert from 'node:assert/strict';
import { it } from 'node:test';
import { truncateForModel } from '../../src/tools/truncate.js';

it('truncateForModel keeps head and tail and says how much it cut', () => {
  assert.equal(truncateForModel('short', 10), 'short');
  const long = 'a'.repeat(60) + 'b'.repeat(40);
  const cut = truncateForModel(long, 40);
  assert.ok(cut.startsWith('a'.repeat(30)));
  assert.ok(cut.endsWith('b'.repeat(10)));
  assert.match(cut, /\[cut 60 of 100 characters\]/);
});
