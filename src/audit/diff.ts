import type { AuditRecord, ModelCallRecord, ToolCallRecord } from './schema.js';
import { preview } from '../workflow-safe/preview.js';

/** One step of a job, as the diff compares it. */
interface StepView {
  calls: string[];
  results: string[];
  answer: string | null;
  tokens: number;
}

function steps(records: AuditRecord[]): Map<number, StepView> {
  const out = new Map<number, StepView>();
  const view = (n: number) => {
    let v = out.get(n);
    if (!v) out.set(n, (v = { calls: [], results: [], answer: null, tokens: 0 }));
    return v;
  };
  for (const r of records) {
    if (r.type === 'model_call') {
      const m = r as ModelCallRecord;
      const v = view(m.step);
      v.tokens += m.usage?.totalTokens ?? 0;
      if (m.status === 'ok' && !m.callIds.length) v.answer = m.content;
    } else if (r.type === 'tool_call') {
      const t = r as ToolCallRecord;
      const v = view(t.step);
      v.calls.push(`${t.name} ${t.rawArguments}`);
      v.results.push(t.result ? `${t.status} ${t.result.preview}` : t.status);
    }
  }
  return out;
}

/**
 * Two jobs step by step — calls (tool and arguments), results, answer, tokens — as lines for the
 * terminal: `=` where a step is the same, `≠` with both sides where it differs.
 */
export function diffJobs(
  a: { id: string; records: AuditRecord[] },
  b: { id: string; records: AuditRecord[] },
): string[] {
  const sa = steps(a.records);
  const sb = steps(b.records);
  const last = Math.max(0, ...sa.keys(), ...sb.keys());
  const lines = [`A = ${a.id}`, `B = ${b.id}`];
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  for (let n = 1; n <= last; n++) {
    const x = sa.get(n);
    const y = sb.get(n);
    if (x && y && same(x.calls, y.calls) && same(x.results, y.results) && x.answer === y.answer) {
      lines.push(
        `= step ${n}: ${x.calls.length ? x.calls.map((c) => preview(c, 60)).join('; ') : `answer ${preview(x.answer ?? '', 60)}`}  (tokens ${x.tokens} / ${y.tokens})`,
      );
      continue;
    }
    lines.push(`≠ step ${n}`);
    for (const [side, v] of [
      ['A', x],
      ['B', y],
    ] as const) {
      if (!v) {
        lines.push(`    ${side}: (no such step)`);
        continue;
      }
      for (let i = 0; i < v.calls.length; i++)
        lines.push(`    ${side}: ${preview(v.calls[i]!, 80)}  → ${preview(v.results[i] ?? '', 60)}`);
      if (v.answer !== null) lines.push(`    ${side}: answer ${preview(v.answer, 100)}`);
      lines.push(`    ${side}: tokens ${v.tokens}`);
    }
  }
  const end = (rs: AuditRecord[]) =>
    rs.find((r) => r.type === 'job_end') as { status?: string; answer?: string | null } | undefined;
  const ea = end(a.records);
  const eb = end(b.records);
  const total = (m: Map<number, StepView>) => [...m.values()].reduce((s, v) => s + v.tokens, 0);
  lines.push(
    `end: A ${ea?.status ?? '?'} after ${sa.size} steps, ${total(sa)} tokens; B ${eb?.status ?? '?'} after ${sb.size} steps, ${total(sb)} tokens; answers ${ea?.answer === eb?.answer ? 'the same' : 'differ'}`,
  );
  return lines;
}
