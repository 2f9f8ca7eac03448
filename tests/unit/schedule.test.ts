import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { conflicts, runDag, schedule } from '../../src/workflow-safe/schedule.js';
import type { Effect } from '../../src/workflow-safe/types.js';

const read = (...resources: string[]) => ({ effect: 'read' as Effect, resources });
const write = (...resources: string[]) => ({ effect: 'write' as Effect, resources });

describe('schedule', () => {
  it('lets reads fan out and orders writes of one resource', () => {
    assert.deepEqual(schedule([read('a'), read('a'), read('b')]), [[], [], []]);
    assert.deepEqual(schedule([write('a'), write('b'), write('a')]), [[], [], [0]]);
    assert.deepEqual(schedule([write('a'), read('a'), read('b')]), [[], [0], []]);
    assert.deepEqual(schedule([read('a'), write('a')]), [[], [0]]);
  });

  it('treats a write with no resources as a barrier', () => {
    assert.deepEqual(schedule([read('a'), write(), read('b'), write('c')]), [[], [0], [1], [1]]);
  });

  it('can run every write one at a time', () => {
    assert.deepEqual(schedule([write('a'), write('b'), read('c')], { serialWrites: true }), [[], [0], []]);
    assert.equal(conflicts(write('a'), write('b')), false);
  });

  it('runDag returns results in node order whatever order they finish in', async () => {
    const finished: number[] = [];
    const results = await runDag([[], [], []], async (i) => {
      await new Promise((r) => setTimeout(r, (3 - i) * 20));
      finished.push(i);
      return `r${i}`;
    });
    assert.deepEqual(finished, [2, 1, 0]);
    assert.deepEqual(results, ['r0', 'r1', 'r2']);
  });

  it('never runs two conflicting calls at once, and keeps their model order (property)', async () => {
    const call = fc.record({
      effect: fc.constantFrom<Effect>('read', 'write'),
      resources: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 2 }),
      delay: fc.integer({ min: 0, max: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 12 }), async (calls) => {
        const running = new Set<number>();
        const startOrder: number[] = [];
        const ended = new Set<number>();
        await runDag(schedule(calls), async (i) => {
          for (const j of running)
            assert.ok(!conflicts(calls[i]!, calls[j]!), `calls ${j} and ${i} conflict but overlap`);
          for (let k = 0; k < i; k++) {
            if (conflicts(calls[k]!, calls[i]!))
              assert.ok(ended.has(k), `call ${i} started before the earlier conflicting call ${k} ended`);
          }
          running.add(i);
          startOrder.push(i);
          await new Promise((r) => setTimeout(r, calls[i]!.delay));
          running.delete(i);
          ended.add(i);
        });
        assert.equal(startOrder.length, calls.length);
        // Maximal parallelism: a call with no earlier conflict starts before anything ends.
        const free = calls.map((c, i) => calls.slice(0, i).every((p) => !conflicts(p, c)));
        const firstWave = startOrder.slice(0, free.filter(Boolean).length);
        assert.deepEqual(
          [...firstWave].sort((x, y) => x - y),
          free.flatMap((f, i) => (f ? [i] : [])),
        );
      }),
      { numRuns: 200 },
    );
  });
});
