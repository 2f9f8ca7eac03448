import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { LockGrant } from '../workflow-safe/lock-types.js';
import { fromHistory, isReference, type ContentStore } from '../content/store.js';
import { preview } from '../workflow-safe/preview.js';
import {
  isRejected,
  type ApprovalDecision,
  type ConversationRef,
  type ModelRequest,
  type ModelReply,
  type PlannedCall,
  type ResumeOptions,
  type RunnableCall,
  type ToolRequest,
  type ToolResult,
  type TurnResult,
} from '../workflow-safe/types.js';
import {
  AUDIT_SCHEMA_VERSION,
  type AuditRecord,
  type JobEndRecord,
  type ModelCallRecord,
  type ToolCallRecord,
} from './schema.js';

type History = temporal.api.history.v1.IHistory;
type Event = temporal.api.history.v1.IHistoryEvent;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;

const num = (v: unknown) => Number(String(v ?? 0));
const eventMs = (e: Event) => num(e.eventTime?.seconds) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The value of a payload of a history event (an activity's input or result, a workflow's input). */
export function decode<T>(payloads: Payloads, index = 0): T | undefined {
  const p = payloads?.payloads?.[index];
  return p ? (defaultPayloadConverter.fromPayload(p) as T) : undefined;
}

function failureMessage(f: temporal.api.failure.v1.IFailure | null | undefined): string | null {
  if (!f) return null;
  const parts: string[] = [];
  for (let x: typeof f | null | undefined = f; x; x = x.cause) if (x.message) parts.push(x.message);
  return parts.join(': ') || 'failed';
}

interface ActivityRun {
  type: string;
  input: unknown;
  scheduledMs: number;
  startedMs: number | null;
  endedMs: number | null;
  attempt: number;
  lastFailure: string | null;
  /** The worker that ran the last attempt (its identity, pid@host). */
  worker: string | null;
  outcome: 'ok' | 'failed' | 'timed_out' | 'cancelled' | 'running';
  result: unknown;
  error: string | null;
}

