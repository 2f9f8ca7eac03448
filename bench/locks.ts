// Lock contention: K agents appending to one file, each append taking the cross-agent lock.
import { builtinTools } from '../src/tools/builtins/index.js';
import { lockTools, type WriteRecord } from '../tests/helpers/lock-tools.js';
import { startHarness } from '../tests/helpers/harness.js';
import { median, quantile, table } from './stats.js';

const APPENDS = 5;

export async function benchLocks(ks = [1, 2, 4, 8]): Promise<string> {
  const rows: Array<Array<string | number>> = [];
  for (const k of ks) {
    const writes: WriteRecord[] = [];
    const h = await startHarness({
      tools: [...builtinTools, ...lockTools(writes, 0)],
      handler: ({ body, step }) => {
        const agent = String(body.messages.find((m) => m.role === 'user')!.content);
        return step < APPENDS
          ? {
              reply: {
                toolCalls: [{ name: 'append_slow', arguments: { path: 'shared.txt', line: `${agent} ${step}` } }],
              },
            }
          : { reply: { content: 'done' } };
      },
    });
    try {
      const handles = await Promise.all(Array.from({ length: k }, (_, i) => h.start({ task: `agent-${i}` })));
      await Promise.all(handles.map((x) => x.result()));
    } finally {
      await h.close();
    }
    const s = [...writes].sort((a, b) => a.start - b.start);
    // A handoff: one agent's write ends, another agent's write on the same key starts.
    const handoffs = s.slice(1).flatMap((w, i) => (w.jobId !== s[i]!.jobId ? [w.start - s[i]!.end] : []));
    const span = s[s.length - 1]!.end - s[0]!.start;
    const msOrDash = (x: number) => (Number.isNaN(x) ? '—' : `${x} ms`);
    rows.push([
      k,
      s.length,
      handoffs.length,
      msOrDash(median(handoffs)),
      msOrDash(quantile(handoffs, 0.95)),
      ((s.length / span) * 1000).toFixed(1),
    ]);
  }
  return (
    `Locks: K agents × ${APPENDS} appends to one file (instant writes), every append under the cross-agent lock.\n` +
    table(['K', 'writes', 'handoffs', 'handoff median', 'handoff p95', 'grants/s'], rows)
  );
}
