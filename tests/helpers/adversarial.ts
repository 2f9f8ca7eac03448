import { HOSTILE_FRAGMENTS } from './prng.js';

/** Openers each parser works hardest on: a call begun, an argument, a string, a tag, a fence. */
const OPENERS = [
  'tool_call write_file(',
  'tool_call shell(command="',
  'tool_call x(a=',
  'Action: write_file\nAction Input: {',
  'Action: shell\nAction Input: {"command": "',
  'Action:',
  'Observation:',
  '<function_calls><invoke name="write_file"><parameter name="content">',
  '<function_calls>',
  '<invoke name="x">',
  '<parameter name="a">',
  '<tool-use><write_file path="a" ',
  '<tool-use>',
  '```write_file a.txt\n',
  '```\n',
  '```\ntext\n',
  '````\n```x\n',
  '<thinking>',
  '<think>x</think>',
  'token=',
  'token-',
  'password: "',
  'Bearer ',
  'postgres://u:',
  'eyJ',
  '-----BEGIN PRIVATE KEY-----',
  '{"a":',
  '[',
  '"\\',
];

/** 1 MB texts built by repeating one hostile piece: the shapes that make backtracking parsers quadratic or worse. */
export function adversarialInputs(bytes = 1 << 20): Array<{ name: string; text: string }> {
  const pieces = [...new Set([...OPENERS, ...HOSTILE_FRAGMENTS.filter((f) => f.trim().length > 0)])];
  const out: Array<{ name: string; text: string }> = [];
  for (const p of pieces) {
    out.push({ name: JSON.stringify(p), text: p.repeat(Math.ceil(bytes / p.length)).slice(0, bytes) });
    const withText = `${p}a `;
    out.push({
      name: `${JSON.stringify(p)} + text`,
      text: withText.repeat(Math.ceil(bytes / withText.length)).slice(0, bytes),
    });
    const lines = `${p}\n`;
    out.push({
      name: `${JSON.stringify(p)} per line`,
      text: lines.repeat(Math.ceil(bytes / lines.length)).slice(0, bytes),
    });
  }
  // One opener, then a megabyte of text that never closes it.
  for (const p of OPENERS) out.push({ name: `${JSON.stringify(p)} then 1 MB`, text: p + 'a'.repeat(bytes) });
  // One well-formed call whose arguments are a megabyte of repeated pieces.
  const fill = (open: string, piece: string, close: string) => ({
    name: `${JSON.stringify(open)} + ${JSON.stringify(piece)}…`,
    text: open + piece.repeat(Math.ceil(bytes / piece.length)) + close,
  });
  out.push(
    fill('tool_call write_file(', 'a=1, ', 'b=2)'),
    fill('tool_call write_file({', '"a":1,', '"b":2})'),
    fill('tool_call write_file(path="', 'a\\"(', '")'),
    fill('Action: write_file\nAction Input: {', '"a": [1, {"b": 2}], ', '"c": 3}'),
    fill(
      '<function_calls><invoke name="write_file">',
      '<parameter name="a">x</parameter>',
      '</invoke></function_calls>',
    ),
    fill('<function_calls><invoke name="write_file">', '<parameter name="a">x', '</invoke></function_calls>'),
    fill('<tool-use><write_file>', '<content>x', '</write_file></tool-use>'),
    fill('<tool-use><write_file>', '<path>x</path>', '</write_file></tool-use>'),
    fill('<tool-use><write_file path="a" ', 'x="1" ', '/></tool-use>'),
    fill('```write_file a.txt\n', '<think>\n', '```'),
    fill('<think>', '```shell\nls\n', '</think>'),
  );
  return out;
}