/** Turns a turn workflow's history into audit records: what the agent did, in order. */
export function historyToRecords(jobId: string, history: History): AuditRecord[] {
  const v = AUDIT_SCHEMA_VERSION;
  const events = history.events ?? [];
  const runs = new Map<number, ActivityRun>();
  const order: ActivityRun[] = [];
  const grants = new Map<string, LockGrant[]>();
  const decisions = new Map<string, Approval>();
  const input = { requireApproval: [] as string[] };
  const records: Array<{ ms: number; seq: number; r: AuditRecord }> = [];
  let seq = 0;
  const push = (ms: number, r: AuditRecord) => records.push({ ms, seq: seq++, r });
  let end: JobEndRecord | null = null;

  for (const e of events) {
    const ms = eventMs(e);
    const id = num(e.eventId);
    if (e.workflowExecutionStartedEventAttributes) {
      const a = e.workflowExecutionStartedEventAttributes;
      const args = decode<Record<string, unknown>>(a.input) ?? {};
      input.requireApproval = (args.requireApproval as string[] | undefined) ?? [];
      push(ms, {
        schemaVersion: v,
        type: 'job_start',
        jobId,
        at: iso(ms)!,
        runId: a.originalExecutionRunId ?? '',
        workflowType: a.workflowType?.name ?? '',
        input: args,
      });
    } else if (e.activityTaskScheduledEventAttributes) {
      const a = e.activityTaskScheduledEventAttributes;
      const run: ActivityRun = {
        type: a.activityType?.name ?? '',
        input: decode(a.input),
        scheduledMs: ms,
        startedMs: null,
        endedMs: null,
        attempt: 0,
        lastFailure: null,
        worker: null,
        outcome: 'running',
        result: undefined,
        error: null,
      };
      runs.set(id, run);
      order.push(run);
    } else if (e.activityTaskStartedEventAttributes) {
      const a = e.activityTaskStartedEventAttributes;
      const run = runs.get(num(a.scheduledEventId));
      if (run)
        Object.assign(run, {
          startedMs: ms,
          attempt: a.attempt ?? 1,
          lastFailure: failureMessage(a.lastFailure),
          worker: a.identity || null,
        });
    } else if (e.activityTaskCompletedEventAttributes) {
      const a = e.activityTaskCompletedEventAttributes;
      const run = runs.get(num(a.scheduledEventId));
      if (run) Object.assign(run, { endedMs: ms, outcome: 'ok', result: decode(a.result) });
    } else if (
      e.activityTaskFailedEventAttributes ||
      e.activityTaskTimedOutEventAttributes ||
      e.activityTaskCanceledEventAttributes
    ) {
      const a = (e.activityTaskFailedEventAttributes ??
        e.activityTaskTimedOutEventAttributes ??
        e.activityTaskCanceledEventAttributes)!;
      const run = runs.get(num(a.scheduledEventId));
      const outcome = e.activityTaskFailedEventAttributes
        ? 'failed'
        : e.activityTaskTimedOutEventAttributes
          ? 'timed_out'
          : 'cancelled';
      const failure = 'failure' in a ? (a.failure as temporal.api.failure.v1.IFailure) : null;
      if (run) Object.assign(run, { endedMs: ms, outcome, error: failureMessage(failure) ?? outcome });
    } else if (e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'resume') {
      const o = decode<ResumeOptions>(e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest.input.args);
      if (o)
        push(ms, {
          schemaVersion: v,
          type: 'resume',
          jobId,
          at: iso(ms)!,
          by: o.by,
          model: o.model ?? null,
          maxTokens: o.maxTokens ?? null,
          deadlineMs: o.deadlineMs ?? null,
          ...(o.compact ? { compact: true } : {}),
        });
    } else if (e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'decide') {
      const d = decode<ApprovalDecision>(e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest.input.args);
      if (d) decisions.set(d.callId, { approve: d.approve, by: d.by, reason: d.reason ?? null, decidedAt: iso(ms) });
    } else if (e.workflowExecutionSignaledEventAttributes?.signalName === 'lockGranted') {
      const g = decode<LockGrant>(e.workflowExecutionSignaledEventAttributes.input);
      if (g) grants.set(g.callId, [...(grants.get(g.callId) ?? []), g]);
    } else if (e.workflowExecutionCompletedEventAttributes) {
      const r = decode<TurnResult>(e.workflowExecutionCompletedEventAttributes.result);
      end = {
        schemaVersion: v,
        type: 'job_end',
        jobId,
        at: iso(ms)!,
        status: r?.status ?? 'completed',
        reason: r?.reason ?? null,
        answer: r?.answer ?? null,
        steps: r?.steps ?? null,
        usage: r?.usage ?? null,
        error: null,
      };
    } else if (e.workflowExecutionFailedEventAttributes) {
      end = {
        schemaVersion: v,
        type: 'job_end',
        jobId,
        at: iso(ms)!,
        status: 'failed',
        answer: null,
        steps: null,
        usage: null,
        error: failureMessage(e.workflowExecutionFailedEventAttributes.failure),
      };
    } else if (e.workflowExecutionTerminatedEventAttributes) {
      end = {
        schemaVersion: v,
        type: 'job_end',
        jobId,
        at: iso(ms)!,
        status: 'terminated',
        answer: null,
        steps: null,
        usage: null,
        error: e.workflowExecutionTerminatedEventAttributes.reason ?? null,
      };
    } else if (e.workflowExecutionCanceledEventAttributes) {
      end = {
        schemaVersion: v,
        type: 'job_end',
        jobId,
        at: iso(ms)!,
        status: 'cancelled',
        answer: null,
        steps: null,
        usage: null,
        error: null,
      };
    } else if (e.workflowExecutionTimedOutEventAttributes) {
      end = {
        schemaVersion: v,
        type: 'job_end',
        jobId,
        at: iso(ms)!,
        status: 'timed_out',
        answer: null,
        steps: null,
        usage: null,
        error: null,
      };
    } else if (e.workflowExecutionContinuedAsNewEventAttributes) {
      end = {
        schemaVersion: v,
        type: 'job_end',
        jobId,
        at: iso(ms)!,
        status: 'continued_as_new',
        answer: null,
        steps: null,
        usage: null,
        error: null,
      };
    }
  }

  const planned = new Map<string, { call: PlannedCall; step: number; atMs: number }>();
  const ran = new Set<string>();
  for (const run of order) {
    if (run.type === 'callModel') {
      const req = run.input as ModelRequest;
      const step = run.result as ModelReply | undefined;
      for (const c of step?.calls ?? [])
        planned.set(c.id, { call: c, step: req.step, atMs: run.endedMs ?? run.scheduledMs });
      const rec: ModelCallRecord = {
        schemaVersion: v,
        type: 'model_call',
        jobId,
        at: iso(run.scheduledMs)!,
        step: req.step,
        model: step?.model ?? req.model ?? null,
        format: req.toolFormat ?? 'native',
        messagesSent: (req.conversation?.count ?? 0) + (req.append ?? req.messages ?? []).length,
        startedAt: iso(run.startedMs),
        endedAt: iso(run.endedMs),
        durationMs:
          step?.latencyMs ?? (run.startedMs !== null && run.endedMs !== null ? run.endedMs - run.startedMs : null),
        attempts: Math.max(1, run.attempt),
        lastFailure: run.lastFailure,
        status: run.outcome,
        error: run.error,
        finishReason: step?.finishReason ?? null,
        usage: step?.usage ?? null,
        content: step?.assistantMessage.content ?? null,
        callIds: (step?.calls ?? []).map((c) => c.id),
        ...(step?.agent ? { agent: step.agent } : {}),
        ...(step?.costUsd !== undefined ? { costUsd: step.costUsd } : {}),
        ...(step?.offered ? { offered: step.offered } : {}),
      };
      push(run.scheduledMs, rec);
      for (const c of step?.calls ?? []) {
        if (c.rejected)
          push(
            run.endedMs ?? run.scheduledMs,
            toolRecord(jobId, req.step, c, null, [], run.endedMs ?? run.scheduledMs, null),
          );
      }
    } else if (run.type === 'compactConversation') {
      const req = run.input as { conversation: ConversationRef | null };
      const res = run.result as { summarised: number } | undefined;
      push(run.scheduledMs, {
        schemaVersion: v,
        type: 'compaction',
        jobId,
        at: iso(run.scheduledMs)!,
        messagesBefore: req.conversation?.count ?? 0,
        summarised: res?.summarised ?? null,
        status: run.outcome,
      });
    } else if (run.type === 'runTool') {
      const req = run.input as ToolRequest;
      const p = planned.get(req.call.id);
      if (!p) continue;
      ran.add(req.call.id);
      push(
        run.scheduledMs,
        toolRecord(
          jobId,
          p.step,
          p.call,
          run,
          // A call that took its locks again (LockLost) ran once per round: each run shows its own grants.
          grantsOfRun(grants.get(req.call.id) ?? [], req),
          run.scheduledMs,
          decisions.get(req.call.id) ?? null,
        ),
      );
    }
  }
  // Calls that never reached a tool activity: denied (by a person or the approval timeout), or cut off.
  for (const [id, p] of planned) {
    if (isRejected(p.call) || ran.has(id)) continue;
    const needed = p.call.needsApproval || input.requireApproval.includes(p.call.name);
    const decision =
      decisions.get(id) ??
      (needed && end ? { approve: false, by: 'timeout', reason: 'no decision in time', decidedAt: null } : null);
    const rec = toolRecord(jobId, p.step, p.call, null, [], p.atMs, decision);
    if (decision && !decision.approve) rec.status = 'denied';
    else if (needed && !end) rec.status = 'running'; // still waiting for a decision
    push(decision?.decidedAt ? Date.parse(decision.decidedAt) : p.atMs, rec);
  }
  records.sort((a, b) => a.ms - b.ms || a.seq - b.seq);
  const out = records.map((x) => x.r);
  // A cache hit's result is the earlier call's (its activity returned none of its own).
  const byCall = new Map(out.flatMap((r) => (r.type === 'tool_call' ? [[r.callId, r] as const] : [])));
  for (const r of out)
    if (r.type === 'tool_call' && r.cachedFrom) r.result = byCall.get(r.cachedFrom)?.result ?? r.result;
  out.push(
    end ?? {
      schemaVersion: v,
      type: 'job_end',
      jobId,
      at: iso(Date.now())!,
      status: 'running',
      answer: null,
      steps: null,
      usage: null,
      error: null,
    },
  );
  return out;
}

