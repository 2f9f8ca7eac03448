import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { requestMessages, startHarness, tempDir } from '../helpers/harness.js';

describe('file tools inside the workspace only', () => {
  it('refuse escapes through .. and through a symlink, and write nothing outside', async () => {
    const outside = tempDir('dagent-outside-');
    writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
    const h = await startHarness({
      scenario: {
        name: 'escape',
        steps: [
          {
            reply: {
              toolCalls: [
                { name: 'write_file', arguments: { path: '../escaped.txt', content: 'x' } },
                { name: 'write_file', arguments: { path: 'link/pwned.txt', content: 'x' } },
                { name: 'read_file', arguments: { path: 'link/secret.txt' } },
                { name: 'read_file', arguments: { path: `${outside}/secret.txt` } },
                { name: 'write_file', arguments: { path: 'inside/ok.txt', content: 'fine' } },
              ],
            },
          },
          { reply: { content: 'done' } },
        ],
      },
    });
    try {
      symlinkSync(outside, path.join(h.workspace, 'link'));
      mkdirSync(path.join(h.workspace, 'inside'));
      assert.equal((await (await h.start()).result()).status, 'completed');
      const results = requestMessages(h.model, 1)
        .filter((m) => m.role === 'tool')
        .map((m) => String(m.content));
      assert.match(results[0]!, /Path '\.\.\/escaped\.txt' is outside the workspace/);
      assert.match(results[1]!, /Path 'link\/pwned\.txt' leads outside the workspace through a symbolic link/);
      assert.match(results[2]!, /leads outside the workspace through a symbolic link/);
      assert.match(results[3]!, /is outside the workspace/);
      assert.ok(!results.some((r) => r.includes('top secret')), 'the secret must not reach the model');
      assert.match(results[4]!, /^Wrote 4 bytes/);
      assert.deepEqual(readdirSync(outside), ['secret.txt']);
      assert.ok(!existsSync(path.join(path.dirname(h.workspace), 'escaped.txt')));
    } finally {
      await h.close();
    }
  });
});
