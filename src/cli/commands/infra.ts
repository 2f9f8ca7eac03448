import { spawn } from 'node:child_process';
import { mkdirSync, openSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { embeddedPorts, temporalConfigFromEnv } from '../../config.js';
import { connectTemporal, embeddedFiles, ensureEmbeddedServer, hasRecentPoller } from '../../temporal/connect.js';
import { isServerUp, spawnDevServer } from '../../temporal/dev-server.js';
import { locateTemporalCli } from '../../temporal/locate-cli.js';
import { livePid, writePid } from '../../temporal/pid-file.js';
import { createAgentWorker } from '../../worker/create-worker.js';
import { resolveModel } from '../../worker/model-setup.js';
import { loadPluginTools } from '../../worker/plugins.js';
import { builtinTools } from '../../tools/builtins/index.js';
import { note } from '../output.js';
import { UsageError } from '../usage-error.js';

const BIN = fileURLToPath(new URL('../../../bin/dagent.mjs', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `dagent setup`: find or build the Temporal CLI. */
export async function setupCommand(): Promise<number> {
  const p = await locateTemporalCli(note);
  note(`Temporal CLI: ${p}`);
  return 0;
}

/** `dagent server`: the embedded dev server in the foreground. */
export async function serverCommand(): Promise<number> {
  if (temporalConfigFromEnv().address) throw new UsageError('TEMPORAL_ADDRESS is set: this CLI uses that server; unset it to run the embedded one.');
  const { port, uiPort } = embeddedPorts();
  if (await isServerUp(`127.0.0.1:${port}`)) throw new UsageError(`A Temporal server already answers on 127.0.0.1:${port} (stop it with \`dagent down\`).`);
  const files = embeddedFiles();
  const cliPath = await locateTemporalCli(note);
  note(`Temporal dev server on 127.0.0.1:${port}, Web UI http://localhost:${uiPort}, data ${files.db}. Ctrl-C stops it.`);
  const child = spawnDevServer({ cliPath, port, uiPort, dbFile: files.db });
  // Stopping this command stops the server, whoever sends the signal.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill(sig));
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 0)));
}

/** `dagent worker`: a worker in the foreground (Ctrl-C or SIGTERM shuts it down cleanly). */
export async function workerCommand(): Promise<number> {
  const t = await connectTemporal({ start: true, log: note });
  const model = await resolveModel({ log: note });
  const plugins = await loadPluginTools(process.env.DAGENT_PLUGINS);
  const { worker, connection } = await createAgentWorker({
    address: t.address, namespace: t.config.namespace, taskQueue: t.config.taskQueue, model: model.config, logLevel: 'INFO',
    tools: [...builtinTools, ...plugins],
  });
  if (plugins.length) note(`Plugin tools: ${plugins.map((p) => p.name).join(', ')}.`);
  note(`Worker polling task queue '${t.config.taskQueue}' on ${t.address} (model ${model.config.model} at ${model.config.baseURL}).`);
  try {
    await worker.run();
  } finally {
    await connection.close();
    await model.close();
    await t.close();
  }
  return 0;
}

/** `dagent up`: the embedded server (unless TEMPORAL_ADDRESS) and a worker, in the background. */
export async function upCommand(): Promise<number> {
  const files = embeddedFiles();
  mkdirSync(files.dir, { recursive: true });
  if (!temporalConfigFromEnv().address) {
    const { address, uiUrl } = await ensureEmbeddedServer(note);
    note(`Temporal: ${address} (Web UI ${uiUrl})`);
  }
  const running = livePid(files.workerPid);
  if (running) {
    note(`Worker already running (pid ${running}, log ${files.workerLog}).`);
    return 0;
  }
  const fd = openSync(files.workerLog, 'a');
  const child = spawn(process.execPath, [BIN, 'worker'], { detached: true, stdio: ['ignore', fd, fd], env: process.env });
  child.unref();
  writePid(files.workerPid, child.pid!);
  const t = await connectTemporal({ start: false, log: note });
  try {
    for (let i = 0; i < 240; i++) {
      if (child.exitCode !== null) throw new Error(`The worker exited with code ${child.exitCode}; see ${files.workerLog}.`);
      if (await hasRecentPoller(t)) {
        note(`Worker started (pid ${child.pid}, log ${files.workerLog}).`);
        return 0;
      }
      await sleep(500);
    }
    throw new Error(`The worker did not start polling within 2 minutes; see ${files.workerLog}.`);
  } finally {
    await t.close();
  }
}

async function stop(pidFile: string, what: string): Promise<void> {
  const pid = livePid(pidFile);
  if (!pid) {
    note(`${what}: not running.`);
    return;
  }
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && livePid(pidFile); i++) await sleep(100);
  if (livePid(pidFile)) process.kill(pid, 'SIGKILL');
  rmSync(pidFile, { force: true });
  note(`${what}: stopped (pid ${pid}).`);
}

/** `dagent down`: stops what `up` started. */
export async function downCommand(): Promise<number> {
  const files = embeddedFiles();
  await stop(files.workerPid, 'Worker');
  await stop(files.serverPid, 'Temporal dev server');
  return 0;
}
