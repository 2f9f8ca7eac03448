// Fan-out: N read tools of fixed latency in one model step, as a durable turn vs an in-process Promise.all.
import OpenAI from 'openai';
import { z } from 'zod';
import { builtinTools } from '../src/tools/builtins/index.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { startScriptedModel, type ScriptHandler } from '../src/scripted-model/server.js';
import { startHarness, toolContext } from '../tests/helpers/harness.js';
import { median, table } from './stats.js';

const LATENCY_MS = 200;
const REPEATS = 3;

const fixedRead = defineTool({
  name: 'fixed_read',
  description: 'A read that takes a fixed time.',
  input: z.object({ i: z.number() }),
  effect: 'read',
  execute: async ({ i }) => {
    await new Promise((r) => setTimeout(r, LATENCY_MS));
    return `value ${i}`;
  },
});

const fanOut: ScriptHandler = ({ body, step }) => {
  const n = Number(String(body.messages.find((m) => m.role === 'user')!.content).split(' ')[1]);
  return step === 0
    ? { reply: { toolCalls: Array.from({ length: n }, (_, i) => ({ name: 'fixed_read', arguments: { i } })) } }
    : { reply: { content: 'done' } };
};

/** The same step as a hand-written loop: the same 2 model calls over HTTP, the reads with Promise.all. */
async function inProcessStep(
  client: OpenAI,
  registry: ToolRegistry,
  ctx: ReturnType<typeof toolContext>,
  task: string,
) {
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: task }];
  for (;;) {
    const msg = (await client.chat.completions.create({ model: 'm', messages, tools: registry.openAITools() }))
      .choices[0]!.message;
    messages.push(msg);
    if (!msg.tool_calls?.length) return;
    const results = await Promise.all(
      msg.tool_calls.map(async (tc) => {
        const fn = (tc as { function: { name: string; arguments: string } }).function;
        const r = await registry.execute({ id: tc.id, name: fn.name, args: JSON.parse(fn.arguments) }, ctx);
        return { role: 'tool' as const, tool_call_id: tc.id, content: r.output };
      }),
    );
    messages.push(...results);
  }
}

export async function benchFanOut(ns = [1, 4, 16, 64]): Promise<string> {
  const h = await startHarness({ tools: [...builtinTools, fixedRead], handler: fanOut });
  const loopModel = await startScriptedModel({ handler: fanOut });
  const client = new OpenAI({ baseURL: loopModel.url, apiKey: 'k', maxRetries: 0 });
  const registry = new ToolRegistry([fixedRead]);
  const ctx = toolContext(h.workspace);
  const rows: Array<Array<string | number>> = [];
  try {
    for (const n of ns) {
      const durable: number[] = [];
      const local: number[] = [];
      const loop: number[] = [];
      let historyBytes = 0;
      for (let r = 0; r < REPEATS; r++) {
        const t0 = Date.now();
        const handle = await h.start({ task: `fan ${n} run ${r}` });
        await handle.result();
        durable.push(Date.now() - t0);
        historyBytes = JSON.stringify(await handle.fetchHistory()).length;
        const t1 = Date.now();
        await Promise.all(
          Array.from({ length: n }, (_, i) =>
            registry.execute({ id: String(i), name: 'fixed_read', args: { i } }, ctx),
          ),
        );
        local.push(Date.now() - t1);
        const t2 = Date.now();
        await inProcessStep(client, registry, ctx, `fan ${n} loop ${r}`);
        loop.push(Date.now() - t2);
      }
      const d = median(durable);
      const l = median(local);
      const p = median(loop);
      rows.push([
        n,
        `${d} ms`,
        `${l} ms`,
        (d / l).toFixed(2),
        `${p} ms`,
        `${d - p} ms`,
        (d / p).toFixed(2),
        Math.round(historyBytes / 2),
      ]);
    }
  } finally {
    await h.close();
    await loopModel.close();
  }
  return (
    `Fan-out: N reads of ${LATENCY_MS} ms in one step (median of ${REPEATS}). The durable turn makes 2 model calls; so does the in-process loop (same scripted model, reads with Promise.all).\n` +
    table(
      [
        'N',
        'durable turn',
        'reads alone',
        'ratio',
        'in-process loop',
        'durable overhead',
        'ratio',
        'history bytes/step',
      ],
      rows,
    )
  );
}
