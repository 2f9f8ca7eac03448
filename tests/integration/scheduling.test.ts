import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { requestMessages, startHarness } from '../helpers/harness.js';
import { meetTools, probeTools, type Interval, type MeetRecord } from '../helpers/probe-tools.js';

// Overlap is proven with latches (calls that wait until the others of their group run too),
// order with the sequence of events; no assertion here reads the clock.

describe('scheduling the calls of one model step', () => {
  it('runs 8 reads at once: all 8 were running together', async () => {
    const reads: Interval[] = [];
    const h = await startHarness({
      tools: [...builtinTools, ...probeTools(reads, 8)],
      scenario: {
        name: 'fan-out',
        steps: [
          {
            reply: {
              toolCalls: Array.from({ length: 8 }, (_, i) => ({ name: 'slow_read', arguments: { key: `k${i}` } })),
            },
          },
          { reply: { content: 'read all' } },
        ],
      },
    });
    try {
      assert.equal((await (await h.start()).result()).status, 'completed');
      assert.equal(reads.length, 8);
      assert.deepEqual(
        reads.map((r) => r.met),
        Array(8).fill(true),
        'every read met the other seven',
      );
    } finally {
      await h.close();
    }
  });

  it('overlaps writes to different files, orders writes to one file, and a later read sees the write', async () => {
    const writes: MeetRecord[] = [];
    const { tools } = meetTools(writes, 2);
    const h = await startHarness({
      tools: [...builtinTools, ...tools],
      scenario: {
        name: 'writes',
        steps: [
          {
            reply: {
              toolCalls: [
                { name: 'meet_write', arguments: { path: 'a.txt', content: 'first' } },
                { name: 'meet_write', arguments: { path: 'b.txt', content: 'other' } },
                { name: 'meet_write', arguments: { path: 'a.txt', content: 'second' } },
                { name: 'read_file', arguments: { path: 'a.txt' } },
              ],
            },
          },
          { reply: { content: 'ok' } },
        ],
      },
    });
    try {
      assert.equal((await (await h.start()).result()).status, 'completed');
      const [a1, a2] = writes.filter((w) => w.path === 'a.txt');
      const b = writes.find((w) => w.path === 'b.txt')!;
      assert.ok(a1 && a2 && b);
      assert.ok(a1.met && b.met, 'the first write of a.txt and the write of b.txt ran together');
      assert.ok(a2.entered > a1.left, 'the second write of a.txt started after the first ended');
      assert.ok(a2.token! > a1.token!, 'with a larger fencing token');
      const results = requestMessages(h.model, 1)
        .filter((m) => m.role === 'tool')
        .map((m) => m.content);
      assert.deepEqual(results, ['wrote a.txt', 'wrote b.txt', 'wrote a.txt', 'second']);
    } finally {
      await h.close();
    }
  });

  it('with serialWrites, runs every write one at a time', async () => {
    const writes: MeetRecord[] = [];
    // Writes that would meet if they ran together: each waits up to 1 s for a partner, and must find none.
    const { tools, latch } = meetTools(writes, 2, 1_000);
    const h = await startHarness({
      tools: [...builtinTools, ...tools],
      scenario: {
        name: 'serial',
        steps: [
          {
            reply: {
              toolCalls: ['a', 'b', 'c'].map((p) => ({
                name: 'meet_write',
                arguments: { path: `${p}.txt`, content: p },
              })),
            },
          },
          { reply: { content: 'ok' } },
        ],
      },
    });
    try {
      assert.equal((await (await h.start({ serialWrites: true })).result()).status, 'completed');
      assert.deepEqual(
        writes.map((w) => [w.path, w.met]),
        [
          ['a.txt', false],
          ['b.txt', false],
          ['c.txt', false],
        ],
      );
      assert.equal(latch.maxInside, 1, 'never two writes at once');
      assert.ok(writes[1]!.entered > writes[0]!.left && writes[2]!.entered > writes[1]!.left);
    } finally {
      await h.close();
    }
  });
});
