import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { fileResource } from '../../src/tools/workspace.js';

export interface Interval {
  name: string;
  key: string;
  start: number;
  end: number;
}

/** Test tools that record when they ran, so tests can assert overlap and order. */
export function probeTools(log: Interval[], delayMs = 300) {
  const slowRead = defineTool({
    name: 'slow_read',
    description: 'Read a key slowly (test tool).',
    input: z.object({ key: z.string() }),
    effect: 'read',
    resources: async ({ key }, { workspace }) => [await fileResource(workspace, key)],
    execute: async ({ key }) => {
      const start = Date.now();
      await new Promise((r) => setTimeout(r, delayMs));
      log.push({ name: 'slow_read', key, start, end: Date.now() });
      return `value of ${key}`;
    },
  });
  return [slowRead];
}

export const overlaps = (a: Interval, b: Interval) => a.start < b.end && b.start < a.end;
