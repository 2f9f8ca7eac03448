import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { workerSettingsFromEnv } from '../config.js';

let installed = false;

/**
 * Installs the Temporal runtime once; the SDK and its core log at `level` (DAGENT_LOG_LEVEL
 * overrides). With `metricsAddress` (DAGENT_METRICS) the worker serves Prometheus metrics at
 * http://ADDRESS/metrics: the SDK's own (`temporal_…`) and durable-agent's (`dagent_…`).
 */
export function installRuntime(
  level: LogLevel = 'WARN',
  metricsAddress = workerSettingsFromEnv().metricsAddress,
): void {
  if (installed) return;
  installed = true;
  const chosen = workerSettingsFromEnv().logLevel ?? level;
  Runtime.install({
    logger: new DefaultLogger(chosen),
    telemetryOptions: {
      logging: { filter: { core: chosen, other: chosen } },
      ...(metricsAddress
        ? { metrics: { prometheus: { bindAddress: metricsAddress, countersTotalSuffix: true } } }
        : {}),
    },
  });
}
