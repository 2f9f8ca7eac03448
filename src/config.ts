import os from 'node:os';
import path from 'node:path';
import { WORKSPACE_ID, WORKSPACE_ID_RULE } from './workflow-safe/workspace-queue.js';
import { DEFAULT_PRICES, type PriceTable } from './llm/prices.js';
import { defaultPolicy, loadPolicyFile, type Policy } from './policy/index.js';

// Every setting read from the environment, read and checked here and nowhere else: a typo is a
// clear error naming the variable, never a NaN deep inside a job.

/** Where a model lives. Lives in the worker only: never in workflow or activity inputs. */
export interface ModelConfig {
  baseURL: string;
  apiKey: string;
  model: string;
  /** Per-request time limit inside one model-activity attempt (streamed: until the first piece). */
  timeoutMs: number;
  /** Ask for a streamed reply (default true): watchers see the text as it is written. */
  stream?: boolean;
  /** A streamed reply that sends nothing new for this long is dropped and asked again (default 30 s). */
  stallMs?: number;
}

export interface TemporalConfig {
  /** An existing server; when absent the embedded dev server is used. */
  address?: string;
  namespace: string;
  taskQueue: string;
  /**
   * Long-lived workers serve the task queue, managed outside this CLI (DAGENT_EXTERNAL_WORKERS=1):
   * attached runs then start no worker of their own.
   */
  externalWorkers: boolean;
}

export type Env = Record<string, string | undefined>;

/** A setting that cannot be used as given. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

function wholeNumber(env: Env, name: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got '${raw}'.`);
  }
  return n;
}

function flag(env: Env, name: string, fallback = false): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (raw === '0' || raw === 'false' || raw === 'no') return false;
  if (raw === '1' || raw === 'true' || raw === 'yes') return true;
  throw new ConfigError(`${name} must be 1/true/yes or 0/false/no, got '${env[name]}'.`);
}

function url(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL such as http://localhost:8000/v1, got '${raw}'.`);
  }
  return raw;
}

/** The configured model endpoint, or null when none is configured (the offline demo model then plays). */
export function modelConfigFromEnv(env: Env = process.env): ModelConfig | null {
  if (!env.OPENAI_BASE_URL && !env.OPENAI_API_KEY) return null;
  return {
    baseURL: url(env, 'OPENAI_BASE_URL', 'https://api.openai.com/v1'),
    apiKey: env.OPENAI_API_KEY || 'unused',
    model: env.DAGENT_MODEL || 'gpt-4o-mini',
    timeoutMs: wholeNumber(env, 'DAGENT_MODEL_TIMEOUT_MS', 90_000, 100),
    stream: flag(env, 'DAGENT_MODEL_STREAM', true),
    stallMs: wholeNumber(env, 'DAGENT_MODEL_STALL_MS', 30_000, 100),
  };
}

export function temporalConfigFromEnv(env: Env = process.env): TemporalConfig {
  return {
    ...(env.TEMPORAL_ADDRESS ? { address: env.TEMPORAL_ADDRESS } : {}),
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.DAGENT_TASK_QUEUE || 'dagent',
    externalWorkers: flag(env, 'DAGENT_EXTERNAL_WORKERS'),
  };
}

