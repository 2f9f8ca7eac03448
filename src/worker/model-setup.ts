import path from 'node:path';
import { modelConfigFromEnv, workerSettingsFromEnv, type ModelConfig } from '../config.js';
import { DEMO_DIR } from '../paths.js';
import { loadScenario } from '../scripted-model/scenario.js';
import { startScriptedModel } from '../scripted-model/server.js';

export const DEMO_SCENARIO = path.join(DEMO_DIR, 'scenario.json');

export interface ResolvedModel {
  config: ModelConfig;
  /** True when the built-in scripted model plays a recorded scenario (no real model). */
  offline: boolean;
  close(): Promise<void>;
}

/**
 * The model the worker talks to: the configured endpoint, or — with none configured, or when
 * `forceOffline` — the built-in scripted model playing the demo scenario on a loopback port.
 */
export async function resolveModel(opts: {
  forceOffline?: boolean;
  scenarioFile?: string;
  log: (l: string) => void;
}): Promise<ResolvedModel> {
  const configured = modelConfigFromEnv();
  if (configured && !opts.forceOffline) return { config: configured, offline: false, close: async () => {} };
  const settings = workerSettingsFromEnv();
  const scenario = await loadScenario(opts.scenarioFile ?? settings.scenarioFile ?? DEMO_SCENARIO);
  const server = await startScriptedModel({
    scenario,
    ...(settings.scriptedLedger ? { ledgerFile: settings.scriptedLedger } : {}),
  });
  if (!opts.forceOffline) {
    opts.log('No model configured (set OPENAI_BASE_URL / OPENAI_API_KEY / DAGENT_MODEL for a real one).');
  }
  opts.log(
    `Using the offline demo model: a scripted OpenAI-compatible server playing scenario '${scenario.name}' at ${server.url}.`,
  );
  return {
    config: { baseURL: server.url, apiKey: 'offline-demo', model: `scripted:${scenario.name}`, timeoutMs: 30_000 },
    offline: true,
    close: () => server.close(),
  };
}
