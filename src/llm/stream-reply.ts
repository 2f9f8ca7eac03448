/**
 * A streamed chat completion, put together chunk by chunk. Chunks are untrusted data: anything
 * that is not the expected shape is skipped, and tool-call pieces are joined by their index.
 */
export interface StreamedReply {
  model?: string;
  content: string | null;
  toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  /** null when the stream ended before the provider said why: the reply is incomplete. */
  finishReason: string | null;
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
}

interface ChunkToolCall {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

/** At most this many tool calls are put together (the reply's calls are capped after parsing anyway). */
const MAX_STREAMED_CALLS = 1_000;

export class StreamAssembler {
  #content: string[] = [];
  #chars = 0;
  #calls = new Map<number, { id: string; name: string; args: string[] }>();
  #finish: string | null = null;
  #model: string | undefined;
  #usage: StreamedReply['usage'];

  /** Adds one chunk; returns whether it carried new text or call pieces. */
  add(chunk: unknown): boolean {
    if (!chunk || typeof chunk !== 'object') return false;
    const c = chunk as { model?: unknown; usage?: unknown; choices?: unknown };
    if (typeof c.model === 'string') this.#model = c.model;
    if (c.usage && typeof c.usage === 'object') this.#usage = c.usage as StreamedReply['usage'];
    const choice = Array.isArray(c.choices) ? (c.choices[0] as Record<string, unknown> | undefined) : undefined;
    if (!choice || typeof choice !== 'object') return false;
    if (typeof choice.finish_reason === 'string') this.#finish = choice.finish_reason;
    const delta = choice.delta as { content?: unknown; tool_calls?: unknown } | undefined;
    if (!delta || typeof delta !== 'object') return false;
    let grew = false;
    if (typeof delta.content === 'string' && delta.content) {
      this.#content.push(delta.content);
      this.#chars += delta.content.length;
      grew = true;
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const raw of delta.tool_calls as Array<ChunkToolCall | null>) {
        if (!raw || typeof raw !== 'object') continue;
        const index = typeof raw.index === 'number' && Number.isInteger(raw.index) ? raw.index : this.#calls.size;
        if (index < 0 || index >= MAX_STREAMED_CALLS) continue;
        const call = this.#calls.get(index) ?? { id: '', name: '', args: [] };
        if (typeof raw.id === 'string' && raw.id) call.id = raw.id;
        if (typeof raw.function?.name === 'string') call.name += raw.function.name;
        if (typeof raw.function?.arguments === 'string') call.args.push(raw.function.arguments);
        this.#calls.set(index, call);
        grew = true;
      }
    }
    return grew;
  }

  /** The text written so far. */
  get text(): string {
    if (this.#content.length > 1) this.#content = [this.#content.join('')];
    return this.#content[0] ?? '';
  }

  get chars(): number {
    return this.#chars;
  }

  /** The names of the tool calls begun so far, in order. */
  get callNames(): string[] {
    return [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c.name);
  }

  get finishReason(): string | null {
    return this.#finish;
  }

  reply(): StreamedReply {
    const text = this.text;
    return {
      ...(this.#model !== undefined ? { model: this.#model } : {}),
      content: text === '' && this.#calls.size ? null : text,
      toolCalls: [...this.#calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, c]) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: c.args.join('') },
        })),
      finishReason: this.#finish,
      ...(this.#usage ? { usage: this.#usage } : {}),
    };
  }
}

/** What a model activity heartbeats while its reply streams: what `dagent watch` shows. */
export interface StreamProgress {
  /** `attempt` tells a watcher whether the details are this attempt's (Temporal keeps the last ones across retries). */
  stream: { attempt: number; text: string; chars: number; calls: string[]; truncated: boolean };
}

/** The text in heartbeat details is capped (details travel with every heartbeat). */
export const STREAM_DETAILS_MAX_CHARS = 16_000;

export function streamProgress(a: StreamAssembler, attempt: number, redact: (s: string) => string): StreamProgress {
  const text = a.text;
  const shown = text.length > STREAM_DETAILS_MAX_CHARS ? text.slice(0, STREAM_DETAILS_MAX_CHARS) : text;
  return {
    stream: { attempt, text: redact(shown), chars: a.chars, calls: a.callNames, truncated: shown.length < text.length },
  };
}

export function isStreamProgress(v: unknown): v is StreamProgress {
  const s = (v as StreamProgress | undefined)?.stream;
  return (
    !!s &&
    typeof s === 'object' &&
    typeof s.text === 'string' &&
    typeof s.chars === 'number' &&
    typeof s.attempt === 'number'
  );
}
