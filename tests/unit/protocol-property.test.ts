import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROTOCOLS } from '../../src/protocols/index.js';
import { specs } from '../helpers/protocol-corpus.js';
import { hostileString, prng } from '../helpers/prng.js';

// parse(render(x)) = x over arguments made of the fragments that break text parsers: thinking
// tags, fences, XML end tags, ReAct keywords, CRLF and lone CR, quotes and escapes.
const CASES = 300;

describe('text protocols: parse(render(call)) gives the call back, for hostile argument text', () => {
  for (const [format, protocol] of Object.entries(PROTOCOLS)) {
    it(`${format}: ${CASES} seeded cases`, () => {
      const r = prng(1234);
      const failures: string[] = [];
      for (let i = 0; i < CASES; i++) {
        const call =
          i % 3 === 0
            ? { name: 'shell', args: { command: hostileString(r) } }
            : { name: 'write_file', args: { path: 'a.txt', content: hostileString(r) } };
        const text = `Prose first.\n${protocol.render(call, specs)}\n`;
        const got = protocol.parse(text, specs);
        const ok =
          got.problems.length === 0 &&
          got.calls.length === 1 &&
          JSON.stringify({ name: got.calls[0]!.name, args: got.calls[0]!.args }) === JSON.stringify(call);
        if (!ok && failures.length < 5)
          failures.push(
            `${JSON.stringify(call.args)}\n  → ${JSON.stringify(got.calls.map((c) => c.args))} ${JSON.stringify(got.problems)}`,
          );
      }
      assert.deepEqual(failures, [], failures.join('\n'));
    });
  }
});

describe('thinking sections: dropped outside calls, kept inside arguments', () => {
  const parse = (format: keyof typeof PROTOCOLS, text: string) => {
    const r = PROTOCOLS[format].parse(text, specs);
    return { calls: r.calls.map((c) => [c.name, c.args]), problems: r.problems };
  };

  it('line: a thinking tag inside a string argument is the argument (it used to parse to "")', () => {
    assert.deepEqual(parse('line', 'tool_call write_file(path="a", content="<thinking>x</thinking>")'), {
      calls: [['write_file', { path: 'a', content: '<thinking>x</thinking>' }]],
      problems: [],
    });
  });

  it('react: the same inside Action Input JSON', () => {
    assert.deepEqual(
      parse('react', 'Thought: go\nAction: write_file\nAction Input: {"path": "a", "content": "<think>x</think>"}'),
      { calls: [['write_file', { path: 'a', content: '<think>x</think>' }]], problems: [] },
    );
  });

  it('xml: a lone fence line inside a parameter does not lose the call', () => {
    assert.deepEqual(
      parse(
        'xml',
        '<function_calls>\n<invoke name="write_file">\n<parameter name="path">a.md</parameter>\n<parameter name="content">\n```\ncode\n</parameter>\n</invoke>\n</function_calls>',
      ),
      { calls: [['write_file', { path: 'a.md', content: '```\ncode' }]], problems: [] },
    );
  });

  it('markdown: a <think> inside a block is the file’s text', () => {
    assert.deepEqual(parse('markdown', '```write_file notes.md\nbefore\n<think>kept</think>\nafter\n```'), {
      calls: [['write_file', { path: 'notes.md', content: 'before\n<think>kept</think>\nafter' }]],
      problems: [],
    });
  });

  for (const [format, call] of [
    ['line', 'tool_call shell(command="rm -rf x")'],
    ['react', 'Action: shell\nAction Input: {"command": "rm -rf x"}'],
    [
      'xml',
      '<function_calls><invoke name="shell"><parameter name="command">rm -rf x</parameter></invoke></function_calls>',
    ],
    ['markdown', '```shell\nrm -rf x\n```'],
  ] as const) {
    it(`${format}: a call written inside a thinking section does not run; the one after it does`, () => {
      const text = `<thinking>\nmaybe:\n${call}\n</thinking>\n${PROTOCOLS[format].render({ name: 'read_file', args: { path: 'a.txt' } }, specs)}`;
      assert.deepEqual(parse(format, text).calls, [['read_file', { path: 'a.txt' }]]);
    });
  }
});
