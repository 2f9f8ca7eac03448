import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { fileResource, resolveInWorkspace } from '../../src/tools/workspace.js';

export interface WriteRecord {
  jobId: string;
  path: string;
  start: number;
  end: number;
  token: number | undefined;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new Error('cancelled'));
      },
      { once: true },
    );
  });

/** Write tools for lock tests: each records when it ran and with which fencing token. */
export function lockTools(log: WriteRecord[], delayMs = 100, aborted: string[] = []) {
  const record = async (
    path: string,
    ctx: { workspace: string; jobId: string; fencingTokens: Record<string, number> },
    start: number,
  ) => {
    const key = await fileResource(ctx.workspace, path);
    log.push({ jobId: ctx.jobId, path, start, end: Date.now(), token: ctx.fencingTokens[key] });
  };
  const appendSlow = defineTool({
    name: 'append_slow',
    description: 'Read a file, wait, write it back with one more line (loses updates unless locked).',
    input: z.object({ path: z.string(), line: z.string() }),
    effect: 'write',
    resources: async ({ path }, ws) => [await fileResource(ws, path)],
    execute: async ({ path, line }, ctx) => {
      const start = Date.now();
      const real = await resolveInWorkspace(ctx.workspace, path);
      const before = await readFile(real, 'utf8').catch(() => '');
      await sleep(delayMs);
      await writeFile(real, `${before}${line}\n`);
      await record(path, ctx, start);
      return `appended ${line}`;
    },
  });
  const slowWrite = defineTool({
    name: 'slow_write',
    description: 'Write a whole file slowly.',
    input: z.object({ path: z.string(), content: z.string() }),
    effect: 'write',
    idempotent: true,
    resources: async ({ path }, ws) => [await fileResource(ws, path)],
    execute: async ({ path, content }, ctx) => {
      const start = Date.now();
      await sleep(delayMs);
      await writeFile(await resolveInWorkspace(ctx.workspace, path), content);
      await record(path, ctx, start);
      return `wrote ${path}`;
    },
  });
  const hold = defineTool({
    name: 'hold',
    description: 'Hold a file for a long time.',
    input: z.object({ path: z.string(), ms: z.number() }),
    effect: 'write',
    resources: async ({ path }, ws) => [await fileResource(ws, path)],
    timeoutMs: 120_000,
    execute: async ({ ms }, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.push(ctx.callId), { once: true });
      await sleep(ms, ctx.signal);
      return 'held';
    },
  });
  return [appendSlow, slowWrite, hold];
}
