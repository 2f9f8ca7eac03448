// Lock contention: agents writing one file, each write under the cross-agent lock.
import { builtinTools } from '../src/tools/builtins/index.js';
import { lockTools, type WriteRecord } from '../tests/helpers/lock-tools.js';
import { startHarness } from '../tests/helpers/harness.js';
import { measure } from './floor.js';
import { median, quantile, table } from './stats.js';

const APPENDS = 5;
const QUEUED = 12;
const QUEUED_WRITE_MS = 30;

const msOrDash = (x: number) => (Number.isNaN(x) ? '—' : `${x} ms`);

/** Each agent appends `steps` times (one model step each); returns every write, in start order. */
async function run(agents: number, steps: number, writeMs: number): Promise<WriteRecord[]> {
  const writes: WriteRecord[] = [];
  const h = await startHarness({
    tools: [...builtinTools, ...lockTools(writes, writeMs)],
    handler: ({ body, step }) => {
      const agent = String(body.messages.find((m) => m.role === 'user')!.content);
      return step < steps
        ? {
            reply: {
              toolCalls: [{ name: 'append_slow', arguments: { path: 'shared.txt', line: `${agent} ${step}` } }],
            },
          }
        : { reply: { content: 'done' } };
    },
  });
  try {
    const handles = await Promise.all(Array.from({ length: agents }, (_, i) => h.start({ task: `agent-${i}` })));
    await Promise.all(handles.map((x) => x.result()));
  } finally {
    await h.close();
  }
  return [...writes].sort((a, b) => a.start - b.start);
}

/** A handoff: one agent's write ends, another agent's write on the same key starts. */
const handoffs = (s: WriteRecord[]) =>
  s.slice(1).flatMap((w, i) => (w.jobId !== s[i]!.jobId ? [w.start - s[i]!.end] : []));

export async function benchLocks(ks = [1, 2, 4, 8]): Promise<string> {
  const hop = (await measure(process.env.TEMPORAL_ADDRESS!)).signalHopMs;
  const rows: Array<Array<string | number>> = [];
  for (const k of ks) {
    const s = await run(k, APPENDS, 0);
    const h = handoffs(s);
    const span = s[s.length - 1]!.end - s[0]!.start;
    rows.push([
      k,
      s.length,
      h.length,
      msOrDash(median(h)),
      msOrDash(quantile(h, 0.95)),
      ((s.length / span) * 1000).toFixed(1),
    ]);
  }
  // Every agent asks at once: a queue forms, and each handoff is the lock's alone.
  const q = await run(QUEUED, 1, QUEUED_WRITE_MS);
  const qh = handoffs(q);
  const qSpan = q[q.length - 1]!.end - q[0]!.start;
  const holdMs = q.reduce((n, w) => n + (w.end - w.start), 0);
  return [
    `Locks: K agents × ${APPENDS} appends to one file (instant writes), every append under the cross-agent lock.`,
    table(['K', 'writes', 'handoffs', 'handoff median', 'handoff p95', 'grants/s'], rows),
    '',
    `Queued: ${QUEUED} agents write one file at once (${QUEUED_WRITE_MS} ms writes); signal hop on this server ${hop.toFixed(1)} ms.`,
    table(
      ['handoffs', 'handoff median', 'handoff p95', 'median / hop', 'grants/s', 'grants/s, lock time only'],
      [
        [
          qh.length,
          msOrDash(median(qh)),
          msOrDash(quantile(qh, 0.95)),
          (median(qh) / hop).toFixed(2),
          ((q.length / qSpan) * 1000).toFixed(1),
          ((qh.length / (qSpan - holdMs)) * 1000).toFixed(1),
        ],
      ],
    ),
  ].join('\n');
}
