import type { Client } from '@temporalio/client';
import type { ToolCallRecord } from '../audit/schema.js';
import { ConversationStore } from '../content/conversation.js';
import { ContentStore } from '../content/store.js';
import type { ModelReply, ModelRequest, TurnInput, TurnState, Usage } from '../workflow-safe/types.js';
import { decode, historiesToRecords } from '../audit/decode.js';
import { addUsage, zeroUsage } from '../workflow-safe/usage.js';
import { fetchJobRuns } from './audit.js';

/** A fork that cannot be made; the message says why and what would work. */
export class ForkError extends Error {
  override name = 'ForkError';
}

export interface ForkOptions {
  /** The recorded job. */
  jobId: string;
  /** Its first `atStep` steps are taken from the recording (replies and results; nothing runs again). */
  atStep: number;
  /** From step `atStep + 1` on, this model. */
  model?: string;
  /** A new system prompt (the recorded conversation's first message is replaced). */
  systemPrompt?: string;
  store?: ContentStore;
}

/**
 * The input of a job that continues a recorded one from after its step `atStep`: the state the
 * recorded turn had then, read from its history — the conversation it had stored, the results
 * it was about to send (the next model request's input), the tokens it had used, the tools it had
 * used and the files it had written — so the new job's first live model request is exactly the
 * recorded conversation, and no recorded call runs again.
 */
export async function forkInput(client: Client, o: ForkOptions): Promise<TurnInput> {
  const runs = await fetchJobRuns(client, o.jobId);
  const started = runs[0]?.events?.[0]?.workflowExecutionStartedEventAttributes;
  const original = decode<TurnInput>(started?.input);
  if (!original) throw new ForkError(`Job ${o.jobId} has no recorded input: is it an agent turn?`);
  const requests = new Map<number, ModelRequest>();
  const replies = new Map<number, ModelReply>();
  const scheduled = new Map<string, number>();
  for (const [n, run] of runs.entries()) {
    for (const e of run.events ?? []) {
      const a = e.activityTaskScheduledEventAttributes;
      if (a?.activityType?.name === 'callModel') {
        const req = decode<ModelRequest>(a.input);
        if (!req || req.store === false) continue;
        if (!requests.has(req.step)) requests.set(req.step, req);
        scheduled.set(`${n}:${String(e.eventId)}`, req.step);
      }
      const done = e.activityTaskCompletedEventAttributes;
      if (done) {
        const step = scheduled.get(`${n}:${String(done.scheduledEventId)}`);
        const reply = decode<ModelReply>(done.result);
        if (step !== undefined && reply && !replies.has(step)) replies.set(step, reply);
      }
    }
  }
  const lastStep = Math.max(0, ...replies.keys());
  if (!Number.isInteger(o.atStep) || o.atStep < 1)
    throw new ForkError(`--at-step takes a step number from 1 to ${Math.max(1, lastStep - 1)}.`);
  const next = requests.get(o.atStep + 1);
  if (!next || !replies.has(o.atStep))
    throw new ForkError(
      `Job ${o.jobId} has no recorded step ${o.atStep + 1} to continue from (its last step is ${lastStep}): fork at a step before its last.`,
    );
  if (next.append === undefined)
    throw new ForkError(
      `Job ${o.jobId} was recorded before conversations were stored by reference; it cannot be forked.`,
    );
  let conversation = next.conversation ?? null;
  if (o.systemPrompt !== undefined) {
    const conversations = new ConversationStore(o.store ?? new ContentStore());
    const messages = await conversations.read(conversation);
    if (messages[0]?.role !== 'system')
      throw new ForkError(`Job ${o.jobId}'s conversation has no system prompt to replace.`);
    conversation = await conversations.append(null, [
      { role: 'system', content: o.systemPrompt },
      ...messages.slice(1),
    ]);
  }
  let usage: Usage = zeroUsage();
  for (let s = 1; s <= o.atStep; s++) {
    const r = replies.get(s);
    if (r) usage = addUsage(usage, r.usage);
  }
  // The calls of the recorded steps, from the runs already read (names and resources only: no content needed).
  const calls = historiesToRecords(o.jobId, runs).filter(
    (r): r is ToolCallRecord => r.type === 'tool_call' && r.step <= o.atStep,
  );
  const ran = calls.filter((c) => c.status === 'ok' || c.status === 'error');
  const state: TurnState = {
    conversation,
    pending: next.append,
    step: o.atStep,
    usage,
    startedAt: Date.now(),
    toolsUsed: [...new Set(ran.map((c) => c.name))],
    written: [...new Set(ran.filter((c) => c.effect === 'write').flatMap((c) => c.resources))],
    streaks: [],
    events: 0,
    lastCallTokens: replies.get(o.atStep)!.usage.totalTokens,
  };
  const { resume: _resume, history: _history, ...rest } = original;
  return {
    ...rest,
    ...(o.model ? { model: o.model } : {}),
    ...(o.systemPrompt !== undefined ? { systemPrompt: o.systemPrompt } : {}),
    resume: state,
    forkOf: { jobId: o.jobId, atStep: o.atStep },
  };
}
