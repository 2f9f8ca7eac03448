import type { RunnableCall, ToolRequest, ToolResult } from '../src/workflow-safe/types.js';

interface Entry {
  /** The call that ran the tool. */
  from: string;
  keys: string[];
  fingerprint: string[];
  result: ToolResult;
}

/**
 * A job's cache of idempotent reads of files: a read with the same tool and arguments as an
 * earlier one asks the tool activity to check the files' fingerprint first, and if they are
 * unchanged (by this job or anyone else) the earlier result answers and the tool does not run.
 * This job's writes drop the entries of the files they touch; a write without resources drops all.
 * It lives in the workflow's memory: a new run (continue-as-new) starts empty.
 */
export class ReadCache {
  #entries = new Map<string, Entry>();

  static cacheable(call: RunnableCall): boolean {
    return (
      call.effect === 'read' &&
      call.idempotent &&
      !call.argsRef &&
      call.resources.length > 0 &&
      call.resources.every((k) => k.startsWith('file:'))
    );
  }

  #key = (call: RunnableCall) => `${call.name}\u0000${JSON.stringify(call.args)}`;

  /** What the tool activity is told about caching this call (nothing when it cannot be cached). */
  ask(call: RunnableCall): { request?: ToolRequest['cache']; entry?: Entry } {
    if (!ReadCache.cacheable(call)) return {};
    const entry = this.#entries.get(this.#key(call));
    return {
      request: {
        keys: call.resources,
        ...(entry ? { ifUnchanged: { from: entry.from, fingerprint: entry.fingerprint } } : {}),
      },
      ...(entry ? { entry } : {}),
    };
  }

  /** The result the model gets: the earlier one on a hit; remembered when the read can be cached. */
  settle(call: RunnableCall, result: ToolResult, entry: Entry | undefined): ToolResult {
    if (result.cachedFrom && entry)
      return {
        ...entry.result,
        callId: call.id,
        startedAt: result.startedAt,
        endedAt: result.endedAt,
        cachedFrom: entry.from,
      };
    const key = this.#key(call);
    if (result.fingerprint && !result.isError && ReadCache.cacheable(call))
      this.#entries.set(key, { from: call.id, keys: call.resources, fingerprint: result.fingerprint, result });
    else this.#entries.delete(key);
    return result;
  }

  /** A write of this job: entries of the files it touches are dropped (all of them for a barrier). */
  invalidate(call: RunnableCall): void {
    if (!call.resources.length) return this.#entries.clear();
    for (const [k, e] of this.#entries) if (e.keys.some((key) => call.resources.includes(key))) this.#entries.delete(k);
  }
}