type Approval = NonNullable<ToolCallRecord['approval']>;

/** The grants this tool activity ran under (all of the call's, for histories from before release lists). */
function grantsOfRun(grants: LockGrant[], req: ToolRequest): LockGrant[] {
  const mine = req.release ?? (req.park ? [req.park] : undefined);
  return mine ? grants.filter((g) => mine.some((r) => r.requestId === g.requestId)) : grants;
}

function toolRecord(
  jobId: string,
  step: number,
  c: PlannedCall,
  run: ActivityRun | null,
  grants: LockGrant[],
  atMs: number,
  approval: Approval | null,
): ToolCallRecord {
  const result = run?.result as ToolResult | undefined;
  // A rejected call never ran and had no effect; histories before v0.2 still classified it.
  const k = c as PlannedCall & Partial<RunnableCall>;
  const status: ToolCallRecord['status'] = c.rejected
    ? c.policy?.decision === 'deny'
      ? 'denied'
      : 'rejected'
    : !run
      ? 'not_run'
      : run.outcome === 'ok'
        ? result?.isError
          ? 'error'
          : 'ok'
        : run.outcome;
  return {
    schemaVersion: AUDIT_SCHEMA_VERSION,
    type: 'tool_call',
    jobId,
    at: iso(atMs)!,
    step,
    callId: c.id,
    name: c.name,
    format: c.format ?? 'native',
    arguments: k.args ?? null,
    rawArguments: c.rawArguments,
    rawText: c.rawText ?? null,
    effect: k.effect ?? 'read',
    resources: k.resources ?? [],
    idempotent: k.idempotent ?? true,
    locks: grants.map((g) => ({ key: g.key, token: g.token, waitedMs: g.waitedMs, previousHolder: g.previousHolder })),
    status,
    rejected: c.rejected ?? null,
    approval,
    // Absent (not null) for histories from before policies: their committed audit stays the same.
    ...(c.policy
      ? { policy: { decision: c.policy.decision, rule: c.policy.rule, reason: c.policy.reason ?? null } }
      : {}),
    startedAt: result ? iso(result.startedAt) : iso(run?.startedMs ?? null),
    endedAt: result ? iso(result.endedAt) : iso(run?.endedMs ?? null),
    durationMs: result ? result.endedAt - result.startedAt : null,
    attempts: run ? run.attempt : 0,
    lastFailure: run?.lastFailure ?? null,
    ...(run?.worker && !result?.cachedFrom ? { worker: run.worker } : {}),
    error: run?.error ?? null,
    ...(result?.cachedFrom ? { cachedFrom: result.cachedFrom } : {}),
    result: result
      ? {
          output: result.output,
          isError: result.isError,
          bytes: Buffer.byteLength(result.output),
          preview: preview(result.output, 100),
        }
      : null,
  };
}

