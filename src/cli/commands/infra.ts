import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import type { Command } from 'commander';
import { embeddedPorts, temporalConfigFromEnv, workerSettingsFromEnv, workspaceList } from '../../config.js';
import { workspaceQueue } from '../../workflow-safe/workspace-queue.js';
import { CLI_BIN } from '../../paths.js';
import { connectTemporal, embeddedFiles, ensureEmbeddedServer, hasRecentPoller } from '../../temporal/connect.js';
import { isServerUp, spawnDevServer } from '../../temporal/dev-server.js';
import { locateTemporalCli } from '../../temporal/locate-cli.js';
import { clusterBinaries } from '../../temporal/cluster.js';
import { livePid, writePid } from '../../temporal/pid-file.js';
import { handler } from '../plumbing/command.js';
import { note } from '../plumbing/output.js';
import { UsageError } from '../plumbing/usage-error.js';
import { startCommandWorker, upWorkerAbout } from '../plumbing/worker.js';
import { checkWorkspaces } from '../../worker/create-worker.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Is `pid` a process we started (by its command line)? A pid file can be stale, or forged. */
function isOurs(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
  } catch {
    return process.platform !== 'linux'; // no /proc to ask: trust the pid file
  }
}

async function stop(pidFile: string, what: string, marker: string): Promise<void> {
  const pid = livePid(pidFile);
  if (!pid) {
    note(`${what}: not running.`);
    return;
  }
  if (!isOurs(pid, marker)) {
    rmSync(pidFile, { force: true });
    note(`${what}: pid ${pid} in ${pidFile} is not a process dagent started; left it alone and removed the pid file.`);
    return;
  }
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && livePid(pidFile); i++) await sleep(100);
  if (livePid(pidFile)) process.kill(pid, 'SIGKILL');
  rmSync(pidFile, { force: true });
  note(`${what}: stopped (pid ${pid}).`);
}

/** `dagent setup|server|worker|up|down`: the Temporal server and workers. */
export function registerInfra(program: Command): void {
  program
    .command('setup')
    .summary('find or build the Temporal CLI (the embedded dev server)')
    .option('--cluster', 'also build temporal-server and its SQL tool (for `dagent cluster`)')
    .action(
      handler(async (o: { cluster?: boolean }) => {
        note(`Temporal CLI: ${await locateTemporalCli(note)}`);
        if (o.cluster) note(`temporal-server: ${(await clusterBinaries(note)).server}`);
        return 0;
      }),
    );

  program
    .command('server')
    .summary('the embedded Temporal dev server, in the foreground')
    .action(
      handler(async () => {
        if (temporalConfigFromEnv().address)
          throw new UsageError('TEMPORAL_ADDRESS is set: this CLI uses that server; unset it to run the embedded one.');
        const { port, uiPort } = embeddedPorts();
        if (await isServerUp(`127.0.0.1:${port}`))
          throw new UsageError(
            `A Temporal server already answers on 127.0.0.1:${port} (stop it with \`dagent down\`).`,
          );
        const files = embeddedFiles();
        const cliPath = await locateTemporalCli(note);
        note(
          `Temporal dev server on 127.0.0.1:${port}, Web UI http://localhost:${uiPort}, data ${files.db}. Ctrl-C stops it.`,
        );
        const child = spawnDevServer({ cliPath, port, uiPort, dbFile: files.db });
        // Stopping this command stops the server, whoever sends the signal.
        for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill(sig));
        return new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 0)));
      }),
    );

  program
    .command('worker')
    .summary('a worker in the foreground (Ctrl-C or SIGTERM shuts it down cleanly)')
    .option(
      '--workspace <id=dir>',
      'a workspace this host has: jobs run with `--workspace-id ID` run their tools here, in DIR (repeatable; also DAGENT_WORKSPACES)',
      (v: string, acc: string[] = []) => [...acc, v],
    )
    .action(
      handler(async (o: { workspace?: string[] }) => {
        const workspaces = { ...workerSettingsFromEnv().workspaces };
        for (const [id, dir] of Object.entries(workspaceList((o.workspace ?? []).join(','), '--workspace'))) {
          if (workspaces[id])
            throw new UsageError(`Workspace '${id}' is declared twice (--workspace and DAGENT_WORKSPACES).`);
          workspaces[id] = dir;
        }
        // Before connecting: a folder that is not here is the mistake to report, not the server.
        await checkWorkspaces(workspaces).catch((err: Error) => {
          throw new UsageError(err.message);
        });
        const t = await connectTemporal({ start: true, log: note });
        try {
          const worker = await startCommandWorker(t, { taskQueue: t.config.taskQueue, logLevel: 'INFO', workspaces });
          note(`Worker polling task queue '${t.config.taskQueue}' on ${t.address} (model ${worker.model}).`);
          for (const [id, dir] of Object.entries(workspaces))
            note(`  workspace ${id} = ${dir}: its tool calls on '${workspaceQueue(t.config.taskQueue, id)}'.`);
          await worker.done;
        } finally {
          await t.close();
        }
        return 0;
      }),
    );

  program
    .command('up')
    .summary('the embedded server (unless TEMPORAL_ADDRESS) and a worker, in the background')
    .action(
      handler(async () => {
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
        const t = await connectTemporal({ start: false, log: note });
        try {
          const fd = openSync(files.workerLog, 'a');
          const child = spawn(process.execPath, [CLI_BIN, 'worker'], {
            detached: true,
            stdio: ['ignore', fd, fd],
            env: process.env,
          });
          child.unref();
          writePid(files.workerPid, child.pid!, upWorkerAbout(t));
          for (let i = 0; i < 240; i++) {
            if (child.exitCode !== null)
              throw new Error(`The worker exited with code ${child.exitCode}; see ${files.workerLog}.`);
            if (await hasRecentPoller(t, 60_000, `${child.pid}@`)) {
              note(`Worker started (pid ${child.pid}, log ${files.workerLog}).`);
              return 0;
            }
            await sleep(500);
          }
          throw new Error(`The worker did not start polling within 2 minutes; see ${files.workerLog}.`);
        } finally {
          await t.close();
        }
      }),
    );

  program
    .command('down')
    .summary('stop what `dagent up` started')
    .action(
      handler(async () => {
        const files = embeddedFiles();
        await stop(files.workerPid, 'Worker', 'dagent');
        await stop(files.serverPid, 'Temporal dev server', 'start-dev');
        return 0;
      }),
    );
}
