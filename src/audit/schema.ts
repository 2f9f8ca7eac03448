import { z } from 'zod';

/** Bump when a field changes meaning or goes away; keep old fixtures under tests/fixtures/audit/vN. */
export const AUDIT_SCHEMA_VERSION = 1;

const usage = z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() });
const base = { schemaVersion: z.number().int().min(1), jobId: z.string(), at: z.string() };
/** In a fork (`dagent fork`): the recorded job this step was taken from — it did not run again (added in v1, optional). */
const fromRecording = { fromRecording: z.string().optional() };
const attempts = {
  attempts: z.number().int().min(1),
  /** The failure of the attempt before the last (Temporal keeps the last one per activity). */
  lastFailure: z.string().nullable(),
};

export const jobStartRecord = z.object({
  ...base,
  type: z.literal('job_start'),
  runId: z.string(),
  workflowType: z.string(),
  input: z.record(z.string(), z.unknown()),
});

export const modelCallRecord = z.object({
  ...base,
  type: z.literal('model_call'),
  step: z.number().int(),
  model: z.string().nullable(),
  format: z.string(),
  messagesSent: z.number().int(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  ...attempts,
  status: z.enum(['ok', 'failed', 'timed_out', 'cancelled', 'running']),
  error: z.string().nullable(),
  finishReason: z.string().nullable(),
  usage: usage.nullable(),
  content: z.string().nullable(),
  callIds: z.array(z.string()),
  /** The agent that answered: hash of system prompt, model, format and tool schemas (added in v1, optional). */
  agent: z.string().optional(),
  /** USD, from the worker's price table (added in v1, optional: absent when the model had no price). */
  costUsd: z.number().optional(),
  /** The tools offered, when the worker routed a subset of many (added in v1, optional). */
  offered: z.array(z.string()).optional(),
  ...fromRecording,
});

export const lockRecord = z.object({
  key: z.string(),
  token: z.number(),
  waitedMs: z.number(),
  previousHolder: z.string().nullable(),
});

export const toolCallRecord = z.object({
  ...base,
  type: z.literal('tool_call'),
  step: z.number().int(),
  callId: z.string(),
  name: z.string(),
  format: z.string(),
  arguments: z.unknown(),
  rawArguments: z.string(),
  rawText: z.string().nullable(),
  effect: z.enum(['read', 'write']),
  resources: z.array(z.string()),
  idempotent: z.boolean(),
  locks: z.array(lockRecord),
  status: z.enum(['ok', 'error', 'failed', 'timed_out', 'cancelled', 'rejected', 'denied', 'running', 'not_run']),
  rejected: z.string().nullable(),
  /** The human decision on a call that needed approval (added in v1, optional). */
  approval: z
    .object({ approve: z.boolean(), by: z.string(), reason: z.string().nullable(), decidedAt: z.string().nullable() })
    .nullable()
    .optional(),
  /** The worker policy's decision and the rule that made it (added in v1, optional: absent before policies). */
  policy: z
    .object({ decision: z.enum(['allow', 'deny', 'ask']), rule: z.string(), reason: z.string().nullable() })
    .nullable()
    .optional(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  attempts: z.number().int().min(0),
  lastFailure: z.string().nullable(),
  error: z.string().nullable(),
  result: z.object({ output: z.string(), isError: z.boolean(), bytes: z.number(), preview: z.string() }).nullable(),
  /** The worker that ran the last attempt: its identity, `pid@host` (added in v1, optional). */
  worker: z.string().optional(),
  /** A read answered from the job's read cache: the earlier call whose result this is; the tool did not run (added in v1, optional). */
  cachedFrom: z.string().optional(),
  ...fromRecording,
});

export const jobEndRecord = z.object({
  ...base,
  type: z.literal('job_end'),
  status: z.enum([
    'completed',
    'max_steps',
    'token_budget',
    'cost_budget',
    'time_budget',
    'no_progress',
    'failed',
    'cancelled',
    'terminated',
    'timed_out',
    'continued_as_new',
    'running',
  ]),
  /** Why the job stopped before a final answer (budgets, no progress). Added in v1, optional. */
  reason: z.string().nullable().optional(),
  answer: z.string().nullable(),
  steps: z.number().nullable(),
  usage: usage.nullable(),
  error: z.string().nullable(),
});

/** A paused job continued (`dagent resume`): who, and what changed (added in v1). */
export const resumeRecord = z.object({
  ...base,
  type: z.literal('resume'),
  by: z.string(),
  model: z.string().nullable(),
  maxTokens: z.number().nullable(),
  deadlineMs: z.number().nullable(),
  compact: z.boolean().optional(),
});

/** The conversation compacted before a model call: older messages summarised in one (added in v1). */
export const compactionRecord = z.object({
  ...base,
  type: z.literal('compaction'),
  /** Messages in the conversation before, and how many of them the summary replaced. */
  messagesBefore: z.number().int().min(0),
  summarised: z.number().int().min(0).nullable(),
  status: z.enum(['ok', 'failed', 'timed_out', 'cancelled', 'running']),
});

export const auditRecord = z.discriminatedUnion('type', [
  jobStartRecord,
  modelCallRecord,
  toolCallRecord,
  resumeRecord,
  compactionRecord,
  jobEndRecord,
]);

export type AuditRecord = z.output<typeof auditRecord>;
export type ModelCallRecord = z.output<typeof modelCallRecord>;
export type ToolCallRecord = z.output<typeof toolCallRecord>;
export type JobEndRecord = z.output<typeof jobEndRecord>;
export type ResumeRecord = z.output<typeof resumeRecord>;
export type CompactionRecord = z.output<typeof compactionRecord>;
