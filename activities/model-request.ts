import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { ModelConfig } from '../src/config.js';
import type { Redactor } from '../src/audit/redact.js';
import { classifyModelError } from '../src/llm/classify-error.js';
import { StreamAssembler, streamProgress } from '../src/llm/stream-reply.js';
import { BEAT_EVERY_MS, QUIET_BEAT_EVERY_MS } from './heartbeat.js';

/** A model's reply as the activity reads it, whether it came whole or streamed. */
export interface RawReply {
  message: { content?: string | null; tool_calls?: unknown } | undefined;
  finishReason: string | null;
  model?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
}

/** How long a streamed reply may go without a new piece once it has begun. */
export const DEFAULT_STALL_MS = 30_000;

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

/**
 * One model request. Streamed (the default), the activity heartbeats what has been written so far
 * (`dagent watch` shows it), and a stream that stops sending (no piece for `stallMs`, or nothing
 * at all within the request timeout) or ends before the provider says it is done is an attempt that
 * failed and is retried whole: the next attempt starts from nothing, and only the reply of the
 * attempt that completes reaches history. Whole, the activity heartbeats while it waits.
 */
export async function requestReply(
  client: OpenAI,
  params: Params,
  model: ModelConfig,
  redact: Redactor,
): Promise<RawReply> {
  const ctx = Context.current();
  if (model.stream === false) {
    const beat = setInterval(() => ctx.heartbeat(), QUIET_BEAT_EVERY_MS);
    try {
      const c = await client.chat.completions.create(params, { signal: ctx.cancellationSignal });
      const choice = c.choices?.[0];
      return {
        message: choice?.message,
        finishReason: choice?.finish_reason ?? null,
        model: c.model,
        ...(c.usage ? { usage: c.usage } : {}),
      };
    } catch (err) {
      throw failure(err, ctx, model, redact);
    } finally {
      clearInterval(beat);
    }
  }

  const assembler = new StreamAssembler();
  const stop = new AbortController();
  const cancel = () => stop.abort();
  ctx.cancellationSignal.addEventListener('abort', cancel);
  const started = Date.now();
  let lastPiece = started;
  let stalled: string | null = null;
  const stallMs = model.stallMs ?? DEFAULT_STALL_MS;
  // Details are built (joined and redacted) at most every BEAT_EVERY_MS, not for every piece.
  let lastBeat = 0;
  let dirty = false;
  const beatNow = () => {
    lastBeat = Date.now();
    dirty = false;
    ctx.heartbeat(streamProgress(assembler, ctx.info.attempt, redact));
  };
  // Beats while the reply is being written or awaited, with what has been written; a stream that
  // stops giving pieces stops this attempt (heartbeats alone would keep it alive forever).
  const beat = setInterval(() => {
    const idle = Date.now() - lastPiece;
    const limit = assembler.chars || assembler.callNames.length ? stallMs : model.timeoutMs;
    if (idle > limit) {
      stalled = `no new piece for ${Math.round(idle / 1000)} s${assembler.chars ? ` after ${assembler.chars} characters` : ' since the request'}`;
      stop.abort();
      return;
    }
    if (dirty || Date.now() - lastBeat >= QUIET_BEAT_EVERY_MS) beatNow();
  }, 1_000);
  try {
    const stream = await client.chat.completions.create(
      { ...params, stream: true, stream_options: { include_usage: true } },
      { signal: stop.signal },
    );
    for await (const chunk of stream) {
      if (assembler.add(chunk)) {
        lastPiece = Date.now();
        dirty = true;
        if (lastPiece - lastBeat >= BEAT_EVERY_MS) beatNow();
      }
    }
  } catch (err) {
    if (stalled) throw streamFailure(`stalled: ${stalled}`);
    if (ctx.cancellationSignal.aborted) throw new CancelledFailure('model call stopped: the job was cancelled');
    if (assembler.chars || assembler.callNames.length)
      throw streamFailure(`broke off after ${assembler.chars} characters (${(err as Error).message})`);
    throw failure(err, ctx, model, redact);
  } finally {
    clearInterval(beat);
    ctx.cancellationSignal.removeEventListener('abort', cancel);
  }
  // An abort may end the stream quietly rather than with an error.
  if (stalled) throw streamFailure(`stalled: ${stalled}`);
  if (ctx.cancellationSignal.aborted) throw new CancelledFailure('model call stopped: the job was cancelled');
  const r = assembler.reply();
  if (r.finishReason === null)
    throw streamFailure(`ended after ${assembler.chars} characters before the provider said the reply was complete`);
  return {
    message: { content: r.content, ...(r.toolCalls.length ? { tool_calls: r.toolCalls } : {}) },
    finishReason: r.finishReason,
    ...(r.model !== undefined ? { model: r.model } : {}),
    ...(r.usage ? { usage: r.usage } : {}),
  };
}

function failure(err: unknown, ctx: Context, model: ModelConfig, redact: Redactor): Error {
  if (ctx.cancellationSignal.aborted) return new CancelledFailure('model call stopped: the job was cancelled');
  return classifyModelError(err, model.baseURL, redact);
}

/** A stream that broke off is retried from the start: the partial reply is dropped. */
function streamFailure(what: string): ApplicationFailure {
  return ApplicationFailure.create({
    message: `The model's streamed reply ${what}; the attempt is dropped and the call made again.`,
    type: 'ModelStreamBroken',
    nonRetryable: false,
  });
}
