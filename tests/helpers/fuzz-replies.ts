import { PROTOCOLS } from '../../src/protocols/index.js';
import type { ToolFormat } from '../../src/workflow-safe/types.js';
import { specs } from './protocol-corpus.js';
import { hostileString, prng } from './prng.js';

type Rng = ReturnType<typeof prng>;
type TextFormat = Exclude<ToolFormat, 'native'>;

/** One fuzzed model reply: text content, or (native) a raw chat-completion body. */
export type FuzzReply = { kind: 'text'; content: string; what: string } | { kind: 'raw'; body: string; what: string };

const SAFE_CALLS = [
  { name: 'read_file', args: { path: 'a.txt' } },
  { name: 'list_files', args: { path: '.' } },
  { name: 'calculator', args: { expression: '6*7' } },
  { name: 'write_file', args: { path: 'out/fuzz.txt', content: 'x' } },
  { name: 'search_files', args: { pattern: 'a+' } },
];
const NAMES = [
  'read_file',
  '__proto__',
  'constructor',
  'toString',
  '',
  ' ',
  'read_file\u0000',
  'x'.repeat(300),
  'réad',
  'shell\n',
];

const deep = (n: number, open: string, close: string, leaf: string) => open.repeat(n) + leaf + close.repeat(n);

function valueOf(r: Rng): unknown {
  switch (r.int(9)) {
    case 0:
      return hostileString(r);
    case 1:
      return r.int(2) ? 42 : -1e308;
    case 2:
      return null;
    case 3:
      return [hostileString(r)];
    case 4:
      return { nested: { deeper: hostileString(r) } };
    case 5:
      return 'x'.repeat(r.pick([10, 5_000, 200_000]));
    case 6:
      return true;
    case 7:
      return '\u0000\u001b[2J\u202e';
    default:
      return 'a.txt';
  }
}

function nativeArguments(r: Rng): unknown {
  switch (r.int(12)) {
    case 0:
      return JSON.stringify(r.pick(SAFE_CALLS).args).slice(0, 1 + r.int(20)); // truncated JSON
    case 1:
      return { path: 'a.txt' }; // an object, not a string
    case 2:
      return deep(r.pick([100, 5_000, 100_000]), '[', ']', '1');
    case 3:
      return deep(r.pick([100, 5_000]), '{"a":', '}', '1');
    case 4:
      return 'not json at all';
    case 5:
      return '';
    case 6:
      return null;
    case 7:
      return 12;
    case 8:
      return JSON.stringify({ path: valueOf(r), content: valueOf(r), __proto__: { polluted: true } });
    case 9:
      return JSON.stringify({ path: 'big.txt', content: 'y'.repeat(r.pick([100_000, 1_200_000])) });
    case 10:
      return '{"path": "a.txt"} trailing';
    default:
      return JSON.stringify(r.pick(SAFE_CALLS).args);
  }
}

function nativeCall(r: Rng, i: number): unknown {
  const shape = r.int(10);
  const id = r.pick(['call_0', '', `call_${i}`, 'dup', '\u001b[31mred', 'x'.repeat(500)]);
  if (shape === 0) return null;
  if (shape === 1) return 'a string, not a call';
  if (shape === 2) return { id, type: 'function' };
  if (shape === 3) return { id, type: 'function', function: { name: r.pick(NAMES), arguments: nativeArguments(r) } };
  const call = r.pick(SAFE_CALLS);
  return { id, type: 'function', function: { name: call.name, arguments: nativeArguments(r) } };
}

export function nativeReply(r: Rng, n: number): FuzzReply {
  const count = r.pick([1, 1, 2, 3, 8, 300]);
  let toolCalls: unknown = Array.from({ length: count }, (_, i) => nativeCall(r, i));
  const odd = r.int(12);
  if (odd === 0) toolCalls = { not: 'a list' };
  if (odd === 1) toolCalls = 'call everything';
  // A reply the parser finds nothing to run in is a final answer: keep cases going with a call.
  const message = { role: 'assistant', content: r.int(3) ? null : hostileString(r), tool_calls: toolCalls };
  const body = JSON.stringify({
    id: `fuzz-${n}`,
    object: 'chat.completion',
    created: 0,
    model: 'fuzz',
    choices: [{ index: 0, message, finish_reason: 'tool_calls' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  return { kind: 'raw', body, what: `native: ${count} calls, shape ${odd}` };
}

export function textReply(r: Rng, format: TextFormat): FuzzReply {
  const p = PROTOCOLS[format];
  const parts: string[] = [];
  const count = r.pick([1, 1, 2, 5, 100, 300]);
  for (let i = 0; i < count; i++) {
    const base = r.pick(SAFE_CALLS);
    const args = r.int(3) ? { ...base.args } : { ...base.args, content: hostileString(r, 20) };
    let text = p.render({ name: r.int(8) ? base.name : r.pick(NAMES), args }, specs);
    switch (r.int(8)) {
      case 0:
        text = text.slice(0, r.int(text.length)); // cut anywhere
        break;
      case 1:
        text = text.replace(/\n/g, '\r\n');
        break;
      case 2: {
        const at = r.int(text.length);
        text = text.slice(0, at) + hostileString(r) + text.slice(at);
        break;
      }
      case 3:
        text = `<thinking>${text}`;
        break;
      default:
        break;
    }
    parts.push(text);
    if (r.int(3) === 0) parts.push(hostileString(r));
  }
  if (r.int(10) === 0) parts.push('x'.repeat(300_000));
  return { kind: 'text', content: parts.join(r.pick(['\n', '\n\n', ' ', ''])), what: `${format}: ${count} calls` };
}

/** `n` seeded replies for one format. */
export function fuzzReplies(format: ToolFormat, n: number, seed: number): FuzzReply[] {
  const r = prng(seed);
  return Array.from({ length: n }, (_, i) => (format === 'native' ? nativeReply(r, i) : textReply(r, format)));
}
