import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { startEphemeralServer } from './src/temporal/ephemeral-server.js';
import { installRuntime } from './src/worker/runtime.js';
import { builtinTools } from './src/tools/builtins/index.js';
import { defineTool } from './src/tools/define-tool.js';
import { startHarness } from './tests/helpers/harness.js';
const work = mkdtempSync(path.join(tmpdir(), 'dagent-trace-'));
process.env.DAGENT_HOME = path.join(work, 'home');
installRuntime('ERROR');
const server = await startEphemeralServer(work, () => {});
process.env.TEMPORAL_ADDRESS = server.address;
const fixedRead = defineTool({ name: 'fixed_read', description: 'x', input: z.object({ i: z.number() }), effect: 'read',
  execute: async ({ i }) => { await new Promise((r) => setTimeout(r, 200)); return `value ${i}`; } });
const h = await startHarness({ tools: [...builtinTools, fixedRead], handler: ({ step }) => step === 0
  ? { reply: { toolCalls: Array.from({ length: 4 }, (_, i) => ({ name: 'fixed_read', arguments: { i } })) } }
  : { reply: { content: 'done' } } });
for (let r = 0; r < 40; r++) {
  const t0 = Date.now();
  const handle = await h.start({ task: `fan 4 run ${r}` });
  await handle.result();
  const total = Date.now() - t0;
  if (r < 39) continue;
  const hist = await handle.fetchHistory();
  const ts = (e: any) => Number(e.eventTime.seconds) * 1000 + e.eventTime.nanos / 1e6;
  const first = ts(hist.events![0]);
  console.log('client total', total);
  for (const e of hist.events!) {
    const type = Object.keys(e).find((k) => k.endsWith('Attributes'))!.replace('EventAttributes', '');
    const extra = (e as any).activityTaskScheduledEventAttributes?.activityType?.name ?? '';
    console.log((ts(e) - first).toFixed(1).padStart(7), type, extra);
  }
}
await h.close();
await server.stop();
process.exit(0);