/**
 * Records of a job that continued-as-new: its runs' histories, oldest first, as one job — the
 * first run's start, every call, the last run's end.
 */
export function historiesToRecords(jobId: string, histories: History[]): AuditRecord[] {
  const all = histories.map((h) => historyToRecords(jobId, h));
  return all.flatMap((records, i) =>
    records.filter((r) => !(r.type === 'job_start' && i > 0) && !(r.type === 'job_end' && i < all.length - 1)),
  );
}

/** Replaces content-store references (long outputs, arguments, replies) with the stored text, where the store has it. */
export async function resolveContent(records: AuditRecord[], store: ContentStore): Promise<AuditRecord[]> {
  // A missing or altered blob is an error naming its hash, never a silent gap in the audit.
  const expand = async (v: string | null) => (v !== null && isReference(v) ? fromHistory(store, v) : v);
  return Promise.all(
    records.map(async (r): Promise<AuditRecord> => {
      if (r.type === 'model_call') return { ...r, content: await expand(r.content) };
      if (r.type !== 'tool_call') return r;
      const rawArguments = (await expand(r.rawArguments))!;
      let args = r.arguments;
      if (args === null && !r.rejected && rawArguments !== r.rawArguments) {
        try {
          args = JSON.parse(rawArguments);
        } catch {
          /* keep null */
        }
      }
      const output = r.result ? (await expand(r.result.output))! : null;
      return {
        ...r,
        rawArguments,
        arguments: args,
        rawText: await expand(r.rawText),
        result:
          r.result && output !== null
            ? { ...r.result, output, bytes: Buffer.byteLength(output), preview: preview(output, 100) }
            : r.result,
      };
    }),
  );
}
