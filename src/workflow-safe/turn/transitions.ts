import { DEFAULT_SYSTEM_PROMPT } from '../prompt.js';
import {
  isRejected,
  isRunnable,
  type ChatMessage,
  type ModelReply,
  type PlannedCall,
  type ToolResult,
  type TurnInput,
  type TurnResult,
  type TurnState,
} from '../types.js';
import { addUsage, zeroUsage } from '../usage.js';
import { budgetStop, DEFAULT_NO_PROGRESS_REPEATS, maxStepsStop, nextStreaks, type Stop } from './stop-conditions.js';

// The turn as a state machine: pure transitions over one serialisable TurnState. The workflow
// (workflows/agent-turn.ts) only drives them: it runs the activities and timers they call for.

export function initialState(input: TurnInput, now: number): TurnState {
  const task: ChatMessage = { role: 'user', content: input.task };
  // A stored earlier conversation begins with its system prompt; otherwise this turn's comes first.
  const system: ChatMessage[] = input.conversation
    ? []
    : [{ role: 'system', content: input.systemPrompt ?? DEFAULT_SYSTEM_PROMPT }];
  return {
    conversation: input.conversation ?? null,
    pending: [...system, ...(input.history ?? []), task],
    ...(input.returnMessages ? { kept: [task] } : {}),
    step: 0,
    usage: zeroUsage(),
    startedAt: now,
    toolsUsed: [],
    written: [],
    streaks: [],
    events: 0,
  };
}

/** Where a turn starts: its first state, or the one a continued run carries (in either form). */
export function startState(input: TurnInput, now: number): TurnState {
  const r = input.resume;
  if (!r) return initialState(input, now);
  if (!('messages' in r)) return r;
  // A run continued by code from before the hash chain: nothing stored yet, the next model call stores it all.
  const { messages, firstNew, ...rest } = r;
  return {
    ...rest,
    conversation: null,
    pending: messages,
    ...(input.returnMessages ? { kept: messages.slice(firstNew) } : {}),
  };
}

/** What the turn does next, before a step. */
export type Move = { kind: 'stop'; stop: Stop } | { kind: 'continue_as_new' } | { kind: 'call_model' };

export interface RunInfo {
  now: number;
  /** Steps taken in this run (since the last continue-as-new). */
  stepsThisRun: number;
  continueAsNewSuggested: boolean;
}

export function nextMove(s: TurnState, input: TurnInput, run: RunInfo): Move {
  const stop = maxStepsStop(input, s) ?? budgetStop(input, s, run.now);
  if (stop) return { kind: 'stop', stop };
  const longRun =
    run.continueAsNewSuggested ||
    (input.continueAsNewAfterSteps !== undefined && run.stepsThisRun >= input.continueAsNewAfterSteps);
  if (run.stepsThisRun > 0 && longRun) return { kind: 'continue_as_new' };
  return { kind: 'call_model' };
}

export const beginStep = (s: TurnState): TurnState => ({ ...s, step: s.step + 1 });

/** Counts a model call's tokens (the step's call, or a closing summary). */
export const countUsage = (s: TurnState, reply: Pick<ModelReply, 'usage' | 'costUsd'>): TurnState => ({
  ...s,
  usage: addUsage(s.usage, reply.usage),
  // A model the worker has no price for counts as free (the audit shows its cost as unknown).
  ...(reply.costUsd !== undefined ? { costUsd: (s.costUsd ?? 0) + reply.costUsd, lastCallCostUsd: reply.costUsd } : {}),
});

/** What a model reply leads to: the answer, or calls to run. */
export type AfterReply = { kind: 'final'; answer: string } | { kind: 'run_calls'; calls: PlannedCall[] };

/**
 * The model replied: its message joins the conversation (with its tool calls: the model must see
 * what it asked for). The activity stored what was pending and the reply; a reply recorded before
 * the hash chain stored nothing, and the messages stay pending.
 */
