import { InvalidArgumentError, Option } from 'commander';
import { WORKSPACE_ID, WORKSPACE_ID_RULE } from '../../workflow-safe/workspace-queue.js';
import { TOOL_FORMATS } from '../../workflow-safe/types.js';

// Option parsers shared by the commands: each refuses a bad value with a sentence saying why.

const UNITS: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 };

/** "30m", "12h", "7d" → milliseconds. */
export function parseDuration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(s.trim());
  if (!m) throw new InvalidArgumentError(`Give a duration like 30s, 30m, 12h or 7d.`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

export function positiveInt(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('Give a whole number of at least 1.');
  return n;
}

export function workspaceId(s: string): string {
  if (!WORKSPACE_ID.test(s)) throw new InvalidArgumentError(`Give ${WORKSPACE_ID_RULE}.`);
  return s;
}

export function portNumber(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s.trim()) || n < 1 || n > 65535) throw new InvalidArgumentError('Give a port from 1 to 65535.');
  return n;
}

/** A positive number (e.g. dollars). */
export function positiveNumber(s: string): number {
  const n = Number(s);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`'${s}' is not a positive number.`);
  return n;
}

export const commaList = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

export const jsonOption = () => new Option('--json', 'print JSON on stdout (notes stay on stderr)').default(false);
export const formatOption = () =>
  new Option('-f, --format <format>', 'how the model calls tools').choices(TOOL_FORMATS as string[]);
export const limitOption = (n: number) =>
  new Option('--limit <n>', 'at most this many jobs').argParser(positiveInt).default(n);
