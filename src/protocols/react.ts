import { maskFences } from './text/fences.js';
import { findBracketEnd } from './text/json-scan.js';
import { parseObject } from './text/literal.js';
import { blankThinking, type NextCall } from './text/think.js';
import { buildInstructions } from './instructions.js';
import type { ParseResult, Protocol, ToolSpec } from './types.js';

const ACTION = /^[ \t]*Action[ \t]*:[ \t]*(.*)$/gm;
const INPUT = /^[ \t]*Action[ \t]+Input[ \t]*:[ \t]*/m;
const FINAL = /^[ \t]*Final[ \t]+Answer[ \t]*:/m;
const OBSERVATION = /^[ \t]*Observation[ \t]*:/m;
const NEXT_SECTION = /^[ \t]*(Action|Thought|Final[ \t]+Answer)[ \t]*:/gm;

function inputArgs(
  tool: ToolSpec | undefined,
  name: string,
  raw: string,
): { args: Record<string, unknown> } | { error: string } {
  const t = raw.trim();
  if (t.startsWith('{')) {
    const o = parseObject(t);
    return o.ok
      ? { args: o.value }
      : { error: `the Action Input of '${name}' is not a valid JSON object (${o.error})` };
  }
  const strings = tool?.fields.filter((f) => f.type === 'string') ?? [];
  const required = tool?.fields.filter((f) => f.required) ?? [];
  if (tool && strings.length >= 1 && required.length <= 1 && t !== '') {
    return { args: { [strings[0]!.name]: t.replace(/^(["'])([\s\S]*)\1$/, '$2') } };
  }
  return {
    error: `the Action Input of '${name}' must be a JSON object like {"${tool?.fields[0]?.name ?? 'field'}": …}`,
  };
}

/** The next `Action Input:` value: a JSON object to its closing brace, or the rest of its line. */
const nextInput: NextCall = (src, from) => {
  const re = new RegExp(INPUT.source, 'gm');
  re.lastIndex = from;
  const m = re.exec(src);
  if (!m) return null;
  const v = m.index + m[0].length;
  if (src[v] === '{') {
    const close = findBracketEnd(src, v);
    return { start: m.index, end: close > 0 ? close : src.length }; // unclosed: the rest is inside it
  }
  const eol = src.indexOf('\n', v);
  return { start: m.index, end: eol < 0 ? src.length : eol };
};

/** Thought / Action / Action Input lines; the result returns as `Observation:`; `Final Answer:` ends. */
export const reactProtocol: Protocol = {
  format: 'react',
  parse(text, tools) {
    const out: ParseResult = { calls: [], problems: [] };
    const original = text;
    let src = blankThinking(maskFences(text), nextInput);
    const firstAction = src.search(/^[ \t]*Action[ \t]*:/m);
    if (firstAction >= 0) {
      // The model sometimes writes the observation itself: nothing after it is real.
      const obs = src.slice(firstAction).search(OBSERVATION);
      if (obs >= 0) src = src.slice(0, firstAction + obs);
    }
    for (const a of src.matchAll(ACTION)) {
      const name = a[1]!.trim();
      const after = a.index + a[0].length;
      NEXT_SECTION.lastIndex = after;
      const next = NEXT_SECTION.exec(src);
      const segment = src.slice(after, next ? next.index : src.length);
      const tool = tools.find((t) => t.name === name);
      const input = INPUT.exec(segment);
      if (!name) {
        out.problems.push('An Action line names no tool.');
        continue;
      }
      if (!input) {
        if (tool && tool.fields.every((f) => !f.required))
          out.calls.push({ name, args: {}, raw: original.slice(a.index, after) });
        else
          out.problems.push(
            `Action '${name}' has no Action Input line: add \`Action Input: {…}\` with its arguments as JSON.`,
          );
        continue;
      }
      const valueStart = after + input.index + input[0].length;
      let valueEnd: number;
      if (src[valueStart] === '{') {
        valueEnd = findBracketEnd(src, valueStart);
        if (valueEnd < 0) {
          // Everything after it is inside the unclosed object: no later Action is real.
          out.problems.push(`The Action Input of '${name}' opens a JSON object that never closes.`);
          break;
        }
      } else {
        const eol = src.indexOf('\n', valueStart);
        valueEnd = eol < 0 ? src.length : eol;
      }
      const parsed = inputArgs(tool, name, original.slice(valueStart, valueEnd));
      if ('error' in parsed) out.problems.push(`Cannot read Action '${name}': ${parsed.error}.`);
      else out.calls.push({ name, args: parsed.args, raw: original.slice(a.index, valueEnd) });
    }
    const final = FINAL.exec(src);
    if (final) {
      if (out.calls.length || out.problems.length)
        out.problems.push(
          'Write either an Action or a Final Answer in one reply, not both: the Final Answer was ignored.',
        );
      else out.final = original.slice(final.index + final[0].length).trim();
    }
    return out; // valid calls run beside the problems reported for the others, as in every protocol
  },
  render({ name, args }) {
    return `Action: ${name}\nAction Input: ${JSON.stringify(args)}`;
  },
  renderResults(results) {
    return results.map((r) => `Observation: ${r.output}`).join('\n');
  },
  instructions(tools) {
    return buildInstructions(
      this,
      tools,
      'Think step by step. For each step write `Thought:` with your reasoning, then `Action:` with one tool name and `Action Input:` with its arguments as one JSON object. Stop after the Action Input: the result comes back as `Observation:`.',
      'When the task is done, write `Final Answer:` followed by your answer, and no Action.',
    );
  },
};
