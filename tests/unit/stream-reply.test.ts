import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { streamChunks } from '../../src/scripted-model/stream.js';
import { StreamAssembler, STREAM_DETAILS_MAX_CHARS, streamProgress } from '../../src/llm/stream-reply.js';
import { prng } from '../helpers/prng.js';
import { StreamPrinter } from '../../src/cli/plumbing/live-reply.js';

const calls = [
  { id: 'call_1', type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"notes/todo.md"}' } },
  { id: 'call_2', type: 'function' as const, function: { name: 'calculator', arguments: '{"expression":"6*7"}' } },
];

describe('a streamed reply, put together', () => {
  it('gives back exactly the reply that was streamed: text, calls joined by index, finish and usage', () => {
    const a = new StreamAssembler();
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    for (const c of streamChunks({
      id: 'x',
      model: 'm',
      content: 'Reading two things.',
      calls,
      finish: 'tool_calls',
      usage,
    }))
      a.add(c);
    assert.deepEqual(a.reply(), {
      model: 'm',
      content: 'Reading two things.',
      toolCalls: calls,
      finishReason: 'tool_calls',
      usage,
    });
  });

  it('a stream that never said why it ended has no finish reason (the activity drops it)', () => {
    const a = new StreamAssembler();
    const chunks = streamChunks({
      id: 'x',
      model: 'm',
      content: 'half a repl',
      calls: [],
      finish: 'stop',
      usage: undefined,
    });
    for (const c of chunks.slice(0, -1)) a.add(c);
    assert.equal(a.reply().finishReason, null);
  });

  it('hostile pieces are skipped, never thrown on: wrong types, tool_calls that is not a list, huge indexes', () => {
    const a = new StreamAssembler();
    const hostile: unknown[] = [
      null,
      42,
      'data',
      { choices: 'no' },
      { choices: [null] },
      { choices: [{ delta: 'text' }] },
      { choices: [{ delta: { content: 7, tool_calls: { index: 0 } } }] },
      { choices: [{ delta: { tool_calls: [{ index: 1e9, function: { name: 'x' } }] } }] },
      { choices: [{ delta: { tool_calls: [{ index: -1, function: { name: 'x' } }] } }] },
      {
        choices: [
          { delta: { tool_calls: [null, { index: 0, function: { name: 'read_file', arguments: { o: 1 } } }] } },
        ],
      },
      { choices: [{ delta: { content: 'ok' }, finish_reason: 'stop' }], usage: 'lots' },
    ];
    for (const c of hostile) assert.doesNotThrow(() => a.add(c));
    const r = a.reply();
    assert.equal(r.content, 'ok');
    assert.equal(r.finishReason, 'stop');
    // The index-0 call kept its name; the object "arguments" were not taken as text.
    assert.deepEqual(
      r.toolCalls.map((c) => [c.function.name, c.function.arguments]),
      [['read_file', '']],
    );
  });

  it('random garbage chunks (300 seeded) never throw and keep text and calls bounded', () => {
    const { pick } = prng(7);
    const values = (): unknown => pick([null, 0, -1, 1.5, 'x', '', [], {}, true, { index: 0 }, ['a'], 1e12]);
    for (let n = 0; n < 300; n++) {
      const a = new StreamAssembler();
      for (let i = 0; i < 40; i++) {
        const delta = {
          content: values(),
          tool_calls: pick([
            values(),
            [{ index: values(), id: values(), function: { name: values(), arguments: values() } }],
          ]),
        };
        assert.doesNotThrow(() =>
          a.add({ choices: [{ delta, finish_reason: values() }], model: values(), usage: values() }),
        );
      }
      assert.ok(a.reply().toolCalls.length <= 1_000);
    }
  });

  it('the heartbeated progress is redacted and capped', () => {
    const a = new StreamAssembler();
    a.add({
      choices: [{ delta: { content: 'key sk-abcdefghijklmnopqrstuvwx then ' + 'y'.repeat(STREAM_DETAILS_MAX_CHARS) } }],
    });
    const p = streamProgress(a, 2, (s) => s.replace(/sk-[a-z]+/g, '[redacted]'));
    assert.equal(p.stream.attempt, 2);
    assert.ok(p.stream.text.startsWith('key [redacted] then'));
    assert.equal(p.stream.truncated, true);
    assert.ok(p.stream.text.length <= STREAM_DETAILS_MAX_CHARS);
  });
});

describe('the watcher’s view of a streamed reply', () => {
  it('prints whole lines as they come, says when an attempt starts again, and completes from the recorded reply', () => {
    const lines: string[] = [];
    const p = new StreamPrinter((l) => lines.push(l));
    p.begin();
    p.update({ attempt: 1, text: 'first line\nsecond', truncated: false });
    p.update({ attempt: 1, text: 'first', truncated: false }); // an older heartbeat: nothing new
    p.update({ attempt: 2, text: 'first line\n', truncated: false, lastFailure: 'broke off' });
    p.update({ attempt: 2, text: 'first line\nsecond line\nthi', truncated: false });
    p.end('first line\nsecond line\nthird line');
    assert.deepEqual(lines, [
      '  │ first line',
      '  ↻ attempt 2 writes the reply again; the text above is dropped (broke off)',
      '  │ first line',
      '  │ second line',
      '  │ third line',
    ]);
  });

  it('a reply that never showed a line prints nothing at its end, and a long line is shown up to its last word', () => {
    const lines: string[] = [];
    const p = new StreamPrinter((l) => lines.push(l));
    p.begin();
    p.end('a whole reply that came at once');
    assert.deepEqual(lines, []);
    p.update({ attempt: 1, text: `${'word '.repeat(30)}half`, truncated: false });
    assert.deepEqual(lines, [`  │ ${'word '.repeat(30).trimEnd()}`]);
  });
});
