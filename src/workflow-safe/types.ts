import type { TurnStatus } from './job-status.js';
import type { LockOptions, LockGrant } from './lock-types.js';

export type { TurnStatus } from './job-status.js';

// Plain data that crosses the workflow/activity boundary. Nothing here may import Node APIs:
// workflow code (workflows/) imports these types and the pure helpers beside them.

export type Effect = 'read' | 'write';

/** How tool calls travel: OpenAI tool_calls, or one of the text protocols. */
export type ToolFormat = 'native' | 'markdown' | 'xml' | 'react' | 'line';
export const TOOL_FORMATS: readonly ToolFormat[] = ['native', 'markdown', 'xml', 'react', 'line'];

export interface AssistantToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: AssistantToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A conversation kept in the content store as a hash chain (see src/content/conversation.ts). */
export interface ConversationRef {
  /** The reference of the newest node; null for an empty conversation. */
  head: string | null;
  /** How many messages the conversation holds. */
  count: number;
}

/** A policy's decision on one call and the rule that made it (see src/policy/). */
export interface PolicyVerdict {
  decision: 'allow' | 'deny' | 'ask';
  /** `danger:<check>`, a policy file rule's name (or `file:line`), `starter:<pattern>`, or `default:<why>`. */
  rule: string;
  reason?: string;
}

/** What every call the model asked for carries, whether it will run or not. */
interface CallBase {
  /** The call's id within its job, unique (step and position): it keys results, approvals, locks and the audit. */
  id: string;
  /** The provider's id of a native call: the tool message answers it. Absent for text protocols (and calls recorded before v0.2, whose `id` was the provider's). */
  providerId?: string;
  name: string;
  /** The argument text exactly as the model sent it. */
  rawArguments: string;
  /** How the model wrote the call, and (text protocols) the exact text of it. */
  format: ToolFormat;
  rawText?: string;
  /** The worker's policy decision (absent in histories from before policies, and for calls that failed validation). */
  policy?: PolicyVerdict;
}

/** A call that passed every check: validated and classified, ready to schedule. */
export interface RunnableCall extends CallBase {
  rejected?: undefined;
  /** The arguments as the model sent them, once they passed validation (the handler gets the schema's output of them). Absent when moved to the content store. */
  args?: unknown;
  /** When the arguments are long: a content-store reference to their JSON text instead of `args`. */
  argsRef?: string;
  effect: Effect;
  /** Resource keys this call touches, e.g. `file:/abs/real/path`. Empty on a write = barrier. */
  resources: string[];
  idempotent: boolean;
  timeoutMs: number;
  /** The tool requires a human decision before it runs. */
  needsApproval: boolean;
  /** SHA-256 of the tool name and validated arguments: what an approval is bound to. */
  argsHash: string;
}

/** A call that will not run: the model reads why (unknown tool, bad JSON, schema violation, path escape, unreadable text). */
export interface RejectedCall extends CallBase {
  rejected: string;
}

/** One tool call the model asked for, as the model activity parsed, validated and classified it. */
export type PlannedCall = RunnableCall | RejectedCall;

export const isRejected = (c: PlannedCall): c is RejectedCall => typeof c.rejected === 'string';
export const isRunnable = (c: PlannedCall): c is RunnableCall => typeof c.rejected !== 'string';

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** The model activity's result: the reply, and the calls it asks for as plain data. */
export interface ModelReply {
  assistantMessage: ChatMessage & { role: 'assistant' };
  calls: PlannedCall[];
  /** Set when the model asked for no tool: the turn's answer. */
  final?: string;
  finishReason: string;
  model: string;
  usage: Usage;
  latencyMs: number;
  /** The conversation with this request's new messages and this reply, when they were stored. */
  conversation?: ConversationRef;
  /** What agent answered: a hash of the system prompt, model, tool format and tool schemas it was given. */
  agent?: string;
  /** What the call cost in USD, from the worker's price table; absent when the model has no price there. */
  costUsd?: number;
  /** The tools this call was offered, when the worker has many and offered a subset. */
  offered?: string[];
}

