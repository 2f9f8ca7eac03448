import { createHash } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { ApplicationFailure } from '@temporalio/activity';
import OpenAI from 'openai';
import type { ModelConfig } from '../src/config.js';
import { redactValue, type Redactor } from '../src/audit/redact.js';
import { ConversationStore } from '../src/content/conversation.js';
import { ContentError, expandMessages, shrinkReply, type ContentStore } from '../src/content/store.js';
import { classifyModelError } from '../src/llm/classify-error.js';
import { callCost, DEFAULT_PRICES, type PriceTable } from '../src/llm/prices.js';
import { QuotaBreaker } from '../src/llm/quota-breaker.js';
import type { ToolRegistry } from '../src/tools/registry.js';
import { noMetrics, type AgentMetrics } from '../src/worker/metrics.js';
import type { AssistantToolCall, ModelRequest, ModelReply, PlannedCall } from '../src/workflow-safe/types.js';

/** The name a call that could not be read stands under (a valid function name, for the provider). */
const UNREADABLE = 'unreadable_call';
import { protocolFor, textReplyToStep, toTextMessages } from './text-protocol.js';
import { requestReply, type RawReply } from './model-request.js';

/**
 * The model activity: sends the conversation, then parses, validates and classifies the reply's
 * tool calls so the workflow sees only plain data. Every attempt is one Temporal attempt (the
 * SDK's own retries are off); failures are classified for Temporal's retry policy.
 */
export function makeCallModel(
  model: ModelConfig,
  registry: ToolRegistry,
  redact: Redactor,
  store: ContentStore,
  prices: PriceTable = DEFAULT_PRICES,
  breaker: QuotaBreaker = new QuotaBreaker(),
  metrics: AgentMetrics = noMetrics,
) {
  const conversations = new ConversationStore(store);
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: model.apiKey, maxRetries: 0, timeout: model.timeoutMs });

  return async function callModel(req: ModelRequest): Promise<ModelReply> {
    const started = Date.now();
    const format = req.toolFormat ?? 'native';
    // The conversation so far comes from the store (history holds its reference), the new messages
    // from the request; long texts are references, and the model gets the text.
    const append = req.append ?? req.messages ?? [];
    const stored = await conversations.read(req.conversation).catch(unrecoverable);
    const full = await expandMessages(store, [...stored, ...append]).catch(unrecoverable);
    // With many tools, a relevant subset (recorded in the reply); a closing summary offers none.
    const offer = req.tools?.length === 0 ? { only: req.tools } : registry.offer(req.tools, full);
    const tools = format === 'native' ? registry.openAITools(offer.only) : [];
    const messages = format === 'native' ? full : toTextMessages(full, protocolFor(format), registry, offer.only);
    // A quota another job just ran into: pause at once rather than spend a request to learn it.
    const held = req.afterResume ? null : breaker.check(model.baseURL);
    if (held)
      throw ApplicationFailure.create({
        message: `Model call ${held}`,
        type: 'ModelQuotaExceeded',
        nonRetryable: true,
      });
    let raw: RawReply;
    try {
      raw = await requestReply(
        client,
        {
          model: req.model ?? model.model,
          messages: messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
          ...(tools.length ? { tools } : {}),
        },
        model,
        redact,
      );
    } catch (err) {
      if (err instanceof ApplicationFailure && err.type === 'ModelQuotaExceeded')
        breaker.trip(model.baseURL, err.message);
      metrics.modelCall('failed', 0);
      throw err;
    }
    breaker.close(model.baseURL);
    if (!raw.message) throw classifyModelError(new Error('the reply has no choices[0].message'), model.baseURL, redact);
    const msg = raw.message as OpenAI.Chat.Completions.ChatCompletionMessage;
    // Redact the reply first: the calls' arguments, the text and the answer all come from it.
    const clean = redactValue(msg, redact);
    const parsed =
      format === 'native'
        ? await nativeReplyToStep(clean, req, registry)
        : await textReplyToStep(clean.content ?? '', format, req, registry, raw.finishReason === 'length');
    const usage = raw.usage;
    metrics.modelCall('ok', usage?.total_tokens ?? 0);
    trace.getActiveSpan()?.setAttributes({
      'dagent.step': req.step,
      'dagent.model': raw.model ?? req.model ?? model.model,
      'dagent.tokens': usage?.total_tokens ?? 0,
      'dagent.calls': parsed.calls.length,
    });
    for (const c of parsed.calls)
      if (c.rejected) metrics.refused(c.name, c.policy?.decision === 'deny' ? 'policy' : 'invalid');
    const answeredBy = raw.model ?? req.model ?? model.model;
    const cost = callCost(prices, answeredBy, {
      promptTokens: usage?.prompt_tokens ?? 0,
      completionTokens: usage?.completion_tokens ?? 0,
    });
    const reply = await shrinkReply(store, {
      ...(cost !== undefined ? { costUsd: cost } : {}),
      ...(offer.routed ? { offered: offer.routed } : {}),
      ...capCalls(parsed),
      agent: agentHash({
        systemPrompt: full[0]?.role === 'system' ? full[0].content : null,
        model: req.model ?? model.model,
        format,
        tools: format === 'native' ? tools : registry.toolSpecs(offer.only),
      }),
      finishReason: raw.finishReason ?? 'unknown',
      model: answeredBy,
      usage: {
        promptTokens: usage?.prompt_tokens ?? 0,
        completionTokens: usage?.completion_tokens ?? 0,
        totalTokens: usage?.total_tokens ?? 0,
      },
      latencyMs: Date.now() - started,
    });
    // Requests from before the hash chain (`messages`) and closing summaries store nothing.
    if (!req.append || req.store === false) return reply;
    const conversation = await conversations.append(req.conversation, [...append, reply.assistantMessage], stored);
    return { ...reply, conversation };
  };
}

