import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { preview } from '../src/workflow-safe/preview.js';
import { DEFAULT_SYSTEM_PROMPT } from '../src/workflow-safe/prompt.js';
import { runDag, schedule } from '../src/workflow-safe/schedule.js';
import { SA_STATUS, SA_TOOLS, SA_WROTE } from '../src/workflow-safe/search-attributes.js';
import type { ChatMessage, PlannedCall, ProgressEvent, ToolResult, TurnInput, TurnResult } from '../src/workflow-safe/types.js';
import { addUsage, zeroUsage } from '../src/workflow-safe/usage.js';
import { progressQuery } from './definitions.js';
import { TurnLocks } from './locks.js';

export const DEFAULT_MAX_STEPS = 20;

const { callModel } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

/** Idempotent tools retry freely; others run at most once and report an unknown outcome. */
function toolActivity(call: PlannedCall) {
  return proxyActivities<Activities>({
    startToCloseTimeout: call.timeoutMs,
    heartbeatTimeout: '30s',
    retry: call.idempotent
      ? { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 }
      : { maximumAttempts: 1 },
  }).runTool;
}

function failureText(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

/** One agent turn: model → tool calls → results → model, until a final answer or maxSteps. */
export async function agentTurn(input: TurnInput): Promise<TurnResult> {
  const jobId = workflowInfo().workflowId;
  const maxSteps = input.maxSteps ?? DEFAULT_MAX_STEPS;
  const events: ProgressEvent[] = [];
  const now = () => Date.now();
  setHandler(progressQuery, (since) => events.slice(since));
  const locks = new TurnLocks(jobId, input.lockOptions);
  const toolsUsed = new Set<string>();
  const written = new Set<string>();
  const setStatus = (status: string) => upsertSearchAttributes([{ key: SA_STATUS, value: status }]);
  const addTo = (set: Set<string>, key: typeof SA_TOOLS | typeof SA_WROTE, values: string[]) => {
    const before = set.size;
    for (const v of values) set.add(v);
    if (set.size !== before) upsertSearchAttributes([{ key, value: [...set].sort() }]);
  };
  setStatus('running');

  const messages: ChatMessage[] = [
    { role: 'system', content: input.systemPrompt ?? DEFAULT_SYSTEM_PROMPT },
    { role: 'user', content: input.task },
  ];
  let usage = zeroUsage();

  for (let step = 1; step <= maxSteps; step++) {
    events.push({ kind: 'model_start', at: now(), step });
    let reply;
    try {
      reply = await callModel({
        messages,
        step,
        workspace: input.workspace,
        ...(input.toolFormat ? { toolFormat: input.toolFormat } : {}),
        ...(input.model ? { model: input.model } : {}),
        ...(input.tools ? { tools: input.tools } : {}),
      });
    } catch (err) {
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      setStatus('failed');
      throw ApplicationFailure.create({
        message: `Model call failed at step ${step}: ${failureText(err)}`,
        type: cause instanceof ApplicationFailure && cause.type ? cause.type : 'ModelCallFailed',
        nonRetryable: true,
      });
    }
    usage = addUsage(usage, reply.usage);
    messages.push(reply.assistantMessage);
    events.push({ kind: 'model_end', at: now(), step, ms: reply.latencyMs, calls: reply.calls.length, tokens: reply.usage.totalTokens });

    if (reply.calls.length === 0) {
      const answer = reply.final ?? '';
      events.push({ kind: 'final', at: now(), step, status: 'completed', answer });
      setStatus('completed');
      return { status: 'completed', answer, steps: step, usage };
    }

    for (const call of reply.calls) {
      if (call.rejected) events.push({ kind: 'rejected', at: now(), step, callId: call.id, name: call.name, reason: call.rejected });
    }
    const runnable = reply.calls.filter((c) => !c.rejected);
    addTo(toolsUsed, SA_TOOLS, runnable.map((c) => c.name));
    const deps = schedule(runnable, { serialWrites: input.serialWrites ?? false });
    const results = new Map<string, ToolResult>();
    await runDag(deps, async (i) => {
      const call = runnable[i]!;
      const run = async (fencingTokens: Record<string, number>) => {
        events.push({ kind: 'tool_start', at: now(), step, callId: call.id, name: call.name, args: preview(call.rawArguments) });
        const started = now();
        try {
          return await toolActivity(call)({ jobId, workspace: input.workspace, call: { id: call.id, name: call.name, args: call.args }, fencingTokens });
        } catch (err) {
          if (isCancellation(err)) throw err;
          const output = call.idempotent
            ? `Error: the tool failed on every attempt: ${failureText(err)}`
            : `Error: the outcome of this call is unknown (it was not retried because '${call.name}' is not idempotent): ${failureText(err)}. Check the current state before trying again.`;
          return { callId: call.id, output, isError: true, startedAt: started, endedAt: now() };
        }
      };
      const locked = call.effect === 'write' && call.resources.length > 0 && (input.locks ?? true);
      if (locked) events.push({ kind: 'lock_wait', at: now(), step, callId: call.id, keys: call.resources });
      const result = locked
        ? await locks.withLocks(
            call.id,
            call.resources,
            (g) => events.push({ kind: 'lock_granted', at: now(), step, callId: call.id, key: g.key, token: g.token, waitedMs: g.waitedMs, previousHolder: g.previousHolder }),
            (grants) => run(Object.fromEntries(grants.map((g) => [g.key, g.token]))),
          )
        : await run({});
      results.set(call.id, result);
      events.push({
        kind: 'tool_end', at: now(), step, callId: call.id, name: call.name,
        ms: result.endedAt - result.startedAt, isError: result.isError, preview: preview(result.output),
      });
    });

    addTo(written, SA_WROTE, runnable.flatMap((c) => (c.effect === 'write' && !results.get(c.id)!.isError ? c.resources : [])));
    for (const call of reply.calls) {
      const content = call.rejected ? `Error: ${call.rejected}` : results.get(call.id)!.output;
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  events.push({ kind: 'final', at: now(), step: maxSteps, status: 'max_steps', answer: null });
  setStatus('max_steps');
  return { status: 'max_steps', answer: null, steps: maxSteps, usage };
}