export interface ModelRequest {
  /** The first call after `dagent resume`: sent even when this worker holds calls to the provider back (a quota breaker). */
  afterResume?: boolean;
  /** The conversation so far, kept in the content store; null or absent when nothing is stored yet. */
  conversation?: ConversationRef | null;
  /** The messages after the stored conversation: what is new since the last model call. */
  append?: ChatMessage[];
  /** The whole conversation, as requests made before the hash chain carried it (read, never written). */
  messages?: ChatMessage[];
  /** Store `append` and the reply as the conversation's next node. Default true; false for a closing summary. */
  store?: boolean;
  /** 1-based step of the turn (names text-protocol calls). */
  step: number;
  toolFormat?: ToolFormat;
  model?: string;
  /** Tool names this agent may use; all registered tools when absent. */
  tools?: string[];
  workspace: string;
  /** The workspace's declared id (see {@link TurnInput.workspaceId}). */
  workspaceId?: string;
}

export interface ToolRequest {
  jobId: string;
  workspace: string;
  /** The workspace's declared id: the worker runs the call in its own folder for it. */
  workspaceId?: string;
  call: Pick<RunnableCall, 'id' | 'name' | 'args' | 'argsRef' | 'resources'>;
  /** Fencing token per resource key this call holds a lock on. */
  fencingTokens?: Record<string, number>;
  /**
   * A read the job may cache: take its files' fingerprint before running it; and, given the
   * fingerprint of an earlier identical read, do not run the tool if the files are unchanged.
   */
  cache?: { keys: string[]; ifUnchanged?: { from: string; fingerprint: string[] } };
  /**
   * The locks this write holds. The activity releases them as soon as the write is done (the next
   * holder need not wait for this job's next workflow task), and a retried attempt first checks
   * that they are still held: after a release, a retry must take the locks again.
   */
  release?: Array<{ key: string; requestId: string; token: number; waitedMs?: number }>;
  /**
   * A parked write: the activity waits on the lock for this request's grant (awaitGrant), renews
   * its lease while the write runs and releases it when done.
   */
  park?: { key: string; requestId: string; leaseMs: number };
}

export interface ToolResult {
  callId: string;
  /** The output, or a reference to it in the content store when long. */
  output: string;
  /** The output's first line or so, for progress displays. */
  preview?: string;
  isError: boolean;
  startedAt: number;
  endedAt: number;
  /** A cacheable read: its files as they were when it ran (absent when they were changing). */
  fingerprint?: string[];
  /** A cache hit: the files were unchanged since this earlier call, whose result this is; the tool did not run. */
  cachedFrom?: string;
  /** The activity released the call's locks itself. */
  released?: boolean;
  /** A parked write: the grant its activity waited for. */
  grant?: LockGrant;
}

/** Why a job waits for `dagent resume` instead of failing. */
export type PauseKind =
  'outage' | 'rate_limit' | 'quota' | 'context_overflow' | 'token_budget' | 'time_budget' | 'cost_budget';

/** What a resume may change: the model, and the budgets (more tokens, more time from now). */
export interface ResumeOptions {
  by: string;
  model?: string;
  maxTokens?: number;
  maxCostUsd?: number;
  /** Summarise older messages into one before calling the model again (after a context overflow). */
  compact?: boolean;
  /** Time from the resume on. */
  deadlineMs?: number;
}

