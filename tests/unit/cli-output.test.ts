import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printable } from '../../src/cli/plumbing/output.js';

describe('what the CLI prints', () => {
  it('shows control characters and bidi overrides as escapes, keeps newlines and tabs, and stays valid inside JSON', () => {
    const hostile = 'ok\x1b[2J\rfake\u202Eevil\tgood\nnext';
    assert.equal(printable(hostile), 'ok\\u001b[2J\\u000dfake\\u202eevil\tgood\nnext');
    assert.equal(JSON.parse(printable(JSON.stringify({ a: hostile }))).a, hostile);
  });
});
