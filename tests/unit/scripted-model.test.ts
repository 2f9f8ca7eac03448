import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { parseScenario } from '../../src/scripted-model/scenario.js';
import { startScriptedModel, type ScriptedModel } from '../../src/scripted-model/server.js';

describe('the scripted OpenAI-compatible server', () => {
  let m: ScriptedModel;
  let client: OpenAI;
  before(async () => {
    m = await startScriptedModel({
      scenario: parseScenario({
        name: 's',
        steps: [
          {
            faults: [
              { status: 503, retryAfterMs: 1234 },
              { status: 200, body: '{"choices": [' },
            ],
            reply: {
              content: 'reading',
              toolCalls: [
                { name: 'read_file', arguments: { path: 'a.txt' } },
                { name: 'calc', arguments: '{broken' },
              ],
            },
          },
          { reply: { content: 'a long final answer that needs several stream chunks' } },
        ],
      }),
    });
    client = new OpenAI({ baseURL: m.url, apiKey: 'k', maxRetries: 0 });
  });
  after(() => m.close());

  const user = { role: 'user' as const, content: 'task' };

  it('serves the step faults first, one per attempt, then the reply', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'x', messages: [user] }),
      (e: any) => e.status === 503 && e.headers.get('retry-after-ms') === '1234',
    );
    await assert.rejects(client.chat.completions.create({ model: 'x', messages: [user] }));
    const r = await client.chat.completions.create({ model: 'x', messages: [user] });
    const msg = r.choices[0]!.message;
    assert.equal(msg.content, 'reading');
    assert.equal(r.choices[0]!.finish_reason, 'tool_calls');
    assert.deepEqual(
      msg.tool_calls!.map((c) => c.type === 'function' && [c.id, c.function.name, c.function.arguments]),
      [
        ['call_1_1', 'read_file', '{"path":"a.txt"}'],
        ['call_1_2', 'calc', '{broken'],
      ],
    );
    assert.ok(r.usage!.total_tokens > 0);
    assert.deepEqual(
      m.requests.map((q) => [q.step, q.attempt, q.status]),
      [
        [0, 0, 503],
        [0, 1, 200],
        [0, 2, 200],
      ],
    );
  });

  it('picks the step from the conversation, so a repeated request gets the same reply', async () => {
    const history = [user, { role: 'assistant' as const, content: 'reading' }];
    const a = await client.chat.completions.create({ model: 'x', messages: history });
    const b = await client.chat.completions.create({ model: 'x', messages: history });
    assert.equal(a.choices[0]!.message.content, b.choices[0]!.message.content);
  });

  it('streams content and tool calls as chunks the SDK reassembles', async () => {
    const stream = client.chat.completions.stream({
      model: 'x',
      messages: [user],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    assert.equal(final.choices[0]!.message.content, 'reading');
    const calls = final.choices[0]!.message.tool_calls!;
    assert.deepEqual(
      calls.map((c) => c.type === 'function' && c.function.arguments),
      ['{"path":"a.txt"}', '{broken'],
    );
    assert.ok(final.usage!.total_tokens > 0);
    const text = client.chat.completions.stream({ model: 'x', messages: [user, { role: 'assistant', content: 'x' }] });
    let chunks = 0;
    text.on('content', () => chunks++);
    assert.equal(await text.finalContent(), 'a long final answer that needs several stream chunks');
    assert.ok(chunks > 1);
  });

  it('says plainly when the scenario has no such step', async () => {
    const history = [user, { role: 'assistant' as const, content: '1' }, { role: 'assistant' as const, content: '2' }];
    await assert.rejects(
      client.chat.completions.create({ model: 'x', messages: history }),
      /scenario 's' has 2 steps; the conversation asks for step 3/,
    );
  });

  it('refuses an invalid scenario with the field at fault', () => {
    assert.throws(
      () => parseScenario({ name: 'x', steps: [{ reply: { toolCalls: [{ arguments: {} }] } }] }),
      /Invalid scenario: steps\.0\.reply\.toolCalls\.0\.name/,
    );
  });
});
