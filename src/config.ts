import os from 'node:os';
import path from 'node:path';

/** Where a model lives. Lives in the worker only: never in workflow or activity inputs. */
export interface ModelConfig {
  baseURL: string;
  apiKey: string;
  model: string;
  /** Per-request time limit inside one model-activity attempt. */
  timeoutMs: number;
}

export interface TemporalConfig {
  /** An existing server; when absent the embedded dev server is used. */
  address?: string;
  namespace: string;
  taskQueue: string;
}

type Env = Record<string, string | undefined>;

export function modelConfigFromEnv(env: Env = process.env): ModelConfig | null {
  if (!env.OPENAI_BASE_URL && !env.OPENAI_API_KEY) return null;
  return {
    baseURL: env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
    apiKey: env.OPENAI_API_KEY || 'unused',
    model: env.DAGENT_MODEL || 'gpt-4o-mini',
    timeoutMs: Number(env.DAGENT_MODEL_TIMEOUT_MS ?? 90_000),
  };
}

export function temporalConfigFromEnv(env: Env = process.env): TemporalConfig {
  return {
    ...(env.TEMPORAL_ADDRESS ? { address: env.TEMPORAL_ADDRESS } : {}),
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: env.DAGENT_TASK_QUEUE ?? 'dagent',
  };
}

/** The data folder: SQLite file of the embedded server, pid and log files. */
export function dataDir(env: Env = process.env): string {
  return path.resolve(env.DAGENT_HOME ?? path.join(process.cwd(), '.dagent'));
}

/** Per-user cache, shared by every clone (the built Temporal CLI lives here). */
export function cacheDir(env: Env = process.env): string {
  return path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'durable-agent');
}

export const embeddedPorts = (env: Env = process.env) => ({
  port: Number(env.DAGENT_TEMPORAL_PORT ?? 7233),
  uiPort: Number(env.DAGENT_UI_PORT ?? 8233),
});