export interface TurnInput {
  task: string;
  workspace: string;
  /**
   * A declared workspace id: resource keys are `file:<id>/<path>`, and tool calls run only on workers
   * that declare this workspace (task queue `<queue>@<id>`), wherever its folder is on their host.
   * Absent: the folder itself, on any worker, its id derived from its real path.
   */
  workspaceId?: string;
  model?: string;
  maxSteps?: number;
  systemPrompt?: string;
  tools?: string[];
  /** Stop when the model calls have used this many tokens in total. */
  maxTokens?: number;
  /**
   * Keep the model's context bounded on a long job: when a model call's tokens (its conversation
   * and reply) reach this many, the next call sends the conversation compacted — the system
   * prompt, the task, one message summarising every older message in a line, and the last reply.
   */
  compactAtTokens?: number;
  /** Pause (or stop) before the model calls would cost more than this, in USD (the worker's price table). */
  maxCostUsd?: number;
  /** Stop this long (ms) after the job started. */
  deadlineMs?: number;
  /** Stop when the same call (tool and arguments) appears in this many consecutive steps. Default 3. */
  noProgressRepeats?: number;
  /** On a token or time budget, make one last model call (no tools) asking for a summary. Default true. */
  summarizeOnBudget?: boolean;
  /** Tools whose every call needs approval (besides tools that declare `needsApproval`). */
  requireApproval?: string[];
  /** How long a call waits for approval before it counts as denied. Default 24 h. */
  approvalTimeoutMs?: number;
  /** How the model calls tools. Default 'native'. */
  toolFormat?: ToolFormat;
  /** Earlier conversation (a session's turns so far), placed between the system prompt and the task. */
  history?: ChatMessage[];
  /** Earlier conversation already in the content store, system prompt included (a session's turns so far); `history` then holds only what follows it. */
  conversation?: ConversationRef;
  /** Return the messages this turn added (for a session to keep). */
  returnMessages?: boolean;
  /** Return the stored conversation at the end (and the few messages not stored yet): a session's next turn goes on from it. */
  returnConversation?: boolean;
  /** Continue-as-new after this many steps in one run (Temporal's own suggestion applies too). */
  continueAsNewAfterSteps?: number;
  /** Where a continued turn picks up (set by the turn itself when it continues-as-new). */
  resume?: TurnState | LegacyTurnState;
  /** This job continues a recorded one from after its step `atStep` (`dagent fork`): those steps are the recording's. */
  forkOf?: { jobId: string; atStep: number };
  /** A token or time budget reached: `pause` (default) waits for `dagent resume`; `stop` ends the job. */
  onBudget?: 'pause' | 'stop';
  /** Retries of one model call before the job pauses (default 10 attempts, 1 s doubling to 60 s). */
  modelRetry?: { maximumAttempts?: number; initialIntervalMs?: number; maximumIntervalMs?: number };
  /** After an outage pause: try the model again every `everyMs`, for up to `forMs`, unless resumed first. */
  autoResume?: { everyMs: number; forMs: number };
  /** Run every write strictly one at a time within the turn. Default false. */
  serialWrites?: boolean;
  /** Answer a repeated read of unchanged files from the job's earlier result (default true). */
  readCache?: boolean;
  /** Take cross-agent locks for writes. Default true; false only for tests that show why they matter. */
  locks?: boolean;
  lockOptions?: LockOptions;
}

/**
 * Everything a turn knows between steps, as one serialisable value: the pure transitions in
 * turn/transitions.ts move it on, and continue-as-new carries it into the next run.
 */
export interface TurnState {
  /** The conversation stored so far (the model activity stores it; history holds its reference). */
  conversation: ConversationRef | null;
  /** Messages not stored yet: the next model call sends and stores them. */
  pending: ChatMessage[];
  /** With `returnMessages`: the messages this turn added, from its task on (a session keeps them). */
  kept?: ChatMessage[];
  step: number;
  usage: Usage;
  startedAt: number;
  toolsUsed: string[];
  written: string[];
  /** Per call signature (tool and arguments): in how many consecutive steps it appeared. */
  streaks: Array<[string, number]>;
  /** Progress events shown by earlier runs (the query counts on from there). */
  events: number;
  /** Tokens of the last model call: what the next call is reserved at (at least). */
  lastCallTokens?: number;
  /** The agents (hashes) that answered this turn's model calls, in order of first use. */
  agents?: string[];
  /** USD spent on model calls so far (calls the price table knows). */
  costUsd?: number;
  /** The last call's cost: what the next call is reserved at. */
  lastCallCostUsd?: number;
}

