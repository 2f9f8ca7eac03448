import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { fileResource, resolveInWorkspace } from '../../src/tools/workspace.js';

export interface Interval {
  name: string;
  key: string;
  start: number;
  end: number;
  /** The whole group was running at once while this call waited: proof of overlap, not a timing guess. */
  met: boolean;
}

/**
 * A latch: each arrival waits until `group` calls are inside at once (then all go on, and later
 * arrivals pass at once), or gives up after `timeoutMs` and says so. Calls that were serialised can
 * never meet: each waits out its timeout alone.
 */
export class Latch {
  #inside = 0;
  #open = false;
  #waiters: Array<(met: boolean) => void> = [];
  /** The most calls inside at once. */
  maxInside = 0;

  constructor(
    private readonly group: number,
    private readonly timeoutMs = 10_000,
  ) {}

  async arrive(): Promise<boolean> {
    this.#inside++;
    this.maxInside = Math.max(this.maxInside, this.#inside);
    if (this.#inside >= this.group) {
      this.#open = true;
      for (const w of this.#waiters.splice(0)) w(true);
    }
    if (this.#open) return true;
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      setTimeout(() => resolve(false), this.timeoutMs);
    });
  }

  leave(): void {
    this.#inside--;
  }
}

/** Reads that meet: each `slow_read` waits at a latch of `group` (1: no wait), and records when it ran. */
export function probeTools(log: Interval[], group = 2) {
  const latch = new Latch(group);
  const slowRead = defineTool({
    name: 'slow_read',
    description: 'Read a key slowly (test tool).',
    input: z.object({ key: z.string() }),
    effect: 'read',
    resources: async ({ key }, ws) => [await fileResource(ws, key)],
    execute: async ({ key }) => {
      const start = Date.now();
      const met = await latch.arrive();
      latch.leave();
      log.push({ name: 'slow_read', key, start, end: Date.now(), met });
      return `value of ${key}`;
    },
  });
  return [slowRead];
}

export interface MeetRecord {
  path: string;
  /** Order of events across all calls: when it entered and when it left. */
  entered: number;
  left: number;
  met: boolean;
  token: number | undefined;
}

/**
 * Writes that meet: `meet_write` waits at a latch of `group` before writing, and records the order
 * it entered and left in, and its fencing token.
 */
export function meetTools(log: MeetRecord[], group: number, timeoutMs = 10_000) {
  const latch = new Latch(group, timeoutMs);
  let seq = 0;
  const meetWrite = defineTool({
    name: 'meet_write',
    description: 'Write a file after meeting the others (test tool).',
    input: z.object({ path: z.string(), content: z.string() }),
    effect: 'write',
    idempotent: true,
    resources: async ({ path }, ws) => [await fileResource(ws, path)],
    execute: async ({ path, content }, ctx) => {
      const entered = ++seq;
      const met = await latch.arrive();
      await writeFile(await resolveInWorkspace(ctx.workspace, path), content);
      latch.leave();
      const key = await fileResource(ctx.workspace, path);
      log.push({ path, entered, left: ++seq, met, token: ctx.fencingTokens[key] });
      return `wrote ${path}`;
    },
  });
  return { tools: [meetWrite], latch };
}
