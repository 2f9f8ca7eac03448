import { z } from 'zod';
import { TOOL_FORMATS, type TurnInput } from '../types.js';
import { WORKSPACE_ID, WORKSPACE_ID_RULE } from '../workspace-queue.js';

// TurnInput checked when a turn starts (and by startJob before it starts one): a wrong field is a
// clear failure naming the field, never a crash deep inside a step.

const count = z.number().int().min(1);
const ms = z.number().int().min(1);
const message = z.union([
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    tool_calls: z
      .array(
        z.object({
          id: z.string(),
          type: z.literal('function'),
          function: z.object({ name: z.string(), arguments: z.string() }),
        }),
      )
      .optional(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);
const usage = z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() });

const stateCommon = {
  step: z.number().int().min(0),
  usage,
  startedAt: z.number(),
  toolsUsed: z.array(z.string()),
  written: z.array(z.string()),
  streaks: z.array(z.tuple([z.string(), z.number()])),
  events: z.number().int().min(0),
  lastCallTokens: z.number().optional(),
  agents: z.array(z.string()).optional(),
  costUsd: z.number().optional(),
  lastCallCostUsd: z.number().optional(),
};

export const turnInputSchema = z.strictObject({
  task: z.string().trim().min(1, 'give the task to do'),
  workspace: z.string().min(1, 'give the workspace folder'),
  workspaceId: z.string().regex(WORKSPACE_ID, `use ${WORKSPACE_ID_RULE}`).optional(),
  model: z.string().min(1).optional(),
  maxSteps: count.optional(),
  systemPrompt: z.string().optional(),
  tools: z.array(z.string()).optional(),
  maxTokens: count.optional(),
  compactAtTokens: count.optional(),
  maxCostUsd: z.number().positive().optional(),
  deadlineMs: ms.optional(),
  noProgressRepeats: count.optional(),
  summarizeOnBudget: z.boolean().optional(),
  requireApproval: z.array(z.string()).optional(),
  approvalTimeoutMs: ms.optional(),
  toolFormat: z.enum(TOOL_FORMATS as [string, ...string[]]).optional(),
  history: z.array(message).optional(),
  returnMessages: z.boolean().optional(),
  returnConversation: z.boolean().optional(),
  conversation: z.object({ head: z.string().nullable(), count: z.number().int().min(0) }).optional(),
  continueAsNewAfterSteps: count.optional(),
  onBudget: z.enum(['pause', 'stop']).optional(),
  forkOf: z.strictObject({ jobId: z.string().min(1), atStep: count }).optional(),
  modelRetry: z
    .strictObject({
      maximumAttempts: count.optional(),
      initialIntervalMs: ms.optional(),
      maximumIntervalMs: ms.optional(),
    })
    .optional(),
  autoResume: z.strictObject({ everyMs: ms, forMs: ms }).optional(),
  resume: z
    .union([
      z.object({
        conversation: z.object({ head: z.string().nullable(), count: z.number().int().min(0) }).nullable(),
        pending: z.array(message),
        kept: z.array(message).optional(),
        ...stateCommon,
      }),
      // The state as runs from before the hash chain carried it.
      z.object({ messages: z.array(message), firstNew: z.number().int().min(0), ...stateCommon }),
    ])
    .optional(),
  serialWrites: z.boolean().optional(),
  readCache: z.boolean().optional(),
  locks: z.boolean().optional(),
  lockOptions: z
    .strictObject({ leaseMs: ms.optional(), continueAsNewAfterGrants: count.optional(), idleMs: ms.optional() })
    .optional(),
});

/** What is wrong with a turn's input, in one sentence per field; null when nothing is. */
export function turnInputProblems(input: unknown): string | null {
  const r = turnInputSchema.safeParse(input);
  if (r.success) return null;
  return r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`).join('; ');
}

/** Throws a plain Error naming every wrong field (the workflow turns it into a non-retryable failure). */
export function assertTurnInput(input: unknown): asserts input is TurnInput {
  const problems = turnInputProblems(input);
  if (problems) throw new InvalidTurnInput(`Invalid turn input: ${problems}.`);
}

export class InvalidTurnInput extends Error {
  override name = 'InvalidTurnInput';
}