export function applyReply(s: TurnState, reply: ModelReply): { state: TurnState; next: AfterReply } {
  const msg = reply.assistantMessage;
  const state: TurnState = {
    ...countUsage(s, reply),
    lastCallTokens: reply.usage.totalTokens,
    ...(reply.agent && !s.agents?.includes(reply.agent) ? { agents: [...(s.agents ?? []), reply.agent] } : {}),
    ...(reply.conversation ? { conversation: reply.conversation, pending: [] } : { pending: [...s.pending, msg] }),
    ...(s.kept ? { kept: [...s.kept, msg] } : {}),
  };
  return {
    state,
    next:
      reply.calls.length === 0
        ? { kind: 'final', answer: reply.final ?? '' }
        : { kind: 'run_calls', calls: reply.calls },
  };
}

const union = (xs: string[], add: string[]) => [...new Set([...xs, ...add])];

/** The tools of the calls about to run join the tools used; `changed` says whether the set grew. */
export function noteToolsUsed(s: TurnState, calls: PlannedCall[]): { state: TurnState; changed: boolean } {
  const toolsUsed = union(
    s.toolsUsed,
    calls.filter(isRunnable).map((c) => c.name),
  );
  return { state: { ...s, toolsUsed }, changed: toolsUsed.length !== s.toolsUsed.length };
}

/**
 * The step's results are in: one tool message per call in the model's order (a rejected call's
 * says why), successful writes join `written`, and the no-progress watch moves on.
 */
export function applyResults(
  s: TurnState,
  input: TurnInput,
  calls: PlannedCall[],
  results: ReadonlyMap<string, ToolResult>,
): { state: TurnState; wroteChanged: boolean; stop: Stop | null } {
  const resultOf = (id: string) => {
    const r = results.get(id);
    if (!r) throw new Error(`No result for call '${id}'.`);
    return r;
  };
  const wrote = calls
    .filter(isRunnable)
    .flatMap((c) => (c.effect === 'write' && !resultOf(c.id).isError ? c.resources : []));
  const written = union(s.written, wrote);
  const toolMessages = calls.map((c) => ({
    role: 'tool' as const,
    tool_call_id: c.providerId ?? c.id,
    content: isRejected(c) ? `Error: ${c.rejected}` : resultOf(c.id).output,
  }));
  const { streaks, stop } = nextStreaks(s.streaks, calls, input.noProgressRepeats ?? DEFAULT_NO_PROGRESS_REPEATS);
  const state: TurnState = {
    ...s,
    written,
    streaks,
    pending: [...s.pending, ...toolMessages],
    ...(s.kept ? { kept: [...s.kept, ...toolMessages] } : {}),
  };
  return { state, wroteChanged: written.length !== s.written.length, stop };
}

/** The turn's result; with `returnMessages`, the messages it added (always a well-formed conversation). */
export function turnResult(
  s: TurnState,
  input: TurnInput,
  end: { status: TurnResult['status']; answer: string | null; reason?: string },
): TurnResult {
  const r: TurnResult = {
    status: end.status,
    answer: end.answer,
    steps: s.step,
    usage: s.usage,
    ...(end.reason ? { reason: end.reason } : {}),
  };
  const closing: ChatMessage[] =
    end.status !== 'completed'
      ? [{ role: 'assistant', content: end.answer ?? `(stopped: ${end.reason ?? end.status})` }]
      : [];
  const withConversation: TurnResult = input.returnConversation
    ? { ...r, conversation: s.conversation, unstored: [...s.pending, ...closing] }
    : r;
  if (!input.returnMessages) return withConversation;
  return { ...withConversation, messages: [...(s.kept ?? []), ...closing] };
}

/** The input of the next run, carrying the state (references keep it small) instead of the first run's conversation. */
export function continuedInput(input: TurnInput, s: TurnState): TurnInput {
  const { history: _history, conversation: _conversation, resume: _previous, ...same } = input;
  return { ...same, resume: s };
}
