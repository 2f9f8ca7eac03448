import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { RecordedStatus } from '../src/workflow-safe/job-status.js';
import { progressQuery } from '../src/workflow-safe/messages.js';
import { SA_AGENT, SA_STATUS, SA_TOOLS, SA_WROTE } from '../src/workflow-safe/search-attributes.js';
import { turnInputProblems } from '../src/workflow-safe/turn/input.js';
import { PAUSE_HINTS, pauseKindOf } from '../src/workflow-safe/turn/pause.js';
import { SUMMARY_REQUEST, type Stop } from '../src/workflow-safe/turn/stop-conditions.js';
import { countUsage, turnResult } from '../src/workflow-safe/turn/transitions.js';
import {
  isRejected,
  type ChatMessage,
  type ModelReply,
  type PauseKind,
  type ResumeOptions,
  type PlannedCall,
  type ProgressEvent,
  type TurnInput,
  type TurnResult,
  type TurnState,
} from '../src/workflow-safe/types.js';
import { Approvals } from './approvals.js';
import { LockHolder } from './lock-holder.js';
import { Pauses } from './pauses.js';
import { ReadCache } from './read-cache.js';
import { failureText, type StepContext } from './run-calls.js';

const { compactConversation } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});

/** The model activity, retried as the job asks (default: 10 attempts, 1 s doubling to 60 s). */
const modelActivity = (r: TurnInput['modelRetry'] = {}) =>
  proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: '10s',
    retry: {
      initialInterval: r.initialIntervalMs ?? 1_000,
      backoffCoefficient: 2,
      maximumInterval: r.maximumIntervalMs ?? 60_000,
      maximumAttempts: r.maximumAttempts ?? 10,
    },
  }).callModel;

/** A turn whose input is wrong fails at once, naming every wrong field (never retried: it would fail again). */
export function refuseBadInput(input: TurnInput): void {
  const problems = turnInputProblems(input);
  if (problems)
    throw ApplicationFailure.create({
      type: 'InvalidTurnInput',
      message: `Invalid turn input: ${problems}.`,
      nonRetryable: true,
    });
}

/**
 * What a turn does to the world, beside its pure state: the model activity, the progress events
 * its query shows, the status and search attributes, and the locks and approvals of its calls.
 */
export class TurnIO {
  readonly jobId = workflowInfo().workflowId;
  readonly events: ProgressEvent[] = [];
  readonly #eventsBefore: number;
  readonly #locks: LockHolder;
  readonly #approvals = new Approvals();
  readonly #pauses = new Pauses();
  readonly #readCache = new ReadCache();
  #input: TurnInput;
  /** The next model call is the first after a resume. */
  #resumed = false;
  /** When the current run of pauses of one kind began (for an automatic resume's time limit). */
  #pausedSince: { kind: PauseKind; at: number } | null = null;

