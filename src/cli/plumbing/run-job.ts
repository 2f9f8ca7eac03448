import { statSync } from 'node:fs';
import path from 'node:path';
import { JobExistsError, startJob } from '../../client/start-job.js';
import { connectTemporal, type Temporal } from '../../temporal/connect.js';
import type { TurnInput } from '../../workflow-safe/types.js';
import { awaitOutcome, reportOutcome, type JobOutcome } from './job-outcome.js';
import { note, out, printJson } from './output.js';
import { followProgress } from './progress.js';
import { UsageError } from './usage-error.js';
import { ensureWorker } from './worker.js';

/** An existing folder, absolute; the current one when not given. */
export function workspaceDir(value: string | undefined): string {
  const dir = path.resolve(value ?? process.cwd());
  const ok = (() => {
    try {
      return statSync(dir).isDirectory();
    } catch {
      return false;
    }
  })();
  if (!ok) throw new UsageError(`--workspace ${dir} is not an existing folder.`);
  return dir;
}

/** Resolves when this process gets SIGINT (Ctrl-C); a second one ends the process at once. */
export function onInterrupt(): { interrupted: Promise<'interrupted'>; dispose(): void } {
  let listener = () => {};
  const interrupted = new Promise<'interrupted'>((resolve) => {
    listener = () => {
      process.once('SIGINT', () => process.exit(130));
      resolve('interrupted');
    };
    process.once('SIGINT', listener);
  });
  // After the job ended, Ctrl-C is an ordinary interrupt again.
  return { interrupted, dispose: () => process.removeListener('SIGINT', listener) };
}

export interface RunJobOptions {
  input: TurnInput;
  jobId: string;
  detach: boolean;
  json: boolean;
  /** Use a worker in this process, with the offline demo model, on this task queue. */
  offlineQueue?: string;
}

/**
 * Starts a job and, unless detached, follows it to the end with a worker of this command's own
 * unless a long-lived one serves the queue. Ctrl-C leaves the job running (it is durable) and
 * says how to follow it. Returns the exit code and the open connection (the caller closes it).
 */
export async function runJob(o: RunJobOptions): Promise<{ code: number; outcome?: JobOutcome; temporal: Temporal }> {
  const t = await connectTemporal({ start: true, log: note });
  const taskQueue = o.offlineQueue ?? t.config.taskQueue;
  const local = await ensureWorker(t, {
    detach: o.detach,
    ...(o.offlineQueue ? { offlineQueue: o.offlineQueue } : {}),
  });
  try {
    let handle;
    try {
      handle = await startJob(t.client, { ...o.input, taskQueue, jobId: o.jobId });
    } catch (err) {
      if (err instanceof JobExistsError)
        throw new UsageError(`${err.message} Choose another --id, or look at it with \`dagent status ${o.jobId}\`.`);
      throw err;
    }
    if (!o.json) note(`Job ${o.jobId} started on ${t.address} (task queue '${taskQueue}').`);
    if (o.detach) {
      if (o.json) printJson({ jobId: o.jobId, status: 'running' });
      else out(o.jobId);
      return { code: 0, temporal: t };
    }
    const outcome = awaitOutcome(handle);
    const interrupt = onInterrupt();
    const ended = Promise.race([outcome, interrupt.interrupted]);
    if (!o.json) await followProgress(handle, ended, out);
    const first = await ended;
    interrupt.dispose();
    if (first === 'interrupted') {
      note(
        `\nInterrupted: job ${o.jobId} is durable and goes on whenever a worker serves task queue '${taskQueue}' (\`dagent up\` starts one).\n` +
          `  follow it: dagent watch ${o.jobId}    its answer: dagent result ${o.jobId}    stop it: dagent cancel ${o.jobId}`,
      );
      if (local) note("Stopping this command's worker: running calls may finish first (Ctrl-C again to stop at once).");
      return { code: 130, temporal: t };
    }
    return { code: reportOutcome(first, o.json, '\n'), outcome: first, temporal: t };
  } finally {
    await local?.stop();
  }
}
