import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { workerSettingsFromEnv } from '../config.js';

let installed = false;

/** Installs the Temporal runtime once; the SDK and its core log at `level` (DAGENT_LOG_LEVEL overrides). */
export function installRuntime(level: LogLevel = 'WARN'): void {
  if (installed) return;
  installed = true;
  const chosen = workerSettingsFromEnv().logLevel ?? level;
  Runtime.install({
    logger: new DefaultLogger(chosen),
    telemetryOptions: { logging: { filter: { core: chosen, other: chosen } } },
  });
}