  constructor(input: TurnInput, s: TurnState) {
    this.#input = input;
    this.#eventsBefore = s.events; // shown by earlier runs of this turn
    this.#locks = new LockHolder(this.jobId, input.lockOptions);
    setHandler(progressQuery, (since) => ({
      events: this.events.slice(Math.max(0, since - this.#eventsBefore)),
      next: this.eventsShown,
    }));
    this.setStatus('running');
    if (s.toolsUsed.length) this.upsertToolsUsed(s);
    if (s.written.length) this.upsertWritten(s);
    if (s.agents?.length) this.upsertAgents(s);
  }

  /** The job's input, with what resumes changed (model, budgets). */
  get input(): TurnInput {
    return this.#input;
  }

  /**
   * Waits for `dagent resume` (status `paused`, the reason in the progress and the audit), then
   * applies what it changed. The step is not run again: the turn goes on from where it paused.
   */
  async pause(s: TurnState, kind: PauseKind, reason: string): Promise<ResumeOptions> {
    const now = Date.now();
    if (this.#pausedSince?.kind !== kind) this.#pausedSince = { kind, at: now };
    this.setStatus('paused');
    this.event({ kind: 'paused', at: now, step: s.step, pause: kind, reason: `${reason} — ${PAUSE_HINTS[kind]}` });
    const o = await this.#pauses.wait(
      { kind, reason, step: s.step, since: this.#pausedSince.at },
      this.#input.autoResume,
    );
    const changes: string[] = [];
    const next = { ...this.#input };
    if (o.model) {
      next.model = o.model;
      changes.push(`model ${o.model}`);
    }
    if (o.maxTokens !== undefined) {
      next.maxTokens = o.maxTokens;
      changes.push(`max tokens ${o.maxTokens}`);
    }
    if (o.maxCostUsd !== undefined) {
      next.maxCostUsd = o.maxCostUsd;
      changes.push(`max cost $${o.maxCostUsd}`);
    }
    if (o.deadlineMs !== undefined) {
      next.deadlineMs = Date.now() - s.startedAt + o.deadlineMs;
      changes.push(`deadline ${Math.round(o.deadlineMs / 1000)} s from now`);
    }
    this.#input = next;
    this.#resumed = true;
    this.setStatus('running');
    if (o.compact) changes.push('compact the conversation');
    this.event({ kind: 'resumed', at: Date.now(), step: s.step, by: o.by, changes: changes.join(', ') });
    return o;
  }

  get eventsShown(): number {
    return this.#eventsBefore + this.events.length;
  }

  event(e: ProgressEvent): void {
    this.events.push(e);
  }

  setStatus(status: RecordedStatus): void {
    upsertSearchAttributes([{ key: SA_STATUS, value: status }]);
  }

  upsertToolsUsed(s: TurnState): void {
    upsertSearchAttributes([{ key: SA_TOOLS, value: [...s.toolsUsed].sort() }]);
  }

  /** The agents that answered so far (`dagent jobs --agent HASH`). */
  upsertAgents(s: TurnState): void {
    upsertSearchAttributes([{ key: SA_AGENT, value: [...(s.agents ?? [])] }]);
  }

  upsertWritten(s: TurnState): void {
    upsertSearchAttributes([{ key: SA_WROTE, value: [...s.written].sort() }]);
  }

  /** What runCalls needs for one step. */
  stepContext(step: number): StepContext {
    return {
      jobId: this.jobId,
      input: this.input,
      step,
      events: this.events,
      locks: this.#locks,
      approvals: this.#approvals,
      readCache: this.#input.readCache === false ? null : this.#readCache,
      setStatus: (st) => this.setStatus(st),
    };
  }

  /**
   * One model call: the stored conversation's reference plus what is new. A failure a person or
   * time can fix (an outage past the retries, a rate limit, a quota, a context overflow) pauses
   * the job and the same call is made again after `dagent resume`; any other fails the job with
   * the step and the reason.
   */
  async ask(
    s: TurnState,
    o: { append: ChatMessage[]; tools: string[] | undefined; store?: false },
  ): Promise<ModelReply> {
    // A compaction (on resume) replaces the conversation this call sends; the reply's stored
    // conversation builds on it, so the turn carries the compacted chain from then on.
    let conversation = s.conversation;
    // A job that keeps its context bounded: the last call reached the limit, so this one sends less.
    const limit = this.#input.compactAtTokens;
    if (limit && o.store !== false && (s.lastCallTokens ?? 0) >= limit)
      conversation = await this.compact(s, conversation);
    for (;;) {
      const input = this.#input;
      try {
        const reply = await modelActivity(input.modelRetry)({
          conversation,
          append: o.append,
          ...(o.store === false ? { store: false } : {}),
          ...(o.tools ? { tools: o.tools } : {}),
          step: s.step,
          ...(this.#resumed ? { afterResume: true } : {}),
          workspace: input.workspace,
          ...(input.workspaceId ? { workspaceId: input.workspaceId } : {}),
          ...(input.model ? { model: input.model } : {}),
          ...(input.toolFormat ? { toolFormat: input.toolFormat } : {}),
        });
        this.#pausedSince = null;
        this.#resumed = false;
        return reply;
      } catch (err) {
        if (isCancellation(err)) throw err;
        const cause = err instanceof ActivityFailure ? err.cause : undefined;
        const type = cause instanceof ApplicationFailure && cause.type ? cause.type : undefined;
        const kind = o.store === false ? null : pauseKindOf(type); // a closing summary never pauses
        if (kind) {
          const resumed = await this.pause(s, kind, `model call at step ${s.step} failed: ${failureText(err)}`);
          if (resumed.compact) conversation = await this.compact(s, conversation);
          continue;
        }
        this.setStatus('failed');
        throw ApplicationFailure.create({
          message: `Model call failed at step ${s.step}: ${failureText(err)}`,
          type: type ?? 'ModelCallFailed',
          nonRetryable: true,
        });
      }
    }
  }

  /** The conversation with its older messages summarised in one (a new chain; the old one stays for the audit). */
  async compact(s: TurnState, conversation: TurnState['conversation']): Promise<TurnState['conversation']> {
    const c = await compactConversation({ conversation });
    this.event({ kind: 'compacted', at: Date.now(), step: s.step, summarised: c.summarised });
    return c.conversation;
  }

  finish(s: TurnState, end: { status: TurnResult['status']; answer: string | null; reason?: string }): TurnResult {
    const r = turnResult(s, this.input, end);
    this.event({
      kind: 'final',
      at: Date.now(),
      step: r.steps,
      status: r.status,
      answer: r.answer,
      ...(r.reason ? { reason: r.reason } : {}),
    });
    this.setStatus(r.status);
    return r;
  }

  /** Ends the turn before a final answer; on a budget, with the model's summary of where it got (its tokens counted). */
  async stopEarly(s: TurnState, stop: Stop): Promise<TurnResult> {
    let answer: string | null = null;
    if (stop.summarize) {
      const ask = [...s.pending, { role: 'user' as const, content: SUMMARY_REQUEST(stop.reason) }];
      const reply = await this.ask(s, { append: ask, tools: [], store: false }).catch(() => null);
      if (reply) [s, answer] = [countUsage(s, reply), reply.assistantMessage.content ?? null];
    }
    return this.finish(s, { status: stop.status, answer, reason: stop.reason });
  }

  rejected(step: number, calls: PlannedCall[]): void {
    for (const c of calls.filter(isRejected)) {
      this.event({ kind: 'rejected', at: Date.now(), step, callId: c.id, name: c.name, reason: c.rejected });
    }
  }

  cancelled(step: number): void {
    this.event({ kind: 'cancelled', at: Date.now(), step });
    this.setStatus('cancelled');
  }
}
