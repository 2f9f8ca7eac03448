// The floor: what one server hop costs on the embedded dev server, with its default limits and tuned.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { startEphemeralServer } from '../src/temporal/ephemeral-server.js';
import { workflowBundleCode } from '../src/worker/bundle.js';
import { median, table } from './stats.js';

const WORKFLOWS = fileURLToPath(new URL('./floor-workflows.ts', import.meta.url));
const ACTIVITIES = 20;
const ROUNDS = 10;
const REPEATS = 3;

export interface Floor {
  activityMs: number;
  signalHopMs: number;
}

/** Median cost of one empty activity round trip and of one signal hop between two workflows. */
export async function measure(address: string, code?: string): Promise<Floor> {
  code ??= await workflowBundleCode(WORKFLOWS);
  const run = `${process.pid}-${Date.now()}`;
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    taskQueue: `floor-${run}`,
    workflowBundle: { code },
    activities: { noop: async () => {} },
  });
  const running = worker.run();
  const client = new Client({ connection: await Connection.connect({ address }) });
  const acts: number[] = [];
  const hops: number[] = [];
  try {
    for (let r = 0; r < REPEATS; r++) {
      let t = Date.now();
      await client.workflow.execute('activityLoop', {
        taskQueue: `floor-${run}`,
        workflowId: `loop-${run}-${r}`,
        args: [ACTIVITIES],
      });
      acts.push((Date.now() - t) / ACTIVITIES);
      t = Date.now();
      const a = `ping-${run}-${r}`;
      const b = `pong-${run}-${r}`;
      const pong = await client.workflow.start('pingPong', {
        taskQueue: `floor-${run}`,
        workflowId: b,
        args: [a, ROUNDS, false],
      });
      await client.workflow.execute('pingPong', { taskQueue: `floor-${run}`, workflowId: a, args: [b, ROUNDS, true] });
      await pong.result();
      hops.push((Date.now() - t) / (2 * ROUNDS));
    }
  } finally {
    worker.shutdown();
    await running;
    await client.connection.close();
    await connection.close();
  }
  return { activityMs: median(acts), signalHopMs: median(hops) };
}

export async function benchFloor(): Promise<{ text: string; tuned: Floor }> {
  const code = await workflowBundleCode(WORKFLOWS);
  const results: Record<string, Floor> = {};
  for (const tuned of [false, true]) {
    const server = await startEphemeralServer(mkdtempSync(path.join(tmpdir(), 'dagent-floor-')), () => {}, { tuned });
    try {
      results[tuned ? 'tuned' : 'default'] = await measure(server.address, code);
    } finally {
      await server.stop();
    }
  }
  const d = results.default!;
  const t = results.tuned!;
  const text = [
    `Floor: one empty activity round trip, and one signal hop between two workflows (median of ${REPEATS}).`,
    table(
      ['dev server', 'activity round trip', 'signal hop'],
      [
        ['default limits', `${d.activityMs.toFixed(1)} ms`, `${d.signalHopMs.toFixed(1)} ms`],
        ['tuned (ours)', `${t.activityMs.toFixed(1)} ms`, `${t.signalHopMs.toFixed(1)} ms`],
        ['ratio', (d.activityMs / t.activityMs).toFixed(2), (d.signalHopMs / t.signalHopMs).toFixed(2)],
      ],
    ),
  ].join('\n');
  return { text, tuned: t };
}
