import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { requestMessages, startHarness } from '../helpers/harness.js';
import { lockTools, type WriteRecord } from '../helpers/lock-tools.js';
import { overlaps, probeTools, type Interval } from '../helpers/probe-tools.js';

describe('scheduling the calls of one model step', () => {
  it('runs 8 reads of ~300 ms at once: every interval overlaps every other', async () => {
    const reads: Interval[] = [];
    const h = await startHarness({
      tools: [...builtinTools, ...probeTools(reads, 300)],
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
      for (const a of reads)
        for (const b of reads) if (a !== b) assert.ok(overlaps(a, b), `${a.key} and ${b.key} did not overlap`);
    } finally {
      await h.close();
    }
  });

  it('overlaps writes to different files, orders writes to one file, and a later read sees the write', async () => {
    const writes: WriteRecord[] = [];
    const h = await startHarness({
      tools: [...builtinTools, ...lockTools(writes, 300)],
      scenario: {
        name: 'writes',
        steps: [
          {
            reply: {
              toolCalls: [
                { name: 'slow_write', arguments: { path: 'a.txt', content: 'first' } },
                { name: 'slow_write', arguments: { path: 'b.txt', content: 'other' } },
                { name: 'slow_write', arguments: { path: 'a.txt', content: 'second' } },
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
      const [a1, b, a2] = [
        writes.find((w) => w.path === 'a.txt')!,
        writes.find((w) => w.path === 'b.txt')!,
        writes.filter((w) => w.path === 'a.txt')[1]!,
      ];
      assert.ok(a1.start < b.end && b.start < a1.end, 'writes to different files overlap');
      assert.ok(a2.start >= a1.end, 'the second write of a.txt starts after the first ends');
      assert.ok(a2.token! > a1.token!);
      const results = requestMessages(h.model, 1)
        .filter((m) => m.role === 'tool')
        .map((m) => m.content);
      assert.deepEqual(results, ['wrote a.txt', 'wrote b.txt', 'wrote a.txt', 'second']);
    } finally {
      await h.close();
    }
  });

  it('with serialWrites, runs every write one at a time', async () => {
    const writes: WriteRecord[] = [];
    const h = await startHarness({
      tools: [...builtinTools, ...lockTools(writes, 200)],
      scenario: {
        name: 'serial',
        steps: [
          {
            reply: {
              toolCalls: ['a', 'b', 'c'].map((p) => ({
                name: 'slow_write',
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
        writes.map((w) => w.path),
        ['a.txt', 'b.txt', 'c.txt'],
      );
      assert.ok(writes[1]!.start >= writes[0]!.end && writes[2]!.start >= writes[1]!.end);
    } finally {
      await h.close();
    }
  });
});
