import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';

let installed = false;

/** Installs the Temporal runtime once, logging at `level` (DAGENT_LOG_LEVEL overrides). */
export function installRuntime(level: LogLevel = 'WARN'): void {
  if (installed) return;
  installed = true;
  Runtime.install({ logger: new DefaultLogger((process.env.DAGENT_LOG_LEVEL as LogLevel | undefined) ?? level) });
}
