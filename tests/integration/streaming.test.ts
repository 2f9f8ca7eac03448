import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { followProgress } from '../../src/cli/plumbing/progress.js';
import { readAudit } from '../../src/client/audit.js';
import type { ScenarioInput } from '../../src/scripted-model/scenario.js';
import { startHarness } from '../helpers/harness.js';

/** Six lines the model writes before its tool call; each names its line so order and doubles show. */
const LINES = Array.from({ length: 6 }, (_, i) => `Streamed line ${i + 1}: reading the notes before answering.`);
const TEXT = LINES.join('\n');

const scenario = (faults: ScenarioInput['steps'][number]['faults'] = []): ScenarioInput => ({
  name: 'streaming',
  steps: [
    {
      faults,
      chunkDelayMs: 120,
      reply: { content: TEXT, toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] },
    },
    { reply: { content: 'The answer is 42.' } },
  ],
});

/** What a watcher printed, with the time of each line. */
async function watch(handle: WorkflowHandle) {
  const lines: Array<{ line: string; at: number }> = [];
  await followProgress(handle, handle.result(), (line) => lines.push({ line, at: Date.now() }));
  return lines;
}

/** The streamed lines of step 1 (step 2's short answer may or may not be caught streaming). */
const streamed = (lines: Array<{ line: string }>) => {
  const end = lines.findIndex((l) => l.line.startsWith('step 1  model replied'));
  return lines
    .slice(0, end < 0 ? undefined : end)
    .filter((l) => l.line.startsWith('  │ '))
    .map((l) => l.line.slice(4));
};

/** How often a text occurs in the job's history (every run, every event). */
async function inHistory(handle: WorkflowHandle, text: string): Promise<number> {
  const json = JSON.stringify(await handle.fetchHistory());
  // Payload data is base64 of the JSON: count in the decoded payloads too.
  let n = json.split(text).length - 1;
  for (const m of json.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g))
    n += Buffer.from(m[1]!, 'base64').toString('utf8').split(text).length - 1;
  return n;
}

describe('streamed replies', () => {
  it('a watcher sees the reply while it is written, once, before the call completes', async () => {
    const h = await startHarness({ scenario: scenario() });
    try {
      const handle = await h.start();
      const lines = await watch(handle);
      assert.equal((await handle.result()).answer, 'The answer is 42.');
      assert.deepEqual(streamed(lines), LINES, lines.map((l) => l.line).join('\n'));
      const replied = lines.find((l) => l.line.startsWith('step 1  model replied'));
      assert.ok(replied, 'the model_end line is shown');
      // Streamed: step 1's lines came over more than one poll, all before the step's "replied" line
      // (step 2's short answer may or may not be caught streaming, after it).
      const shown = lines.slice(0, lines.indexOf(replied)).filter((l) => l.line.startsWith('  │ '));
      assert.equal(shown.length, LINES.length);
      assert.ok(shown.at(-1)!.at - shown[0]!.at >= 500, `all lines came at once: ${shown.map((l) => l.at)}`);
      // The model was asked for a stream, and the history holds the reply once (its activity result).
      assert.equal(h.model.requests[0]!.body.stream, true);
      assert.equal(await inHistory(handle, LINES[5]!), 1);
    } finally {
      await h.close();
    }
  });

  it('a stream cut off half-way is asked again whole: the watcher is told, history keeps only the final reply', async () => {
    const h = await startHarness({ scenario: scenario([{ streamCut: true }]) });
    try {
      const handle = await h.start();
      const lines = await watch(handle);
      assert.equal((await handle.result()).status, 'completed');
      assert.deepEqual(
        h.model.requests.map((r) => r.status),
        [-1, 200, 200],
      );
      const text = lines.map((l) => l.line);
      const restart = text.findIndex((l) => l.startsWith('  ↻ attempt 2 writes the reply again'));
      assert.ok(restart > 0, text.join('\n'));
      assert.match(text[restart]!, /broke off after \d+ characters/);
      // After the notice the reply is shown whole, once.
      assert.deepEqual(streamed(lines.slice(restart)), LINES);
      const [call] = (await readAudit(h.client, handle.workflowId)).filter((r) => r.type === 'model_call');
      assert.equal(call?.type === 'model_call' && call.attempts, 2);
      assert.match(String(call?.type === 'model_call' && call.lastFailure), /streamed reply broke off/);
      assert.equal(call?.type === 'model_call' && call.content, TEXT);
      assert.equal(await inHistory(handle, LINES[5]!), 1);
    } finally {
      await h.close();
    }
  });

  it('a stream that stalls past the heartbeat timeout is dropped and asked again, without waiting it out', async () => {
    const h = await startHarness({ scenario: scenario([{ streamStallMs: 12_000 }]), modelStallMs: 2_000 });
    try {
      const handle = await h.start();
      const lines = await watch(handle);
      assert.equal((await handle.result()).status, 'completed');
      const [first, second] = h.model.requests;
      const gap = second!.at - first!.at;
      assert.ok(gap < 11_000, `the second attempt came ${gap} ms after the first: the stall (12 s) was waited out`);
      const [call] = (await readAudit(h.client, handle.workflowId)).filter((r) => r.type === 'model_call');
      assert.match(
        String(call?.type === 'model_call' && call.lastFailure),
        /stalled: no new piece for \d+ s after \d+ characters/,
      );
      assert.ok(lines.some((l) => l.line.startsWith('  ↻ attempt 2')));
      assert.equal(await inHistory(handle, LINES[5]!), 1);
    } finally {
      await h.close();
    }
  });

  it('whole replies still work when streaming is off', async () => {
    const h = await startHarness({ scenario: scenario(), modelStream: false });
    try {
      const handle = await h.start();
      assert.equal((await handle.result()).answer, 'The answer is 42.');
      assert.notEqual(h.model.requests[0]!.body.stream, true);
    } finally {
      await h.close();
    }
  });
});
