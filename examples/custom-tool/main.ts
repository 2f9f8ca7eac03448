// A custom tool, a worker that offers it beside the built-ins, and one job that uses it.
// Run: TEMPORAL_ADDRESS=127.0.0.1:7233 OPENAI_BASE_URL=… OPENAI_API_KEY=… node --import tsx examples/custom-tool/main.ts
import { Client, Connection } from '@temporalio/client';
import { z } from 'zod';
import { builtinTools, createAgentWorker, defineTool, modelConfigFromEnv, startJob } from 'durable-agent';

export const wordCount = defineTool({
  name: 'word_count',
  description: 'Count the words of a text.',
  input: z.object({ text: z.string() }),
  effect: 'read',
  execute: ({ text }) => String(text.split(/\s+/).filter(Boolean).length),
});

const address = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
const taskQueue = process.env.TASK_QUEUE ?? 'my-agents';
const worker = await createAgentWorker({
  address,
  taskQueue,
  model: modelConfigFromEnv()!,
  tools: [...builtinTools, wordCount],
});
const running = worker.run();
const client = new Client({ connection: await Connection.connect({ address }) });
const job = await startJob(client, {
  task: 'How many words has "to be or not to be"?',
  workspace: process.cwd(),
  taskQueue,
});
console.log((await job.result()).answer);
worker.shutdown();
await running;
await client.connection.close();
