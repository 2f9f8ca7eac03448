import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { devServerSearchAttributeArgs } from './search-attributes.js';

export interface DevServerOptions {
  cliPath: string;
  port: number;
  uiPort?: number;
  /** SQLite file; in-memory when absent. */
  dbFile?: string;
  /** Append server output here instead of inheriting stdio. */
  logFile?: string;
  /** Keep running after this process exits. */
  detached?: boolean;
  namespace?: string;
  /** Lift the single-shard limits (see TUNED_DYNAMIC_CONFIG). Default true. */
  tuned?: boolean;
}

/**
 * The dev server runs one history shard, and each of a shard's task queues hands out at most 20
 * tasks a second by default: every activity, signal and timer then waits up to 50 ms. A production
 * cluster spreads that over many shards; one machine needs the limit lifted. Eager activity
 * execution lets a worker start an activity in the reply to the workflow task that scheduled it.
 */
export const TUNED_DYNAMIC_CONFIG: Record<string, string> = {
  'history.transferProcessorMaxPollRPS': '1000',
  'history.timerProcessorMaxPollRPS': '1000',
  'history.visibilityProcessorMaxPollRPS': '1000',
  'history.outboundProcessorMaxPollRPS': '1000',
  'system.enableActivityEagerExecution': 'true',
};

export function devServerArgs(o: DevServerOptions): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(o.port),
    ...(o.uiPort ? ['--ui-port', String(o.uiPort)] : ['--headless']),
    ...(o.dbFile ? ['--db-filename', o.dbFile] : []),
    ...(o.namespace && o.namespace !== 'default' ? ['--namespace', o.namespace] : []),
    '--log-level',
    'warn',
    ...devServerSearchAttributeArgs(),
    ...(o.tuned === false
      ? []
      : Object.entries(TUNED_DYNAMIC_CONFIG).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${v}`])),
  ];
}

/** Starts `temporal server start-dev`. */
export function spawnDevServer(o: DevServerOptions): ChildProcess {
  if (o.dbFile) mkdirSync(path.dirname(o.dbFile), { recursive: true });
  let stdio: 'inherit' | ['ignore', number, number] = 'inherit';
  if (o.logFile) {
    mkdirSync(path.dirname(o.logFile), { recursive: true });
    const fd = openSync(o.logFile, 'a');
    stdio = ['ignore', fd, fd];
  }
  const child = spawn(o.cliPath, devServerArgs(o), { stdio, detached: o.detached ?? false });
  if (o.detached) child.unref();
  return child;
}

/** Can a Temporal frontend be reached at `address` right now? */
export async function isServerUp(address: string): Promise<boolean> {
  try {
    const conn = await Connection.connect({ address, connectTimeout: 1_000 });
    try {
      await conn.healthService.check({});
      return true;
    } finally {
      await conn.close();
    }
  } catch {
    return false;
  }
}

/** Waits until the server at `address` answers, or fails saying where to look. */
export async function waitForServer(
  address: string,
  timeoutMs: number,
  child?: ChildProcess,
  logFile?: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) {
      throw new Error(
        `The Temporal dev server exited with code ${child.exitCode} before accepting connections${logFile ? `; see ${logFile}` : ''}.`,
      );
    }
    if (await isServerUp(address)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `The Temporal dev server at ${address} did not answer within ${timeoutMs / 1000} s${logFile ? `; see ${logFile}` : ''}.`,
  );
}