/**
 * What agent answers: the system prompt, the model, the tool format and every tool's schema,
 * hashed (12 hex digits). Two jobs with the same hash were run by the same agent.
 */
function agentHash(a: { systemPrompt: unknown; model: string; format: string; tools: unknown }): string {
  return createHash('sha256').update(JSON.stringify(a)).digest('hex').slice(0, 12);
}

/** A blob missing or corrupt in the store does not come back by retrying: fail the job, naming it. */
function unrecoverable(err: unknown): never {
  if (err instanceof ContentError)
    throw ApplicationFailure.create({ message: err.message, type: 'ContentMissing', nonRetryable: true });
  throw err;
}

/** At most this many calls of one reply run; the rest are answered with the reason. */
export const MAX_CALLS_PER_REPLY = 64;

function capCalls<T extends Pick<ModelReply, 'calls'>>(parsed: T): T {
  if (parsed.calls.length <= MAX_CALLS_PER_REPLY) return parsed;
  const n = parsed.calls.length;
  const calls = parsed.calls.map((c, i): PlannedCall => {
    if (i < MAX_CALLS_PER_REPLY) return c;
    const { id, providerId, name, rawArguments, format, rawText } = c;
    return {
      id,
      name,
      rawArguments,
      format,
      ...(providerId !== undefined ? { providerId } : {}),
      ...(rawText !== undefined ? { rawText } : {}),
      rejected: `Too many calls in one reply (${n}): the first ${MAX_CALLS_PER_REPLY} run, this one and the others after it did not. Ask for them in your next reply.`,
    };
  });
  return { ...parsed, calls };
}

/** Calls in a reply, as the provider sent them: read defensively, since a reply is untrusted data. */
type NativeCall = { providerId: string; name: string; arguments: string } | { providerId: string; problem: string };

function readNativeCalls(raw: unknown): NativeCall[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    return [{ providerId: '', problem: "The reply's tool_calls is not a list: send tool calls as a JSON array." }];
  }
  return raw.map((tc: unknown): NativeCall => {
    const t = (tc ?? {}) as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } };
    const providerId = typeof t.id === 'string' ? t.id : '';
    const name = t.function?.name;
    if (typeof name !== 'string' || !name)
      return { providerId, problem: 'A tool call has no function name: name the tool to call.' };
    const args = t.function?.arguments;
    // Some servers send the arguments as an object rather than a JSON string: take it as it is meant.
    return {
      providerId,
      name,
      arguments: typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args),
    };
  });
}

/** Native tool_calls: each call's JSON arguments validated against its tool. */
async function nativeReplyToStep(
  msg: OpenAI.Chat.Completions.ChatCompletionMessage,
  req: ModelRequest,
  registry: ToolRegistry,
): Promise<Pick<ModelReply, 'assistantMessage' | 'calls' | 'final'>> {
  const native = readNativeCalls((msg as { tool_calls?: unknown }).tool_calls);
  // Our own id per call (step and position) keys results, approvals, locks and the audit; the
  // provider's id, which a provider may repeat or leave empty, only answers the provider.
  const calls = await Promise.all(
    native.map(async (tc, i): Promise<PlannedCall> => {
      const id = `s${req.step}c${i + 1}`;
      if ('problem' in tc)
        return {
          id,
          providerId: tc.providerId || id,
          name: UNREADABLE,
          rawArguments: '',
          format: 'native',
          rejected: tc.problem,
        };
      return registry.prepareCall({
        id,
        providerId: tc.providerId,
        name: tc.name,
        rawArguments: tc.arguments,
        workspace: req.workspace,
        workspaceId: req.workspaceId,
        only: req.tools,
      });
    }),
  );
  const toolCalls: AssistantToolCall[] = calls.map((c) => ({
    id: c.providerId ?? c.id,
    type: 'function',
    function: { name: c.name, arguments: c.rawArguments },
  }));
  return {
    assistantMessage: {
      role: 'assistant',
      content: msg.content ?? null,
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    },
    calls,
    ...(calls.length === 0 ? { final: msg.content ?? '' } : {}),
  };
}
