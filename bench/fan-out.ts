// Fan-out: N read tools of fixed latency in one model step, as a durable turn vs an in-process Promise.all.
import { z } from 'zod';
import { builtinTools } from '../src/tools/builtins/index.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
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

export async function benchFanOut(ns = [1, 4, 16, 64]): Promise<string> {
  const h = await startHarness({
    tools: [...builtinTools, fixedRead],
    handler: ({ body, step }) => {
      const n = Number(String(body.messages.find((m) => m.role === 'user')!.content).split(' ')[1]);
      return step === 0
        ? { reply: { toolCalls: Array.from({ length: n }, (_, i) => ({ name: 'fixed_read', arguments: { i } })) } }
        : { reply: { content: 'done' } };
    },
  });
  const registry = new ToolRegistry([fixedRead]);
  const ctx = toolContext(h.workspace);
  const rows: Array<Array<string | number>> = [];
  try {
    for (const n of ns) {
      const durable: number[] = [];
      const local: number[] = [];
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
      }
      const d = median(durable);
      const l = median(local);
      rows.push([n, `${d} ms`, `${l} ms`, (d / l).toFixed(2), `${d - l} ms`, Math.round(historyBytes / 2)]);
    }
  } finally {
    await h.close();
  }
  return (
    `Fan-out: N reads of ${LATENCY_MS} ms in one step (median of ${REPEATS}); the durable turn includes its 2 model calls.\n` +
    table(['N', 'durable turn', 'Promise.all', 'ratio', 'overhead', 'history bytes/step'], rows)
  );
}
