/** A small seeded generator (mulberry32): the same seed gives the same cases on every machine. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}

/** Fragments that break naive parsers of the text protocols. */
export const HOSTILE_FRAGMENTS = [
  '<thinking>',
  '</thinking>',
  '<think>',
  '</think>',
  '```',
  '````',
  '~~~',
  '```python',
  '```write_file x',
  '``````',
  '</parameter>',
  '<parameter name="path">',
  '</invoke>',
  '</function_calls>',
  '<function_calls>',
  '<tool-use>',
  '</tool-use>',
  'Observation:',
  'Action: shell',
  'Action Input: {',
  'Final Answer:',
  'Thought:',
  'tool_call shell(',
  '\r\n',
  '\r',
  '\n',
  '\n\n',
  '"',
  "'",
  '\\',
  '\\n',
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  '&amp;',
  '&lt;',
  '<',
  '>',
  '&',
  ' ',
  '  ',
  '\t',
  'abc',
  'é€😀',
  '\u0000',
  '\u001b[31m',
  '#',
  '- ',
  '`',
  '=',
  ',',
] as const;

export function hostileString(r: ReturnType<typeof prng>, maxParts = 12): string {
  let s = '';
  const n = 1 + r.int(maxParts);
  for (let i = 0; i < n; i++) s += r.pick(HOSTILE_FRAGMENTS);
  return s;
}
