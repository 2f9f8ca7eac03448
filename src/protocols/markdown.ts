import { argsFromTagAndBody, tagAndBodyOf } from './text/args.js';
import { fenceFor, scanFences, type Fence } from './text/fences.js';
import { blankThinking, type NextCall, type Span } from './text/think.js';
import { buildInstructions } from './instructions.js';
import type { ParseResult, Protocol, ToolSpec } from './types.js';

const distance = (a: string, b: string): number => {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
};

/** A snake_case tag (`read_fille`, `drop_table`), or a near miss of a tool's name (`shel1`). */
function looksLikeToolName(tag: string, tools: ToolSpec[]): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(tag)) return false;
  return tag.includes('_') || tools.some((t) => t.name.length >= 5 && distance(tag.toLowerCase(), t.name) <= 2);
}

/** Calls among known spans: the first that starts at or after `from` (spans sorted by start). */
const among =
  (spans: Span[]): NextCall =>
  (_src, from) => {
    let lo = 0;
    let hi = spans.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (spans[mid]!.start < from) lo = mid + 1;
      else hi = mid;
    }
    return spans[lo] ?? null;
  };

/**
 * The blocks of a reply, its thinking sections outside blocks set aside: blocks are found, thinking
 * that starts outside them is blanked, and blocks are found again (a blanked section may have held
 * a fence), a few rounds at most, each linear.
 */
function blocksOf(text: string): Fence[] {
  let src = text;
  let fences = scanFences(src);
  for (let round = 0; round < 3; round++) {
    const next = blankThinking(src, among(fences.map((f) => ({ start: f.start, end: f.end }))));
    if (next === src) break;
    src = next;
    fences = scanFences(src);
  }
  return fences;
}

/** gptme-style: a fenced code block whose language tag names the tool; the rest of the tag and the body are its arguments. */
export const markdownProtocol: Protocol = {
  format: 'markdown',
  parse(text, tools) {
    const out: ParseResult = { calls: [], problems: [] };
    for (const f of blocksOf(text)) {
      const [name = '', ...restWords] = f.info.split(/\s+/);
      const tool = tools.find((t) => t.name === name);
      if (!tool) {
        // A block whose tag names no tool is ordinary text (```python, ```json …), unless the tag
        // looks like a tool name: then it is a call of an unknown tool, rejected as in every protocol.
        if (looksLikeToolName(name, tools) && f.closed) out.calls.push({ name, args: {}, raw: f.raw });
        continue;
      }
      if (!f.closed) {
        out.problems.push(`The code block for '${name}' is not closed: end it with a line holding only ${f.marker}.`);
        continue;
      }
      const a = argsFromTagAndBody(tool, restWords.join(' '), f.body);
      if (a.ok) out.calls.push({ name, args: a.args, raw: f.raw });
      else out.problems.push(`Cannot read the '${name}' block: ${a.error}.`);
    }
    return out;
  },
  render({ name, args }, tools) {
    const tb = tagAndBodyOf(
      tools.find((t) => t.name === name),
      args,
    );
    const body = tb ? tb.body : Object.keys(args).length ? JSON.stringify(args, null, 2) : '';
    const fence = fenceFor(body);
    return `${fence}${name}${tb?.rest ? ` ${tb.rest}` : ''}\n${body}\n${fence}`;
  },
  renderResults(results) {
    return results
      .map((r) => {
        const fence = fenceFor(r.output);
        return `Result of ${r.name}:\n${fence}text\n${r.output}\n${fence}`;
      })
      .join('\n\n');
  },
  instructions(tools) {
    return buildInstructions(
      this,
      tools,
      'To call a tool, write a fenced code block whose language tag is the tool name. Text after the name fills the first text argument (e.g. a path); the block body fills the next one. Or put a JSON object with all arguments in the body.',
      'When the task is done, answer in plain text with no tool block.',
    );
  },
};
