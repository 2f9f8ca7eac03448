import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { DEFAULT_SYSTEM_PROMPT } from '../src/workflow-safe/prompt.js';
import { SA_STATUS, SA_TOOLS, SA_WROTE } from '../src/workflow-safe/search-attributes.js';
import { budgetStop, ProgressWatch, SUMMARY_REQUEST, type Stop } from '../src/workflow-safe/stop-conditions.js';
import type { ChatMessage, ModelRequest, ProgressEvent, TurnInput, TurnResult } from '../src/workflow-safe/types.js';
import { addUsage, zeroUsage } from '../src/workflow-safe/usage.js';
import { Approvals } from './approvals.js';
import { progressQuery } from '../src/workflow-safe/messages.js';
import { TurnLocks } from './locks.js';
import { failureText, runCalls } from './run-calls.js';

export const DEFAULT_MAX_STEPS = 20;

const { callModel } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

/** One agent turn: model → tool calls → results → model, until a final answer or a stop condition. */
export async function agentTurn(input: TurnInput): Promise<TurnResult> {
  const jobId = workflowInfo().workflowId;
  const resume = input.resume;
  const startedAt = resume?.startedAt ?? Date.now();
  const maxSteps = input.maxSteps ?? DEFAULT_MAX_STEPS;
  const events: ProgressEvent[] = [];
  const now = () => Date.now();
  const eventsBefore = resume?.events ?? 0; // shown by earlier runs of this turn
  setHandler(progressQuery, (since) => ({
    events: events.slice(Math.max(0, since - eventsBefore)),
    next: eventsBefore + events.length,
  }));
  const locks = new TurnLocks(jobId, input.lockOptions);
  const approvals = new Approvals();
  const watch = new ProgressWatch(input.noProgressRepeats ?? 3, resume?.streaks);
  const toolsUsed = new Set<string>(resume?.toolsUsed);
  const written = new Set<string>(resume?.written);
  const setStatus = (status: string) => upsertSearchAttributes([{ key: SA_STATUS, value: status }]);
  const addTo = (set: Set<string>, key: typeof SA_TOOLS | typeof SA_WROTE, values: string[]) => {
    const before = set.size;
    for (const v of values) set.add(v);
    if (set.size !== before) upsertSearchAttributes([{ key, value: [...set].sort() }]);
  };
  setStatus('running');
  if (toolsUsed.size) upsertSearchAttributes([{ key: SA_TOOLS, value: [...toolsUsed].sort() }]);
  if (written.size) upsertSearchAttributes([{ key: SA_WROTE, value: [...written].sort() }]);

  const messages: ChatMessage[] = resume?.messages ?? [
    { role: 'system', content: input.systemPrompt ?? DEFAULT_SYSTEM_PROMPT },
    ...(input.history ?? []),
    { role: 'user', content: input.task },
  ];
  const firstNew = resume?.firstNew ?? messages.length - 1;
  let usage = resume?.usage ?? zeroUsage();
  let step = resume?.step ?? 0;
  let stepsThisRun = 0;

  const ask = async (req: Omit<ModelRequest, 'workspace' | 'step'>) => {
    try {
      const reply = await callModel({
        ...req,
        step,
        workspace: input.workspace,
        ...(input.model ? { model: input.model } : {}),
        ...(input.toolFormat ? { toolFormat: input.toolFormat } : {}),
      });
      usage = addUsage(usage, reply.usage);
      return reply;
    } catch (err) {
      if (isCancellation(err)) throw err;
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      setStatus('failed');
      throw ApplicationFailure.create({
        message: `Model call failed at step ${step}: ${failureText(err)}`,
        type: cause instanceof ApplicationFailure && cause.type ? cause.type : 'ModelCallFailed',
        nonRetryable: true,
      });
    }
  };

  const finish = (r: TurnResult): TurnResult => {
    events.push({
      kind: 'final',
      at: now(),
      step: r.steps,
      status: r.status,
      answer: r.answer,
      ...(r.reason ? { reason: r.reason } : {}),
    });
    setStatus(r.status);
    if (!input.returnMessages) return r;
    const added = messages.slice(firstNew);
    // A turn that stopped without an answer still leaves the conversation well-formed.
    if (r.status !== 'completed')
      added.push({ role: 'assistant', content: r.answer ?? `(stopped: ${r.reason ?? r.status})` });
    return { ...r, messages: added };
  };

  const stopEarly = async (stop: Stop): Promise<TurnResult> => {
    let answer: string | null = null;
    if (stop.summarize) {
      const reply = await ask({
        messages: [...messages, { role: 'user', content: SUMMARY_REQUEST(stop.reason) }],
        tools: [],
      }).catch(() => null);
      answer = reply?.assistantMessage.content ?? null;
    }
    return finish({ status: stop.status, answer, steps: step, usage, reason: stop.reason });
  };

  try {
    while (step < maxSteps) {
      const budget = budgetStop(input, usage, startedAt, now());
      if (budget) return await stopEarly(budget);
      const longRun =
        workflowInfo().continueAsNewSuggested ||
        (input.continueAsNewAfterSteps !== undefined && stepsThisRun >= input.continueAsNewAfterSteps);
      if (stepsThisRun > 0 && longRun) {
        // A long job: start a fresh history, carrying the conversation (references keep it small).
        await condition(allHandlersFinished);
        const { history: _inMessages, resume: _previous, ...same } = input;
        await continueAsNew<typeof agentTurn>({
          ...same,
          resume: {
            messages,
            firstNew,
            step,
            usage,
            startedAt,
            toolsUsed: [...toolsUsed],
            written: [...written],
            streaks: watch.snapshot(),
            events: eventsBefore + events.length,
          },
        });
      }
      step++;
      stepsThisRun++;
      events.push({ kind: 'model_start', at: now(), step });
      const reply = await ask({ messages, ...(input.tools ? { tools: input.tools } : {}) });
      messages.push(reply.assistantMessage);
      events.push({
        kind: 'model_end',
        at: now(),
        step,
        ms: reply.latencyMs,
        calls: reply.calls.length,
        tokens: reply.usage.totalTokens,
      });
      if (reply.calls.length === 0)
        return finish({ status: 'completed', answer: reply.final ?? '', steps: step, usage });

      for (const call of reply.calls) {
        if (call.rejected)
          events.push({ kind: 'rejected', at: now(), step, callId: call.id, name: call.name, reason: call.rejected });
      }
      const runnable = reply.calls.filter((c) => !c.rejected);
      addTo(
        toolsUsed,
        SA_TOOLS,
        runnable.map((c) => c.name),
      );
      const results = await runCalls({ jobId, input, step, events, locks, approvals, setStatus }, reply.calls);
      addTo(
        written,
        SA_WROTE,
        runnable.flatMap((c) => (c.effect === 'write' && !results.get(c.id)!.isError ? c.resources : [])),
      );
      for (const call of reply.calls) {
        const content = call.rejected ? `Error: ${call.rejected}` : results.get(call.id)!.output;
        messages.push({ role: 'tool', tool_call_id: call.id, content });
      }
      const stuck = watch.step(reply.calls);
      if (stuck) return await stopEarly(stuck);
    }
    return finish({
      status: 'max_steps',
      answer: null,
      steps: step,
      usage,
      reason: `reached the limit of ${maxSteps} steps`,
    });
  } catch (err) {
    if (isCancellation(err)) {
      events.push({ kind: 'cancelled', at: now(), step });
      setStatus('cancelled');
    }
    throw err;
  }
}
