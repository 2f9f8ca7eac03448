import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import OpenAI from 'openai';
import type { ModelConfig } from '../src/config.js';
import { redactValue, type Redactor } from '../src/audit/redact.js';
import { ConversationStore } from '../src/content/conversation.js';
import { ContentError, expandMessages, shrinkReply, type ContentStore } from '../src/content/store.js';
import { classifyModelError } from '../src/llm/classify-error.js';
import type { ToolRegistry } from '../src/tools/registry.js';
import type { AssistantToolCall, ModelRequest, ModelReply } from '../src/workflow-safe/types.js';
import { protocolFor, textReplyToStep, toTextMessages } from './text-protocol.js';

/**
 * The model activity: sends the conversation, then parses, validates and classifies the reply's
 * tool calls so the workflow sees only plain data. Every attempt is one Temporal attempt (the
 * SDK's own retries are off); failures are classified for Temporal's retry policy.
 */
export function makeCallModel(model: ModelConfig, registry: ToolRegistry, redact: Redactor, store: ContentStore) {
  const conversations = new ConversationStore(store);
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: model.apiKey, maxRetries: 0, timeout: model.timeoutMs });

  return async function callModel(req: ModelRequest): Promise<ModelReply> {
    const started = Date.now();
    const format = req.toolFormat ?? 'native';
    const tools = format === 'native' ? registry.openAITools(req.tools) : [];
    // The conversation so far comes from the store (history holds its reference), the new messages
    // from the request; long texts are references, and the model gets the text.
    const append = req.append ?? req.messages ?? [];
    const stored = await conversations.read(req.conversation).catch(unrecoverable);
    const full = await expandMessages(store, [...stored, ...append]).catch(unrecoverable);
    const messages = format === 'native' ? full : toTextMessages(full, protocolFor(format), registry, req.tools);
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    // Heartbeat while waiting, so a dead worker's call is retried within the heartbeat timeout.
    const ctx = Context.current();
    const beat = setInterval(() => ctx.heartbeat(), 1_000);
    try {
      completion = await client.chat.completions.create(
        {
          model: req.model ?? model.model,
          messages: messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
          ...(tools.length ? { tools } : {}),
        },
        { signal: ctx.cancellationSignal },
      );
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw new CancelledFailure('model call stopped: the job was cancelled');
      throw classifyModelError(err, model.baseURL);
    } finally {
      clearInterval(beat);
    }
    const choice = completion.choices?.[0];
    if (!choice?.message) throw classifyModelError(new Error('the reply has no choices[0].message'), model.baseURL);
    const msg = choice.message;
    // Redact the reply first: the calls' arguments, the text and the answer all come from it.
    const clean = redactValue(msg, redact);
    const parsed =
      format === 'native'
        ? await nativeReplyToStep(clean, req, registry)
        : await textReplyToStep(clean.content ?? '', format, req, registry);
    const usage = completion.usage;
    const reply = await shrinkReply(store, {
      ...parsed,
      finishReason: choice.finish_reason ?? 'unknown',
      model: completion.model ?? req.model ?? model.model,
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

/** A blob missing or corrupt in the store does not come back by retrying: fail the job, naming it. */
function unrecoverable(err: unknown): never {
  if (err instanceof ContentError)
    throw ApplicationFailure.create({ message: err.message, type: 'ContentMissing', nonRetryable: true });
  throw err;
}

/** Native tool_calls: each call's JSON arguments validated against its tool. */
async function nativeReplyToStep(
  msg: OpenAI.Chat.Completions.ChatCompletionMessage,
  req: ModelRequest,
  registry: ToolRegistry,
): Promise<Pick<ModelReply, 'assistantMessage' | 'calls' | 'final'>> {
  const toolCalls: AssistantToolCall[] = (msg.tool_calls ?? []).flatMap((tc) =>
    tc.type === 'function'
      ? [
          {
            id: tc.id,
            type: 'function' as const,
            function: { name: tc.function.name, arguments: tc.function.arguments ?? '' },
          },
        ]
      : [],
  );
  // Our own id per call (step and position) keys results, approvals, locks and the audit; the
  // provider's id, which a provider may repeat or leave empty, only answers the provider.
  const calls = await Promise.all(
    toolCalls.map((tc, i) =>
      registry.prepareCall({
        id: `s${req.step}c${i + 1}`,
        providerId: typeof tc.id === 'string' ? tc.id : '',
        name: tc.function.name,
        rawArguments: tc.function.arguments,
        workspace: req.workspace,
        only: req.tools,
      }),
    ),
  );
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