/** The state as runs before the hash chain carried it: the whole conversation inline. */
export interface LegacyTurnState extends Omit<TurnState, 'conversation' | 'pending' | 'kept'> {
  messages: ChatMessage[];
  /** Index in `messages` of this turn's task. */
  firstNew: number;
}

export interface TurnResult {
  status: TurnStatus;
  answer: string | null;
  steps: number;
  usage: Usage;
  /** Why a job stopped before a final answer. */
  reason?: string;
  /** The messages this turn added, when asked for (`returnMessages`). */
  messages?: ChatMessage[];
  /** With `returnConversation`: the conversation as stored at the end … */
  conversation?: ConversationRef | null;
  /** … and the messages after it that are not stored (results a stopped turn did not send; its closing note). */
  unstored?: ChatMessage[];
}

export interface SessionInput {
  workspace: string;
  workspaceId?: string;
  model?: string;
  toolFormat?: ToolFormat;
  systemPrompt?: string;
  maxSteps?: number;
  /** Carried across continue-as-new (sessions from before conversations were kept by reference). */
  history?: ChatMessage[];
  /** The conversation so far, in the content store; carried across continue-as-new. */
  conversation?: ConversationRef | null;
  /** Messages after `conversation` that are not stored yet. */
  unstored?: ChatMessage[];
  turns?: number;
  runs?: number;
  /** Continue-as-new after this many turns in one run (Temporal's own suggestion applies too). */
  continueAsNewAfterTurns?: number;
}

export interface SessionReply extends TurnResult {
  turn: number;
  jobId: string;
}

export interface SessionState {
  turns: number;
  runs: number;
  messages: number;
  busy: boolean;
}

export interface PendingApproval {
  callId: string;
  step: number;
  name: string;
  args: unknown;
  argsHash: string;
  requestedAt: number;
  timeoutAt: number;
  /** The policy rule that asked for the decision, when a policy did. */
  policy?: PolicyVerdict;
}

export interface ApprovalDecision {
  callId: string;
  approve: boolean;
  by: string;
  reason?: string;
  /** Must equal the pending call's argsHash: a decision binds to the exact arguments. */
  argsHash: string;
}

export type ProgressEvent =
  | { kind: 'model_start'; at: number; step: number }
  | {
      kind: 'model_end';
      at: number;
      step: number;
      ms: number;
      calls: number;
      tokens: number;
      /** The start of the reply's text (for watchers that showed it as it streamed). */
      text?: string;
    }
  | { kind: 'tool_start'; at: number; step: number; callId: string; name: string; args: string }
  | {
      kind: 'tool_end';
      at: number;
      step: number;
      callId: string;
      name: string;
      ms: number;
      isError: boolean;
      preview: string;
    }
  | { kind: 'lock_wait'; at: number; step: number; callId: string; keys: string[] }
  | {
      kind: 'lock_granted';
      at: number;
      step: number;
      callId: string;
      key: string;
      token: number;
      waitedMs: number;
      previousHolder: string | null;
    }
  | { kind: 'rejected'; at: number; step: number; callId: string; name: string; reason: string }
  | { kind: 'paused'; at: number; step: number; pause: PauseKind; reason: string }
  | { kind: 'resumed'; at: number; step: number; by: string; changes: string }
  | { kind: 'compacted'; at: number; step: number; summarised: number }
  | { kind: 'approval_wait'; at: number; step: number; callId: string; name: string }
  | {
      kind: 'approval';
      at: number;
      step: number;
      callId: string;
      name: string;
      approve: boolean;
      by: string;
      reason?: string;
    }
  | { kind: 'cancelled'; at: number; step: number }
  | { kind: 'final'; at: number; step: number; status: TurnStatus; answer: string | null; reason?: string };
