// A long job: one read of a 2.8 KB file per step, for many steps. History bytes and time per step
// early and late in the job show whether either grows with the job's length.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import OpenAI from 'openai';
import { fetchJobRuns } from '../src/client/audit.js';
import { startScriptedModel, type ScriptHandler } from '../src/scripted-model/server.js';
import { builtinTools } from '../src/tools/builtins/index.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { startHarness, toolContext } from '../tests/helpers/harness.js';
import { table } from './stats.js';

const DATA = `${'log line with some text in it, '.repeat(90)}\n`; // 2.8 KB
const bytesOf = (h: proto.temporal.api.history.v1.IHistory) =>
  proto.temporal.api.history.v1.History.encode(h).finish().length;

const script =
  (steps: number, starts: number[]): ScriptHandler =>
  ({ step }) => {
    starts[step] = Date.now();
    return step < steps
      ? { reply: { toolCalls: [{ name: 'read_file', arguments: { path: 'data.txt' } }] } }
      : { reply: { content: 'done' } };
  };

/** Steps counted by the model calls made (a compacted conversation holds fewer assistant messages). */
const countingScript = (steps: number, starts: number[]): ScriptHandler => {
  let n = 0;
  return () => {
    const step = n++;
    starts[step] = Date.now();
    return step < steps
      ? { reply: { toolCalls: [{ name: 'read_file', arguments: { path: 'data.txt' } }] } }
      : { reply: { content: 'done' } };
  };
};

/** The model's context bounded by compaction: the time of a step should no longer grow. */
const COMPACT_AT_TOKENS = 16_000;

async function boundedJob(steps: number): Promise<{ starts: number[]; compactions: number }> {
  const starts: number[] = [];
  const h = await startHarness({ handler: countingScript(steps, starts) });
  writeFileSync(path.join(h.workspace, 'data.txt'), DATA);
  try {
    const handle = await h.start({
      maxSteps: steps + 1,
      noProgressRepeats: steps + 5,
      compactAtTokens: COMPACT_AT_TOKENS,
    });
    await handle.result();
    const runs = await fetchJobRuns(h.client, handle.workflowId);
    const compactions = runs
      .flatMap((r) => r.events ?? [])
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'compactConversation').length;
    return { starts, compactions };
  } finally {
    await h.close();
  }
}

/** The same job as a hand-written in-process loop: the model sees the same growing conversation. */
async function inProcessLoop(steps: number, workspace: string, starts: number[]): Promise<void> {
  const model = await startScriptedModel({ handler: script(steps, starts) });
  const client = new OpenAI({ baseURL: model.url, apiKey: 'k', maxRetries: 0 });
  const registry = new ToolRegistry(builtinTools);
  const ctx = toolContext(workspace);
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'read' }];
  try {
    for (;;) {
      const msg = (await client.chat.completions.create({ model: 'm', messages, tools: registry.openAITools() }))
        .choices[0]!.message;
      messages.push(msg);
      if (!msg.tool_calls?.length) return;
      for (const tc of msg.tool_calls) {
        if (tc.type !== 'function') continue;
        const r = await registry.execute(
          { id: tc.id, name: tc.function.name, args: JSON.parse(tc.function.arguments) },
          ctx,
        );
        messages.push({ role: 'tool', tool_call_id: tc.id, content: r.output });
      }
    }
  } finally {
    await model.close();
  }
}

export async function benchLongJob(steps = 1000): Promise<string> {
  const stepStarts: number[] = [];
  const loopStarts: number[] = [];
  const h = await startHarness({ handler: script(steps, stepStarts) });
  writeFileSync(path.join(h.workspace, 'data.txt'), DATA);
  try {
    const handle = await h.start({ maxSteps: steps + 1, noProgressRepeats: steps + 5 });
    await handle.result();
    const runs = await fetchJobRuns(h.client, handle.workflowId);
    // History bytes up to step n: the runs' events, counted until the n-th model call is scheduled.
    const events = runs.flatMap((r) =>
      (r.events ?? []).map((e) => ({ e, bytes: proto.temporal.api.history.v1.HistoryEvent.encode(e).finish().length })),
    );
    let total = 0;
    let modelCalls = 0;
    const bytesAt = new Map<number, number>();
    for (const { e, bytes } of events) {
      if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel') bytesAt.set(++modelCalls, total);
      total += bytes;
    }
    const perStep = (a: number, b: number) => ((bytesAt.get(b)! - bytesAt.get(a)!) / (b - a)).toFixed(0);
    await inProcessLoop(steps, h.workspace, loopStarts);
    const ms = (t: number[], a: number, b: number) => (t[b]! - t[a]!) / (b - a);
    const row = (label: string, a: number, b: number) => [
      label,
      perStep(a + 1, b + 1),
      ms(stepStarts, a, b).toFixed(1),
      ms(loopStarts, a, b).toFixed(1),
      (ms(stepStarts, a, b) - ms(loopStarts, a, b)).toFixed(1),
    ];
    const rows = [
      row('steps 1–10', 0, 9),
      row('steps 90–100', 89, 99),
      row(`steps ${steps - 100}–${steps}`, steps - 100, steps - 1),
    ];
    const first100 = stepStarts[100]! - stepStarts[0]!;
    const last100 = stepStarts[steps]! - stepStarts[steps - 100]!;
    const whole = runs.map(bytesOf).reduce((a, b) => a + b, 0);
    const bounded = await boundedJob(steps);
    const b = bounded.starts;
    const boundedRatio = (b[steps]! - b[steps - 100]!) / (b[100]! - b[0]!);
    return [
      `Long job: ${steps} steps of one 2.8 KB read each (${runs.length} runs; continue-as-new at Temporal's suggestion).`,
      table(['where', 'history bytes/step', 'ms/step durable', 'ms/step in-process loop', 'difference'], rows),
      `whole history ${whole} bytes = ${(whole / steps).toFixed(0)} bytes/step; the step's new content is ~2,900 bytes (the output, stored once as a 100-byte reference)`,
      `time of the last 100 steps / the first 100: ${(last100 / first100).toFixed(2)} durable, ${((loopStarts[steps]! - loopStarts[steps - 100]!) / (loopStarts[100]! - loopStarts[0]!)).toFixed(2)} in-process (the model's input grows with the conversation either way)`,
      `with the context bounded (compactAtTokens ${COMPACT_AT_TOKENS}, ${bounded.compactions} compactions): ms/step ${ms(b, 0, 9).toFixed(1)} at steps 1–10, ${ms(b, 89, 99).toFixed(1)} at 90–100, ${ms(b, steps - 100, steps - 1).toFixed(1)} at ${steps - 100}–${steps}; last 100 steps / first 100: ${boundedRatio.toFixed(2)}`,
    ].join('\n');
  } finally {
    await h.close();
  }
}
