import { positional } from './text/args.js';
import { maskFences } from './text/fences.js';
import { findBracketEnd } from './text/json-scan.js';
import { parseLiteralAt, parseObject } from './text/literal.js';
import { blankThinking, type NextCall } from './text/think.js';
import { buildInstructions } from './instructions.js';
import type { ParseResult, Protocol, ToolSpec } from './types.js';

const KEY = /([A-Za-z_]\w{0,127})\s*=(?!=)\s*/y;
const CALL = /^[ \t]*tool_call[ \t]+([A-Za-z][\w-]*)[ \t]*(\(?)/gm;

/** `key=value, …` and positional values inside the parentheses, as literals (never evaluated). */
function argList(src: string, tool: ToolSpec | undefined): { args: Record<string, unknown> } | { error: string } {
  const t = src.trim();
  if (t === '') return { args: {} };
  if (t.startsWith('{')) {
    const o = parseObject(t);
    return o.ok ? { args: o.value } : { error: `the JSON object is not valid (${o.error})` };
  }
  const named: Record<string, unknown> = {};
  const values: unknown[] = [];
  let i = 0;
  try {
    while (i < src.length) {
      while (/[\s,]/.test(src[i] ?? '')) i++;
      if (i >= src.length) break;
      KEY.lastIndex = i;
      const key = KEY.exec(src);
      if (key) i += key[0].length;
      else if (Object.keys(named).length) return { error: 'a positional value follows a key=value argument' };
      const { value, end } = parseLiteralAt(src, i);
      if (key) named[key[1]!] = value;
      else values.push(value);
      i = end;
      while (/\s/.test(src[i] ?? '')) i++;
      if (i < src.length && src[i] !== ',') return { error: `expected ',' between arguments at position ${i + 1}` };
    }
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (!values.length) return { args: named };
  if (!tool) return { args: named };
  const p = positional(tool, values);
  return p.ok ? { args: { ...p.args, ...named } } : { error: p.error };
}

const lineEnd = (src: string, from: number) => {
  const eol = src.indexOf('\n', from);
  return eol < 0 ? src.length : eol;
};

/** The next `tool_call NAME(…)` and its parenthesised arguments (to the end of its line when unclosed). */
const nextLineCall: NextCall = (src, from) => {
  const re = new RegExp(CALL.source, 'gm');
  re.lastIndex = from;
  const m = re.exec(src);
  if (!m) return null;
  const open = m.index + m[0].length - 1;
  if (!m[2]) return { start: m.index, end: lineEnd(src, open) };
  const close = findBracketEnd(src, open);
  return { start: m.index, end: close > 0 ? close : src.length }; // unclosed: the rest is inside it
};

/** One call per line: `tool_call NAME(key=value, …)` or `tool_call NAME({json})`. */
export const lineProtocol: Protocol = {
  format: 'line',
  parse(text, tools) {
    const out: ParseResult = { calls: [], problems: [] };
    const original = text;
    const src = blankThinking(maskFences(text), nextLineCall);
    for (const m of src.matchAll(CALL)) {
      const name = m[1]!;
      if (!m[2]) {
        out.problems.push(`tool_call ${name} needs its arguments in parentheses: tool_call ${name}(key="value").`);
        continue;
      }
      const open = m.index + m[0].length - 1;
      const close = findBracketEnd(src, open);
      if (close < 0) {
        // Everything after it is inside the unclosed parentheses: no later call is real.
        out.problems.push(`The parentheses of tool_call ${name}( are never closed.`);
        break;
      }
      const r = argList(
        original.slice(open + 1, close - 1),
        tools.find((t) => t.name === name),
      );
      if ('error' in r) out.problems.push(`Cannot read tool_call ${name}: ${r.error}.`);
      else out.calls.push({ name, args: r.args, raw: original.slice(m.index, close).trim() });
    }
    return out;
  },
  render({ name, args }) {
    return `tool_call ${name}(${Object.entries(args)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(', ')})`;
  },
  renderResults(results) {
    return results.map((r) => `tool_result ${r.name}:\n${r.output}`).join('\n\n');
  },
  instructions(tools) {
    return buildInstructions(
      this,
      tools,
      'To call a tool, write a line `tool_call NAME(key=value, …)` with values as literals: "text" (JSON string escapes, \\n for newlines), numbers, true/false, [lists], {objects}. One call per line.',
      'When the task is done, answer in plain text with no tool_call line.',
    );
  },
};
