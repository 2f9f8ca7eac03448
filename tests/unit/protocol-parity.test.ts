import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROTOCOLS } from '../../src/protocols/index.js';
import { specs } from '../helpers/protocol-corpus.js';

// One documented behaviour for all four text protocols (README, "Calling protocols"):
// - every well-formed call is returned, in the reply's order, whatever else the reply holds;
// - a call that cannot be read is a problem (the model is told what was wrong and shown the form);
// - a call naming an unknown tool is returned like any other: the registry rejects it with the list of tools.
const MALFORMED: Record<string, string> = {
  line: 'tool_call write_file(path=)',
  xml: '<function_calls><invoke name="write_file"><parameter name="path">x</invoke></function_calls>',
  react: 'Action: write_file\nAction Input: {"path": ',
  markdown: '```write_file x.txt\nnever closed',
};

describe('the four text protocols behave alike', () => {
  for (const [format, protocol] of Object.entries(PROTOCOLS)) {
    it(`${format}: a valid call, a call of an unknown tool and a malformed call in one reply`, () => {
      const valid = protocol.render({ name: 'read_file', args: { path: 'a.txt' } }, specs);
      const unknown = protocol.render({ name: 'read_fille', args: { path: 'b.txt' } }, specs);
      const text = `First the file.\n${valid}\n\nThen this.\n${unknown}\n\nAnd:\n${MALFORMED[format]}\n`;
      const r = protocol.parse(text, specs);
      assert.deepEqual(
        r.calls.map((c) => c.name),
        ['read_file', 'read_fille'],
        `${format} calls of:\n${text}`,
      );
      assert.deepEqual(r.calls[0]!.args, { path: 'a.txt' });
      assert.equal(r.problems.length, 1, `${format}: ${JSON.stringify(r.problems)}`);
    });
  }

  it('markdown: an ordinary code block (python, json, a bare fence) is text, not a call', () => {
    const r = PROTOCOLS.markdown.parse(
      'Here:\n```python\nprint(1)\n```\n```json\n{"a": 1}\n```\n```\nplain\n```',
      specs,
    );
    assert.deepEqual([r.calls, r.problems], [[], []]);
  });
});
