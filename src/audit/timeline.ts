import { hostOf, ranOnManyHosts } from './hosts.js';
import { preview } from '../workflow-safe/preview.js';
import type { AuditRecord, ToolCallRecord } from './schema.js';

const ms = (x: number | null) => (x === null ? '?' : x < 1000 ? `${x} ms` : `${(x / 1000).toFixed(2)} s`);
const rel = (t: string, t0: number) => {
  const s = (Date.parse(t) - t0) / 1000; // negative for a fork's recorded steps, which came before it
  return `${s < 0 ? '' : '+'}${s.toFixed(3)}s`.padStart(10);
};

function overlapsAnother(r: ToolCallRecord, all: ToolCallRecord[]): boolean {
  if (!r.startedAt || !r.endedAt) return false;
  const [a0, a1] = [Date.parse(r.startedAt), Date.parse(r.endedAt)];
  return all.some(
    (o) => o !== r && o.startedAt && o.endedAt && Date.parse(o.startedAt) <= a1 && a0 <= Date.parse(o.endedAt),
  );
}

/** The audit records as a readable timeline; tool calls of one step whose spans touch (to the millisecond) are marked ∥. */
export function formatTimeline(records: AuditRecord[]): string {
  const start = records.find((r) => r.type === 'job_start');
  let lastAgent: string | undefined;
  const t0 = Date.parse(start?.at ?? records[0]?.at ?? new Date().toISOString());
  const tools = records.filter((r): r is ToolCallRecord => r.type === 'tool_call');
  const lines: string[] = [];
  const manyHosts = ranOnManyHosts(records);
  for (const r of records) {
    switch (r.type) {
      case 'job_start': {
        const i = r.input as {
          task?: string;
          workspace?: string;
          workspaceId?: string;
          model?: string;
          toolFormat?: string;
        };
        lines.push(`Job ${r.jobId} (${r.workflowType}), started ${r.at}`);
        lines.push(`  task: ${preview(i.task ?? '', 200)}`);
        lines.push(
          `  workspace: ${i.workspaceId ? `${i.workspaceId} (declared: its tools ran on the hosts that have it)` : (i.workspace ?? '?')}   model: ${i.model ?? '(worker default)'}   format: ${i.toolFormat ?? 'native'}`,
        );
        break;
      }
      case 'model_call': {
        const retry = r.attempts > 1 ? `  attempts ${r.attempts} (before: ${preview(r.lastFailure ?? '', 80)})` : '';
        const what =
          r.status !== 'ok'
            ? `${r.status}: ${r.error}`
            : r.callIds.length
              ? `${r.callIds.length} tool call${r.callIds.length > 1 ? 's' : ''}`
              : 'final answer';
        const recorded = r.fromRecording ? `  (recorded in ${r.fromRecording}; not run again)` : '';
        const agent = r.agent && r.agent !== lastAgent ? `  agent ${r.agent}` : '';
        if (r.agent) lastAgent = r.agent;
        lines.push(
          `${rel(r.at, t0)}  step ${r.step}  model ${r.model ?? '?'}  ${ms(r.durationMs)}  ${r.usage?.totalTokens ?? '?'} tokens${r.costUsd !== undefined ? ` $${r.costUsd.toFixed(4)}` : ''}  → ${what}${retry}${agent}${recorded}`,
        );
        break;
      }
      case 'tool_call': {
        const mark = overlapsAnother(
          r,
          tools.filter((t) => t.step === r.step),
        )
          ? '∥'
          : ' ';
        const call = `${r.name} ${preview(r.rawArguments, 70)}`;
        if (r.status === 'rejected') {
          lines.push(`${rel(r.at, t0)}    ✗ ${call}  rejected: ${preview(r.rejected ?? '', 120)}`);
          break;
        }
        const approval = r.approval
          ? `  ${r.approval.approve ? 'approved' : 'denied'} by ${r.approval.by}${r.approval.reason ? ` (${preview(r.approval.reason, 60)})` : ''}`
          : '';
        const rule =
          r.policy && r.policy.decision !== 'allow' ? `  policy ${r.policy.decision} [${r.policy.rule}]` : '';
        if (r.status === 'denied' && r.policy?.decision === 'deny') {
          lines.push(`${rel(r.at, t0)}    ✗ ${call}${rule}: not run (${preview(r.policy.reason ?? '', 80)})`);
          break;
        }
        if (r.status === 'denied') {
          lines.push(`${rel(r.at, t0)}    ✗ ${call}${approval}${rule}: not run`);
          break;
        }
        const res = r.resources.length
          ? `${r.effect} ${r.resources.map((k) => k.replace(/^file:.*\//, 'file:…/')).join(',')}`
          : r.effect === 'write'
            ? 'write (barrier)'
            : 'read';
        const lock = r.locks
          .map((l) => `lock token ${l.token}${l.waitedMs ? ` waited ${ms(l.waitedMs)}` : ''}`)
          .join(', ');
        const where = manyHosts && r.worker ? `  on ${hostOf(r.worker)}` : '';
        const retry = `${r.attempts > 1 ? `  attempts ${r.attempts}` : ''}${r.cachedFrom ? `  cache hit: unchanged since ${r.cachedFrom}, not run again` : ''}`;
        const out = r.result ? `${r.result.bytes} B "${preview(r.result.output, 50)}"` : (r.error ?? '');
        lines.push(
          `${rel(r.at, t0)}    ${mark} ${call}${approval}${rule}  ${res}${lock ? `  ${lock}` : ''}${where}  ${ms(r.durationMs)}  ${r.status}${retry}  ${out}`,
        );
        break;
      }
      case 'compaction': {
        lines.push(
          `${rel(r.at, t0)}  ⇊ conversation compacted: ${r.summarised ?? '?'} of ${r.messagesBefore} messages summarised into one${r.status === 'ok' ? '' : ` (${r.status})`}`,
        );
        break;
      }
      case 'resume': {
        const what = [
          r.model ? `model ${r.model}` : '',
          r.maxTokens ? `max tokens ${r.maxTokens}` : '',
          r.deadlineMs ? `${Math.round(r.deadlineMs / 1000)} s more` : '',
          r.compact ? 'conversation compacted' : '',
        ].filter(Boolean);
        lines.push(`${rel(r.at, t0)}  ▶ resumed by ${r.by}${what.length ? ` (${what.join(', ')})` : ''}`);
        break;
      }
      case 'job_end': {
        if (r.status === 'running') {
          lines.push('           (still running)');
          break;
        }
        lines.push(
          `${rel(r.at, t0)}  end: ${r.status}${r.steps !== null ? ` after ${r.steps} steps` : ''}${r.usage ? ` (${r.usage.totalTokens} tokens)` : ''}`,
        );
        if (r.answer) lines.push(`           answer: ${preview(r.answer, 200)}`);
        if (r.error) lines.push(`           error: ${r.error}`);
      }
    }
  }
  return lines.join('\n');
}
