import type { Temporal } from '../temporal/connect.js';
import { createAgentWorker } from '../worker/create-worker.js';
import { resolveModel } from '../worker/model-setup.js';

export type LocalWorker = Awaited<ReturnType<typeof startLocalWorker>>;

/** A worker inside the CLI process, for `run` when no worker is up. */
export async function startLocalWorker(t: Temporal, opts: { taskQueue: string; forceOffline?: boolean; log: (l: string) => void }) {
  const model = await resolveModel({ log: opts.log, ...(opts.forceOffline ? { forceOffline: true } : {}) });
  const { worker, connection } = await createAgentWorker({ address: t.address, namespace: t.config.namespace, taskQueue: opts.taskQueue, model: model.config, logLevel: 'ERROR' });
  const running = worker.run();
  return {
    offline: model.offline,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await model.close();
    },
  };
}
