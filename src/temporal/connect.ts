import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { dataDir, embeddedPorts, temporalConfigFromEnv, type TemporalConfig } from '../config.js';
import { isServerUp, spawnDevServer, waitForServer } from './dev-server.js';
import { locateTemporalCli } from './locate-cli.js';
import { writePid } from './pid-file.js';

export interface Temporal {
  client: Client;
  connection: Connection;
  address: string;
  config: TemporalConfig;
  /** The Web UI, when the embedded server runs one. */
  uiUrl?: string;
  close(): Promise<void>;
}

export const embeddedFiles = () => {
  const dir = dataDir();
  return {
    dir,
    db: path.join(dir, 'temporal.db'),
    serverLog: path.join(dir, 'server.log'),
    serverPid: path.join(dir, 'server.pid'),
    workerLog: path.join(dir, 'worker.log'),
    workerPid: path.join(dir, 'worker.pid'),
  };
};

/** Starts the embedded dev server in the background unless it already answers. */
export async function ensureEmbeddedServer(log: (l: string) => void): Promise<{ address: string; uiUrl: string }> {
  const { port, uiPort } = embeddedPorts();
  const address = `127.0.0.1:${port}`;
  const uiUrl = `http://localhost:${uiPort}`;
  if (await isServerUp(address)) return { address, uiUrl };
  const files = embeddedFiles();
  mkdirSync(files.dir, { recursive: true });
  const cliPath = await locateTemporalCli(log);
  log(`Starting the embedded Temporal dev server on ${address} (data: ${files.db}, log: ${files.serverLog})…`);
  const child = spawnDevServer({ cliPath, port, uiPort, dbFile: files.db, logFile: files.serverLog, detached: true });
  writePid(files.serverPid, child.pid!);
  await waitForServer(address, 60_000, child, files.serverLog);
  return { address, uiUrl };
}

/** Connects to TEMPORAL_ADDRESS, or to the embedded server (starting it when `start`). */
export async function connectTemporal(opts: { start: boolean; log: (l: string) => void }): Promise<Temporal> {
  const config = temporalConfigFromEnv();
  let address = config.address;
  let uiUrl: string | undefined;
  if (!address) {
    if (opts.start) ({ address, uiUrl } = await ensureEmbeddedServer(opts.log));
    else {
      address = `127.0.0.1:${embeddedPorts().port}`;
      uiUrl = `http://localhost:${embeddedPorts().uiPort}`;
    }
  }
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout: 5_000 });
  } catch (err) {
    throw new Error(
      `Cannot reach Temporal at ${address}: ${(err as Error).message}\n` +
        (config.address
          ? 'Check TEMPORAL_ADDRESS.'
          : 'Start the embedded server with `dagent up` (or `dagent server`), or set TEMPORAL_ADDRESS.'),
      { cause: err },
    );
  }
  const client = new Client({ connection, namespace: config.namespace });
  return { client, connection, address, config, ...(uiUrl ? { uiUrl } : {}), close: () => connection.close() };
}

/** Has a worker (whose identity starts with `identity`, when given) polled the task queue within `withinMs`? */
export async function hasRecentPoller(t: Temporal, withinMs = 90_000, identity = ''): Promise<boolean> {
  const res = await t.client.workflowService.describeTaskQueue({
    namespace: t.config.namespace,
    taskQueue: { name: t.config.taskQueue },
    taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const cutoff = Date.now() - withinMs;
  return (res.pollers ?? []).some(
    (p) =>
      (p.identity ?? '').startsWith(identity) &&
      p.lastAccessTime?.seconds != null &&
      Number(p.lastAccessTime.seconds) * 1000 > cutoff,
  );
}
