import { defaultPayloadConverter, type WorkflowHandle } from '@temporalio/client';
import { isStreamProgress } from '../../llm/stream-reply.js';

/** A model reply being written: what its activity last heartbeated. */
export interface LiveReply {
  attempt: number;
  text: string;
  truncated: boolean;
  /** Why the attempt before this one failed, when this is a retry. */
  lastFailure?: string;
}

/**
 * The reply the job's model call is writing now, from the pending activity's heartbeat details
 * (never from history: partial replies are not recorded). Null when no model call streams.
 */
export async function liveReply(handle: WorkflowHandle): Promise<LiveReply | null> {
  const d = await handle.describe();
  const pending = d.raw.pendingActivities?.find((a) => a.activityType?.name === 'callModel');
  if (!pending) return null;
  const attempt = pending.attempt ?? 1;
  const payload = pending.heartbeatDetails?.payloads?.[0];
  let details: unknown;
  try {
    details = payload ? defaultPayloadConverter.fromPayload(payload) : undefined;
  } catch {
    details = undefined;
  }
  const lastFailure = pending.lastFailure?.message ?? undefined;
  // Temporal keeps the last details across retries: the previous attempt's text is not this one's.
  const mine = isStreamProgress(details) && details.stream.attempt === attempt ? details.stream : null;
  return {
    attempt,
    text: mine?.text ?? '',
    truncated: mine?.truncated ?? false,
    ...(lastFailure ? { lastFailure } : {}),
  };
}

/** A line still being written is shown once this much of it has come. */
const WRAP_AT = 100;

/**
 * Prints a streamed reply line by line as it grows (`  │ ` before each line), says when an attempt
 * starts again (its text so far is dropped), and completes the text from the recorded reply.
 */
export class StreamPrinter {
  #attempt = 0;
  #text = '';
  /** How much of #text has been printed (always up to a line end, except after end()). */
  #printed = 0;
  #began = false;
  #cut = false;

  constructor(private readonly print: (line: string) => void) {}

  /** A new model call: nothing of it has been shown. */
  begin(): void {
    this.#attempt = 0;
    this.#text = '';
    this.#printed = 0;
    this.#began = false;
    this.#cut = false;
  }

  update(live: LiveReply): void {
    if (live.attempt !== this.#attempt) {
      if (this.#began || this.#text)
        this.print(
          `  ↻ attempt ${live.attempt} writes the reply again${this.#began ? '; the text above is dropped' : ''}${live.lastFailure ? ` (${live.lastFailure})` : ''}`,
        );
      this.#attempt = live.attempt;
      this.#text = '';
      this.#printed = 0;
      this.#began = false;
      this.#cut = false;
    }
    if (live.text.length <= this.#text.length) return;
    this.#text = live.text;
    this.#cut = live.truncated;
    this.#printLines(false);
  }

  /** The call completed: print the rest of what began streaming, from the recorded reply's start. */
  end(recorded?: string): void {
    if (!this.#began && !this.#text) return;
    if (recorded && recorded.length > this.#text.length && recorded.startsWith(this.#text.slice(0, this.#printed)))
      this.#text = recorded;
    this.#printLines(true);
    if (this.#cut) this.print('  │ …');
    this.begin();
  }

  #printLines(all: boolean): void {
    let upTo = all ? this.#text.length : this.#text.lastIndexOf('\n') + 1;
    // A long line still being written is shown up to its last word.
    if (!all && this.#text.length - Math.max(upTo, this.#printed) > WRAP_AT) {
      const space = this.#text.lastIndexOf(' ');
      if (space > Math.max(upTo, this.#printed)) upTo = space + 1;
    }
    if (upTo <= this.#printed) return;
    const lines = this.#text.slice(this.#printed, upTo).replace(/\s$/, '').split('\n');
    for (const line of lines) this.print(`  │ ${line}`);
    this.#printed = upTo;
    this.#began = true;
  }
}
