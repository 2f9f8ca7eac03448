// Runs the parent workflow of ./workflows.ts on a worker that bundles it together with ours.
// Run: TEMPORAL_ADDRESS=127.0.0.1:7233 OPENAI_BASE_URL=… OPENAI_API_KEY=… node --import tsx examples/child-workflow/main.ts
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { createAgentWorker, modelConfigFromEnv } from 'durable-agent';
import type { draftThenReview } from './workflows.js';

const address = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
const taskQueue = process.env.TASK_QUEUE ?? 'my-team';
const workflowsPath = fileURLToPath(new URL('./workflows.ts', import.meta.url));
const worker = await createAgentWorker({ address, taskQueue, model: modelConfigFromEnv()!, workflowsPath });
const running = worker.run();
const client = new Client({ connection: await Connection.connect({ address }) });
const result = await client.workflow.execute<typeof draftThenReview>('draftThenReview', {
  taskQueue,
  workflowId: `draft-review-${Date.now()}`,
  args: [process.cwd()],
});
console.log(JSON.stringify(result));
worker.shutdown();
await running;
await client.connection.close();
