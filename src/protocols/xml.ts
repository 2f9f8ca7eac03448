import { argsFromTagAndBody, coerceField, positional } from './text/args.js';
import { firstFence } from './text/fences.js';
import { parseLiteral } from './text/literal.js';
import { blankOutsideCalls, earliest, nextThinking, type NextCall, type NextSpan } from './text/think.js';
import { buildInstructions } from './instructions.js';
import type { ParseResult, Protocol, TextCall, ToolSpec } from './types.js';

const unescape = (s: string) =>
  s
    .replace(/&#13;/g, '\r')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
// A carriage return is written as `&#13;`: raw, it would be taken for part of a line ending.
const escape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
/** Drops the one newline that pretty-printing puts after an opening tag and before a closing one. */
const trimNewlines = (s: string) => s.replace(/^\r?\n/, '').replace(/\r?\n$/, '');

function attributes(src: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of src.matchAll(/([\w-]+)\s*=\s*("([^"]*)"|'([^']*)')/g)) out[m[1]!] = unescape(m[3] ?? m[4] ?? '');
  return out;
}

const PARAM_OPEN = /<parameter\s+name\s*=\s*["']([^"']{1,200})["']\s*>/g;

/** The `<parameter name="…">…</parameter>` elements of an invoke, in one pass. */
function parseInvoke(name: string, inner: string, tool: ToolSpec | undefined): Record<string, unknown> | string {
  const args: Record<string, unknown> = {};
  let pos = 0;
  PARAM_OPEN.lastIndex = 0;
  for (let m = PARAM_OPEN.exec(inner); m; m = PARAM_OPEN.exec(inner)) {
    const valueStart = m.index + m[0].length;
    const close = inner.indexOf('</parameter>', valueStart);
    if (close < 0) return `a <parameter> of '${name}' is not closed with </parameter>`;
    args[m[1]!] = coerceField(tool, m[1]!, unescape(trimNewlines(inner.slice(valueStart, close))));
    pos = close + '</parameter>'.length;
    PARAM_OPEN.lastIndex = pos;
  }
  if (/<parameter\b/.test(inner.slice(pos))) return `a <parameter> of '${name}' is not closed with </parameter>`;
  return args;
}

/**
 * A `<tool-use>` body made only of `<field>value</field>` children (fields of the tool), read in
 * one pass; null when the body is anything else.
 */
function childFields(body: string, tool: ToolSpec): Record<string, string> | null {
  const out: Record<string, string> = {};
  const open = /\s*<([\w-]{1,64})>/y;
  const space = /\s*/y;
  let i = 0;
  while (i < body.length) {
    space.lastIndex = i;
    space.exec(body);
    if (space.lastIndex >= body.length) break;
    open.lastIndex = i;
    const m = open.exec(body);
    if (!m || !tool.fields.some((f) => f.name === m[1])) return null;
    const valueStart = m.index + m[0].length;
    const close = body.indexOf(`</${m[1]}>`, valueStart);
    if (close < 0) return null;
    out[m[1]!] = body.slice(valueStart, close);
    i = close + m[1]!.length + 3;
  }
  return Object.keys(out).length ? out : null;
}

function parseToolUse(inner: string, tools: ToolSpec[]): { call?: Omit<TextCall, 'raw'>; error?: string } {
  const m = /^\s*<([A-Za-z][\w-]*)((?:\s+[\w-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/>|>([\s\S]*?)<\/\1\s*>)\s*$/.exec(
    inner,
  );
  if (!m)
    return {
      error:
        'inside <tool-use> write exactly one element named after the tool, e.g. <read_file path="a.txt"/>, closed with its end tag',
    };
  const name = m[1]!;
  const tool = tools.find((t) => t.name === name);
  const attrs = attributes(m[2] ?? '');
  const body = m[4] === undefined ? '' : trimNewlines(m[4]);
  const args: Record<string, unknown> = {};
  if (attrs.args !== undefined) {
    let values: unknown;
    try {
      values = parseLiteral(attrs.args);
    } catch (err) {
      return { error: `the args attribute of '${name}' is not a list: ${(err as Error).message}` };
    }
    if (!Array.isArray(values))
      return { error: `the args attribute of '${name}' must be a list like args='["notes.md"]'` };
    if (!tool) return { call: { name, args: {} } };
    const p = positional(tool, values);
    if (!p.ok) return { error: p.error };
    Object.assign(args, p.args);
    delete attrs.args;
  }
  for (const [k, v] of Object.entries(attrs)) args[k] = coerceField(tool, k, v);
  if (!tool) return { call: { name, args } };
  const children = childFields(body, tool);
  if (children) {
    for (const [k, v] of Object.entries(children)) args[k] = coerceField(tool, k, unescape(trimNewlines(v)));
    return { call: { name, args } };
  }
  if (body === '') return { call: { name, args } };
  const free = tool.fields.filter((f) => f.type === 'string' && !(f.name in args));
  if (Object.keys(args).length && free[0]) return { call: { name, args: { ...args, [free[0].name]: unescape(body) } } };
  const tb = argsFromTagAndBody(tool, '', unescape(body));
  return tb.ok ? { call: { name, args: { ...args, ...tb.args } } } : { error: tb.error };
}

/** The next `<function_calls>` or `<tool-use>` block, to its end tag (or the end of the reply). */
const nextBlock: NextCall = (src, from) => {
  const re = /<(function_calls|tool-use)>/g;
  re.lastIndex = from;
  const m = re.exec(src);
  if (!m) return null;
  const close = src.indexOf(`</${m[1]}>`, m.index);
  return { start: m.index, end: close < 0 ? src.length : close + m[1]!.length + 3 };
};

/** A fenced example block (outside calls it is text, never a call). */
const nextFenceSpan: NextSpan = (src, from) => {
  const f = firstFence(src, from);
  return f ? { start: f.start, end: f.end } : null;
};

/** `<function_calls><invoke name><parameter name>` and `<tool-use><NAME>…</NAME></tool-use>`. */
export const xmlProtocol: Protocol = {
  format: 'xml',
  parse(text, tools) {
    const out: ParseResult = { calls: [], problems: [] };
    const original = text;
    // Thinking and fenced examples outside call blocks are text; inside a parameter they are its value.
    const src = blankOutsideCalls(text, nextBlock, earliest(nextThinking, nextFenceSpan));
    const blocks = /<function_calls>([\s\S]*?)(<\/function_calls>|$)|<tool-use>([\s\S]*?)(<\/tool-use>|$)/g;
    for (const b of src.matchAll(blocks)) {
      const raw = original.slice(b.index, b.index + b[0].length);
      if (b[1] !== undefined) {
        if (!b[2]) {
          out.problems.push('A <function_calls> block is not closed with </function_calls>.');
          continue;
        }
        const innerStart = b.index + '<function_calls>'.length;
        const inner = original.slice(innerStart, innerStart + b[1].length);
        const invokes = [...inner.matchAll(/<invoke\s+name\s*=\s*["']([^"']+)["']\s*>([\s\S]*?)(<\/invoke>|$)/g)];
        if (!invokes.length) out.problems.push('A <function_calls> block holds no <invoke name="TOOL"> element.');
        for (const inv of invokes) {
          const name = inv[1]!;
          if (!inv[3]) {
            out.problems.push(`The <invoke name="${name}"> element is not closed with </invoke>.`);
            continue;
          }
          const args = parseInvoke(
            name,
            inv[2]!,
            tools.find((t) => t.name === name),
          );
          if (typeof args === 'string') out.problems.push(`Cannot read the call of '${name}': ${args}.`);
          else out.calls.push({ name, args, raw: inv[0] });
        }
      } else {
        if (!b[4]) {
          out.problems.push('A <tool-use> block is not closed with </tool-use>.');
          continue;
        }
        const innerStart = b.index + '<tool-use>'.length;
        const r = parseToolUse(original.slice(innerStart, innerStart + b[3]!.length), tools);
        if (r.call) out.calls.push({ ...r.call, raw });
        else out.problems.push(`Cannot read a <tool-use> block: ${r.error}.`);
      }
    }
    return out;
  },
  render({ name, args }) {
    // Multi-line text goes between newlines, which the parser drops again.
    const value = (v: unknown) =>
      typeof v !== 'string' ? JSON.stringify(v) : v.includes('\n') ? `\n${escape(v)}\n` : escape(v);
    const params = Object.entries(args).map(([k, v]) => `<parameter name="${k}">${value(v)}</parameter>`);
    return ['<function_calls>', `<invoke name="${name}">`, ...params, '</invoke>', '</function_calls>'].join('\n');
  },
  renderResults(results) {
    return results.map((r) => `<tool-result name="${r.name}">\n${r.output}\n</tool-result>`).join('\n');
  },
  instructions(tools) {
    return buildInstructions(
      this,
      tools,
      'To call a tool, write a <function_calls> block with one <invoke name="TOOL"> per call and one <parameter name="FIELD">value</parameter> per argument (text as is, with < > & escaped; numbers, booleans, lists and objects as JSON). The <tool-use><TOOL>…</TOOL></tool-use> form works too.',
      'When the task is done, answer in plain text with no tool block.',
    );
  },
};