/** What a worker started by this CLI reads besides the model and Temporal settings. */
export function workerSettingsFromEnv(env: Env = process.env) {
  const level = env.DAGENT_LOG_LEVEL?.toUpperCase();
  if (level !== undefined && level !== '' && !(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError(`DAGENT_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${env.DAGENT_LOG_LEVEL}'.`);
  }
  return {
    /** Plugin modules whose exported tools join the built-ins (DAGENT_PLUGINS, comma-separated). */
    plugins: (env.DAGENT_PLUGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    /** A prebuilt workflow bundle (the test runner's). */
    workflowBundle: env.DAGENT_WORKFLOW_BUNDLE || undefined,
    /** The scenario the offline model plays. */
    scenarioFile: env.DAGENT_SCENARIO || undefined,
    /** Where the offline model records each request (tests). */
    scriptedLedger: env.DAGENT_SCRIPTED_LEDGER || undefined,
    logLevel: (level || undefined) as LogLevelName | undefined,
    /** The policy file every call is decided by (DAGENT_POLICY); the built-in policy when unset. */
    policyFile: env.DAGENT_POLICY || undefined,
    /** MCP servers whose tools workers add (DAGENT_MCP: a YAML or JSON file). */
    mcpFile: env.DAGENT_MCP || undefined,
    /** Where the worker serves Prometheus metrics (DAGENT_METRICS, host:port). */
    metricsAddress: bindAddress(env, 'DAGENT_METRICS'),
    /** Where the worker's trace spans go (DAGENT_TRACING). */
    tracing: tracingMode(env),
    /** Workspaces this host has, `id=folder` (DAGENT_WORKSPACES, comma-separated; `--workspace` adds more). */
    workspaces: workspaceList(env.DAGENT_WORKSPACES ?? '', 'DAGENT_WORKSPACES'),
  };
}

/** `id=folder` pairs (comma-separated), checked: valid ids, each once, absolute or relative folders. */
export function workspaceList(text: string, source: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = item.indexOf('=');
    const id = item.slice(0, eq).trim();
    const dir = item.slice(eq + 1).trim();
    if (eq < 1 || !dir) throw new ConfigError(`${source}: '${item}' is not id=folder.`);
    if (!WORKSPACE_ID.test(id))
      throw new ConfigError(`${source}: workspace id '${id}' is invalid: use ${WORKSPACE_ID_RULE}.`);
    if (out[id]) throw new ConfigError(`${source}: workspace '${id}' is declared twice.`);
    out[id] = path.resolve(dir);
  }
  return out;
}

function tracingMode(env: Env): 'otlp' | 'console' | undefined {
  const raw = env.DAGENT_TRACING?.trim().toLowerCase();
  if (!raw) return undefined;
  if (raw === 'otlp' || raw === 'console') return raw;
  throw new ConfigError(`DAGENT_TRACING must be otlp or console, got '${env.DAGENT_TRACING}'.`);
}

/** A host:port to listen on (an IPv6 host in brackets), or undefined when unset. */
function bindAddress(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535)
    throw new ConfigError(`${name} must be host:port to listen on, such as 127.0.0.1:9464, got '${raw}'.`);
  return raw;
}

/** Model prices (USD per million tokens) for cost budgets: DAGENT_PRICES (JSON) over the built-in table. */
export function pricesFromEnv(env: Env = process.env): PriceTable {
  if (!env.DAGENT_PRICES) return DEFAULT_PRICES;
  let table: unknown;
  try {
    table = JSON.parse(env.DAGENT_PRICES);
  } catch {
    table = null;
  }
  const ok =
    table !== null &&
    typeof table === 'object' &&
    !Array.isArray(table) &&
    Object.values(table).every(
      (p) =>
        p !== null &&
        typeof p === 'object' &&
        typeof (p as Record<string, unknown>).input === 'number' &&
        typeof (p as Record<string, unknown>).output === 'number',
    );
  if (!ok)
    throw new ConfigError(
      'DAGENT_PRICES must be JSON like {"my-model": {"input": 0.5, "output": 1.5}} (USD per million tokens).',
    );
  return { ...DEFAULT_PRICES, ...(table as PriceTable) };
}

/** The policy of workers this CLI starts: DAGENT_POLICY's file, or the built-in one. Throws PolicyError. */
export function policyFromEnv(env: Env = process.env): Policy {
  const file = workerSettingsFromEnv(env).policyFile;
  return file ? loadPolicyFile(path.resolve(file)) : defaultPolicy();
}

/** The data folder: SQLite file of the embedded server, pid and log files. */
export function dataDir(env: Env = process.env): string {
  return path.resolve(env.DAGENT_HOME || path.join(process.cwd(), '.dagent'));
}

/** The content store's folder (long texts kept outside history). */
export function contentDir(env: Env = process.env): string {
  return path.resolve(env.DAGENT_CONTENT_DIR || path.join(dataDir(env), 'content'));
}

/** The PostgreSQL database that holds the content store (DAGENT_CONTENT_URL), when it is not a folder. */
export function contentUrl(env: Env = process.env): string | undefined {
  const url = env.DAGENT_CONTENT_URL?.trim();
  if (!url) return undefined;
  if (!/^postgres(ql)?:\/\/[^/\s]+\/\w+/.test(url))
    throw new ConfigError(
      `DAGENT_CONTENT_URL must be a PostgreSQL URL like postgres://user@host:5432/dbname, got '${url}'.`,
    );
  return url;
}

/** Per-user cache, shared by every clone (the built Temporal CLI and workflow bundles live here). */
export function cacheDir(env: Env = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'durable-agent');
}

export const embeddedPorts = (env: Env = process.env) => ({
  port: wholeNumber(env, 'DAGENT_TEMPORAL_PORT', 7233, 1, 65535),
  uiPort: wholeNumber(env, 'DAGENT_UI_PORT', 8233, 1, 65535),
});

/** Reads every setting once, so a bad value is refused before a command does anything. */
export function checkEnv(env: Env = process.env): void {
  modelConfigFromEnv(env);
  temporalConfigFromEnv(env);
  workerSettingsFromEnv(env);
  policyFromEnv(env);
  pricesFromEnv(env);
  embeddedPorts(env);
  contentUrl(env);
}
