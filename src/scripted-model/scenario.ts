import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { formatZodIssues } from '../tools/registry.js';

/** One failed attempt the server gives before the step's real reply. */
export const faultSchema = z.object({
  status: z.number().int().min(100).max(599).optional().describe('HTTP status to answer with'),
  retryAfter: z.number().min(0).optional().describe('seconds, sent as retry-after'),
  retryAfterMs: z.number().min(0).optional().describe('sent as retry-after-ms'),
  shouldRetry: z.boolean().optional().describe("sent as OpenAI's x-should-retry header"),
  body: z
    .string()
    .optional()
    .describe('raw body to send instead of the error JSON (e.g. malformed JSON with status 200)'),
  delayMs: z.number().min(0).optional().describe('wait this long before answering (a hang past the client timeout)'),
  message: z.string().optional(),
  code: z.string().optional().describe("the error's code (e.g. insufficient_quota, context_length_exceeded)"),
  streamCut: z
    .boolean()
    .optional()
    .describe("stream half of the step's reply, then close the connection (a reply broken off)"),
  streamStallMs: z
    .number()
    .min(0)
    .optional()
    .describe("stream half of the step's reply, then send nothing for this long (a stalled stream)"),
});

export const scriptedCallSchema = z.object({
  name: z.string(),
  /** An object is sent as its JSON; a string is sent as is (so broken JSON can be scripted). */
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default({}),
  id: z.string().optional(),
});

export const replySchema = z.object({
  content: z.string().nullable().default(null),
  toolCalls: z.array(scriptedCallSchema).default([]),
  finishReason: z.string().optional(),
});

export const stepSchema = z.object({
  faults: z.array(faultSchema).default([]),
  delayMs: z.number().min(0).default(0),
  chunkDelayMs: z.number().min(0).default(0).describe('streamed: wait this long between pieces'),
  reply: replySchema,
});

export const scenarioSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  task: z.string().optional().describe('the task this scenario was recorded for'),
  steps: z.array(stepSchema).min(1),
});

export type Fault = z.output<typeof faultSchema>;
export type ScriptedReply = z.output<typeof replySchema>;
export type ScenarioStep = z.output<typeof stepSchema>;
export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;

export function parseScenario(data: unknown, where = 'scenario'): Scenario {
  const parsed = scenarioSchema.safeParse(data);
  if (!parsed.success) throw new Error(`Invalid ${where}: ${formatZodIssues(parsed.error)}`);
  return parsed.data;
}

export async function loadScenario(file: string): Promise<Scenario> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`Cannot read scenario file ${file}: ${(err as Error).message}`, { cause: err });
  }
  return parseScenario(data, `scenario file ${file}`);
}
