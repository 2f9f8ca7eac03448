import { hostOf, ranOnManyHosts } from '../audit/hosts.js';
import type { AuditRecord, ModelCallRecord, ToolCallRecord } from '../audit/schema.js';

// The timeline page's model of a job, from the same audit records as `dagent audit --json`: pure
// (no DOM), so the page and the tests share it. Times are milliseconds from the job's start.

export interface Bar {
  /** The call id (tool) or `step N` (model): the row's identity on the page. */
  id: string;
  kind: 'model' | 'tool';
  step: number;
  title: string;
  /** ok, error, failed, rejected, denied, waiting, running, … */
  status: string;
  start: number | null;
  end: number | null;
  /** Time spent waiting for locks before the call started. */
  waitMs: number;
  /** Lines under the bar: locks, approvals, policy, retries, errors, results. */
  notes: string[];
  /** Tool calls of one step that ran at the same time share no lane: lane 0, 1, … within the step. */
  lane: number;
}

export interface StepView {
  step: number;
  bars: Bar[];
}

export interface JobView {
  jobId: string;
  task: string;
  status: string;
  /** The end of the axis: the last recorded time, or now for a running job. */
  spanMs: number;
  steps: StepView[];
  answer: string | null;
  error: string | null;
  tokens: number | null;
  resumes: Array<{ at: number; by: string }>;
  /** Where the conversation was compacted (older messages summarised in one). */
  compactions: Array<{ at: number; summarised: number | null; messagesBefore: number }>;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const ms = (x: number) => (x < 1000 ? `${Math.round(x)} ms` : `${(x / 1000).toFixed(2)} s`);

function modelBar(r: ModelCallRecord, t0: number): Bar {
  const notes: string[] = [];
  const calls = r.callIds.length;
  notes.push(
    `${r.status === 'ok' ? (calls ? `${calls} tool call${calls > 1 ? 's' : ''}` : 'final answer') : r.status} · ${r.usage?.totalTokens ?? '?'} tokens${r.costUsd !== undefined ? ` · $${r.costUsd.toFixed(4)}` : ''}${r.model ? ` · ${r.model}` : ''}`,
  );
  if (r.attempts > 1) notes.push(`attempt ${r.attempts}; the one before failed: ${clip(r.lastFailure ?? '?', 300)}`);
  if (r.error) notes.push(`error: ${clip(r.error, 300)}`);
  if (r.offered) notes.push(`offered ${r.offered.length} tools`);
  if (r.fromRecording) notes.push(`recorded in ${r.fromRecording}; not run again`);
  return {
    id: `step ${r.step}`,
    kind: 'model',
    step: r.step,
    title: `model · step ${r.step}`,
    status: r.status,
    start: r.startedAt ? Date.parse(r.startedAt) - t0 : null,
    end: r.endedAt ? Date.parse(r.endedAt) - t0 : null,
    waitMs: 0,
    notes,
    lane: 0,
  };
}

/** A call not started yet waits for a person (its policy asks, or the job asks for its tool) or for a lock. */
function toolStatus(r: ToolCallRecord, askFor: string[]): string {
  if (r.status !== 'running' || r.startedAt) return r.status;
  if (!r.approval && (r.policy?.decision === 'ask' || askFor.includes(r.name))) return 'waiting for approval';
  return 'waiting';
}

function toolBar(r: ToolCallRecord, t0: number, askFor: string[], manyHosts: boolean): Bar {
  const notes: string[] = [];
  // Which host ran it, when the job's calls ran on several.
  if (manyHosts && r.worker) notes.push(`ran on ${hostOf(r.worker)} (worker ${r.worker})`);
  // A policy denial says its rule below; its rejection text would say the same again.
  if (r.rejected && r.policy?.decision !== 'deny') notes.push(`rejected: ${clip(r.rejected, 300)}`);
  if (r.policy && r.policy.decision !== 'allow')
    notes.push(
      `policy ${r.policy.decision} [${r.policy.rule}]${r.policy.reason ? `: ${clip(r.policy.reason, 200)}` : ''}`,
    );
  if (r.approval)
    notes.push(
      `${r.approval.approve ? 'approved' : 'denied'} by ${r.approval.by}${r.approval.reason ? `: ${clip(r.approval.reason, 200)}` : ''}`,
    );
  for (const l of r.locks)
    notes.push(
      `lock ${l.key} · token ${l.token}${l.waitedMs ? ` · waited ${ms(l.waitedMs)}` : ''}${l.previousHolder ? ` for ${l.previousHolder}` : ''}`,
    );
  if (r.attempts > 1) notes.push(`attempt ${r.attempts}; the one before failed: ${clip(r.lastFailure ?? '?', 300)}`);
  if (r.error) notes.push(`error: ${clip(r.error, 300)}`);
  if (r.cachedFrom) notes.push(`cache hit: the files are unchanged since ${r.cachedFrom}; the tool did not run`);
  if (r.result)
    notes.push(`${r.result.isError ? 'tool error' : 'result'} (${r.result.bytes} B): ${clip(r.result.preview, 160)}`);
  if (r.fromRecording) notes.push(`recorded in ${r.fromRecording}; not run again`);
  const start = r.startedAt ? Date.parse(r.startedAt) - t0 : null;
  const waitMs = r.locks.reduce((m, l) => Math.max(m, l.waitedMs), 0);
  return {
    id: r.callId,
    kind: 'tool',
    step: r.step,
    title: `${r.name} ${clip(r.rawArguments, 120)}`,
    status: toolStatus(r, askFor),
    // A call that never started (rejected, denied, waiting) is placed where it was decided.
    start: start ?? Date.parse(r.at) - t0,
    // Only a call still waiting or running stays open; one that never ran is a mark where it was decided.
    end: r.endedAt ? Date.parse(r.endedAt) - t0 : r.status === 'running' ? null : (start ?? Date.parse(r.at) - t0),
    waitMs,
    notes,
    lane: 0,
  };
}

/** Lanes: a call takes the first lane whose last call ended before it began. */
function assignLanes(bars: Bar[], now: number): void {
  const ends: number[] = [];
  for (const b of [...bars].sort((x, y) => (x.start ?? 0) - (y.start ?? 0))) {
    const from = (b.start ?? 0) - b.waitMs;
    let lane = ends.findIndex((e) => e <= from);
    if (lane < 0) lane = ends.length;
    ends[lane] = b.end ?? (b.status.startsWith('waiting') || b.status === 'running' ? now : (b.start ?? 0));
    b.lane = lane;
  }
}

const callOrder = (b: Bar) => Number(/c(\d+)$/.exec(b.id)?.[1] ?? 0);

export function jobView(records: AuditRecord[], nowMs = Date.now()): JobView {
  const start = records.find((r) => r.type === 'job_start');
  const end = records.find((r) => r.type === 'job_end');
  const t0 = Date.parse(start?.at ?? records[0]?.at ?? new Date(nowMs).toISOString());
  const running = !end || end.status === 'running';
  const steps = new Map<number, Bar[]>();
  const add = (b: Bar) => steps.set(b.step, [...(steps.get(b.step) ?? []), b]);
  const resumes: JobView['resumes'] = [];
  const compactions: JobView['compactions'] = [];
  const manyHosts = ranOnManyHosts(records);
  const input = (start?.type === 'job_start' ? start.input : {}) as { task?: string; requireApproval?: string[] };
  const askFor = Array.isArray(input.requireApproval) ? input.requireApproval : [];
  let last = 0;
  for (const r of records) {
    if (r.type === 'model_call') add(modelBar(r, t0));
    else if (r.type === 'tool_call') add(toolBar(r, t0, askFor, manyHosts));
    else if (r.type === 'resume') resumes.push({ at: Date.parse(r.at) - t0, by: r.by });
    else if (r.type === 'compaction')
      compactions.push({ at: Date.parse(r.at) - t0, summarised: r.summarised, messagesBefore: r.messagesBefore });
    if (r.type !== 'job_end' || !running) last = Math.max(last, Date.parse(r.at) - t0);
  }
  for (const bars of steps.values()) for (const b of bars) last = Math.max(last, b.end ?? b.start ?? 0);
  const spanMs = Math.max(1, running ? nowMs - t0 : last);
  const views = [...steps.entries()]
    .sort(([a], [b]) => a - b)
    .map(([step, unordered]) => {
      // The model call, then its tool calls in the order the model asked for them (s1c1, s1c2, …).
      const bars = unordered.sort((a, b) =>
        a.kind === 'model' ? -1 : b.kind === 'model' ? 1 : callOrder(a) - callOrder(b),
      );
      assignLanes(
        bars.filter((b) => b.kind === 'tool'),
        spanMs,
      );
      return { step, bars };
    });
  return {
    jobId: start?.jobId ?? records[0]?.jobId ?? '?',
    task: input.task ?? '',
    status: end?.type === 'job_end' ? end.status : 'running',
    spanMs,
    steps: views,
    answer: end?.type === 'job_end' ? end.answer : null,
    error: end?.type === 'job_end' ? end.error : null,
    tokens: end?.type === 'job_end' ? (end.usage?.totalTokens ?? null) : null,
    resumes,
    compactions,
  };
}
