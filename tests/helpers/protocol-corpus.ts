import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Protocol } from '../../src/protocols/index.js';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';

export const specs = new ToolRegistry(builtinTools).toolSpecs();

export interface Case {
  name: string;
  text: string;
  calls?: Array<[string, Record<string, unknown>]>;
  /** Each problem the parser must report, in order. */
  problems?: RegExp[];
  final?: string;
}

/** Runs a table of parser cases: exact calls (name, args) in order, exact problem count. */
export function corpus(protocol: Protocol, cases: Case[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const r = protocol.parse(c.text, specs);
      assert.deepEqual(
        r.calls.map((x) => [x.name, x.args]),
        c.calls ?? [],
        `calls of: ${c.text}`,
      );
      assert.equal(r.problems.length, c.problems?.length ?? 0, `problems: ${JSON.stringify(r.problems)}`);
      c.problems?.forEach((re, i) => assert.match(r.problems[i]!, re));
      if (c.final !== undefined) assert.equal(r.final, c.final);
      for (const call of r.calls)
        assert.ok(c.text.includes(call.raw), `raw text '${call.raw}' is a slice of the reply`);
    });
  }
}

export const ROUND_TRIP: Array<{ name: string; args: Record<string, unknown> }> = [
  { name: 'read_file', args: { path: 'src/a.ts' } },
  { name: 'write_file', args: { path: 'notes/x.md', content: '# Title\n\n```js\nconst a = "<b> & c";\n```\n' } },
  { name: 'write_file', args: { path: 'empty.txt', content: '' } },
  { name: 'edit_file', args: { path: 'a.txt', old_text: 'x = 1', new_text: "y = 'two'\n" } },
  { name: 'list_files', args: { path: '.', depth: 2 } },
  { name: 'list_files', args: {} },
  { name: 'search_files', args: { pattern: 'TODO\\(\\w+\\)', ignore_case: true } },
  { name: 'calculator', args: { expression: '(2 + 3) * 4' } },
  { name: 'shell', args: { command: 'echo "hi (there)" && ls -la | head -n 3' } },
  { name: 'shell', args: { command: '{"looks": "like json"}' } },
];

export function roundTrip(protocol: Protocol): void {
  it('parse(render(call)) gives the call back, for every call, alone and all together', () => {
    for (const call of ROUND_TRIP) {
      const text = protocol.render(call, specs);
      const r = protocol.parse(`Some prose first.\n${text}\n`, specs);
      assert.deepEqual(r.problems, [], text);
      assert.deepEqual(
        r.calls.map((c) => ({ name: c.name, args: c.args })),
        [call],
        text,
      );
    }
    if (protocol.format !== 'react') {
      const all = ROUND_TRIP.map((c) => protocol.render(c, specs)).join('\n\n');
      assert.deepEqual(
        protocol.parse(all, specs).calls.map((c) => ({ name: c.name, args: c.args })),
        ROUND_TRIP,
      );
    }
  });
}
