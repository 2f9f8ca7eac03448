import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { requestMessages, startHarness, type Harness } from '../helpers/harness.js';

describe('calls the model got wrong', () => {
  let h: Harness;
  let status: string;

  before(async () => {
    h = await startHarness({
      scenario: {
        name: 'bad-calls',
        steps: [
          {
            reply: {
              toolCalls: [
                { name: 'delete_everything', arguments: {} },
                { name: 'read_file', arguments: '{"path": "a.txt"' },
                { name: 'read_file', arguments: { path: 42 } },
                { name: 'calculator', arguments: { expression: '1 +' } },
                { name: 'calculator', arguments: { expression: '6 * 7' } },
              ],
            },
          },
          { reply: { content: 'Recovered.' } },
        ],
      },
    });
    status = (await (await h.start()).result()).status;
  });
  after(() => h.close());

  it('never crash the turn', () => assert.equal(status, 'completed'));

  it('come back to the model as tool messages it can act on, in its order', () => {
    const tools = requestMessages(h.model, 1).filter((m) => m.role === 'tool');
    assert.deepEqual(
      tools.map((m) => m.tool_call_id),
      ['call_1_1', 'call_1_2', 'call_1_3', 'call_1_4', 'call_1_5'],
    );
    const [unknown, badJson, schema, handler, good] = tools.map((m) => String(m.content));
    assert.match(
      unknown!,
      /Unknown tool 'delete_everything'\. Available tools: read_file, list_files, search_files, write_file, edit_file, shell, calculator\./,
    );
    assert.match(badJson!, /Arguments for 'read_file' are not valid JSON .*Send one JSON object/);
    assert.match(schema!, /Invalid arguments for 'read_file': path: Invalid input: expected string, received number/);
    assert.match(handler!, /^Error: ArithmeticError: Unexpected end of expression\./);
    assert.equal(good, '42');
  });
});
