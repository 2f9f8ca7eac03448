import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
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

describe('a native reply of the wrong shape', () => {
  const body = (toolCalls: unknown) =>
    JSON.stringify({
      id: 'x',
      object: 'chat.completion',
      model: 'm',
      choices: [
        { index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: toolCalls } },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });

  it('tool_calls that is not a list, or arguments sent as an object: answered at once, never retried', async () => {
    const h = await startHarness({
      modelStream: false, // whole replies of the wrong shape (raw bodies)
      scenario: {
        name: 'malformed-native',
        steps: [
          {
            faults: [{ status: 200, body: body({ id: 'x', function: { name: 'read_file' } }) }],
            reply: { content: 'unused' },
          },
          {
            faults: [
              {
                status: 200,
                body: body([
                  { id: 'y', type: 'function', function: { name: 'read_file', arguments: { path: 'a.txt' } } },
                ]),
              },
            ],
            reply: { content: 'unused' },
          },
          { reply: { content: 'done' } },
        ],
      },
    });
    writeFileSync(path.join(h.workspace, 'a.txt'), 'alpha');
    try {
      const r = await (await h.start()).result();
      assert.deepEqual([r.status, r.answer, r.steps], ['completed', 'done', 3]);
      assert.equal(h.model.requests.length, 3, 'no attempt was retried');
      const second = h.model.requests[1]!.body.messages.filter((m) => m.role === 'tool');
      assert.match(String(second[0]!.content), /tool_calls is not a list: send tool calls as a JSON array/);
      const third = h.model.requests[2]!.body.messages.filter((m) => m.role === 'tool');
      assert.equal(third.at(-1)!.content, 'alpha', 'arguments given as an object were taken as meant');
    } finally {
      await h.close();
    }
  });
});

describe('a reply with hundreds of long calls', () => {
  it('does not fail the job on the 2 MiB payload limit: the first 64 run, the rest are answered with the limit', async () => {
    const expression = `${'1+'.repeat(1950)}1`; // 3.9 KB each, 200 of them: 780 KB of arguments, several times over
    const h = await startHarness({
      scenario: {
        name: 'flood',
        steps: [
          {
            reply: {
              toolCalls: Array.from({ length: 200 }, () => ({ name: 'calculator', arguments: { expression } })),
            },
          },
          { reply: { content: 'counted' } },
        ],
      },
    });
    try {
      const r = await (await h.start()).result();
      assert.deepEqual([r.status, r.answer], ['completed', 'counted']);
      const results = requestMessages(h.model, 1)
        .filter((m) => m.role === 'tool')
        .map((m) => String(m.content));
      assert.equal(results.length, 200);
      assert.deepEqual(new Set(results.slice(0, 64)), new Set(['1951']));
      assert.ok(
        results.slice(64).every((c) => /^Error: Too many calls in one reply \(200\): the first 64 run/.test(c)),
      );
    } finally {
      await h.close();
    }
  });
});
