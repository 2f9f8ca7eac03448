import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PROTOCOLS } from '../../src/protocols/index.js';
import type { ModelReply, ToolFormat } from '../../src/workflow-safe/types.js';
import { startHarness } from '../helpers/harness.js';
import { specs } from '../helpers/protocol-corpus.js';

type TextFormat = Exclude<ToolFormat, 'native'>;

const EXAMPLE: Record<TextFormat, string> = {
  markdown: '````md\n```write_file example.txt\nnot a call\n```\n````',
  xml: '```xml\n<function_calls><invoke name="write_file"><parameter name="path">example.txt</parameter><parameter name="content">x</parameter></invoke></function_calls>\n```',
  react: '```\nAction: write_file\nAction Input: {"path": "example.txt", "content": "x"}\n```',
  line: '```\ntool_call write_file(path="example.txt", content="x")\n```',
};
const MALFORMED: Record<TextFormat, { text: string; problem: RegExp }> = {
  markdown: { text: '```write_file result.txt\nunfinished', problem: /The code block for 'write_file' is not closed/ },
  xml: {
    text: '<function_calls><invoke name="write_file"><parameter name="path">result.txt</parameter></function_calls>',
    problem: /The <invoke name="write_file"> element is not closed/,
  },
  react: {
    text: 'Thought: write it.\nAction: write_file\nAction Input: {"path": "result.txt", "content": "x"',
    problem: /opens a JSON object that never closes/,
  },
  line: {
    text: 'tool_call write_file(path="result.txt", content="x"',
    problem: /parentheses of tool_call write_file\( are never closed/,
  },
};
const RESULT_MARK: Record<TextFormat, RegExp> = {
  markdown: /Result of write_file:\n```text\nWrote 14 bytes to result\.txt\./,
  xml: /<tool-result name="write_file">\nWrote 14 bytes to result\.txt\.\n<\/tool-result>/,
  react: /Observation: Wrote 14 bytes to result\.txt\./,
  line: /tool_result write_file:\nWrote 14 bytes to result\.txt\./,
};

function decodedModelReplies(history: { events?: any[] | null }): ModelReply[] {
  return (history.events ?? []).flatMap((e) => {
    const p = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
    if (!p?.data?.length) return [];
    const v = JSON.parse(Buffer.from(p.data).toString('utf8'));
    return v && typeof v === 'object' && 'assistantMessage' in v ? [v as ModelReply] : [];
  });
}

describe('tool calls in plain text, end to end', () => {
  for (const format of Object.keys(PROTOCOLS) as TextFormat[]) {
    it(`${format}: an example in a code block does not run, a malformed call is corrected, results come back in the format`, async () => {
      const p = PROTOCOLS[format];
      const content = `written by ${format}`.padEnd(14, '.').slice(0, 14);
      const corrected = [
        'Sorry, again:',
        p.render({ name: 'read_file', args: { path: 'seed.txt' } }, specs),
        p.render({ name: 'write_file', args: { path: 'result.txt', content } }, specs),
      ].join('\n');
      const h = await startHarness({
        scenario: {
          name: `text-${format}`,
          steps: [
            {
              reply: {
                content: `Here is how a call looks:\n${EXAMPLE[format]}\nNow for real:\n${MALFORMED[format].text}`,
              },
            },
            {
              reply: {
                content: format === 'react' ? corrected.replace('Sorry, again:', 'Thought: fix it.') : corrected,
              },
            },
            { reply: { content: format === 'react' ? 'Thought: done.\nFinal Answer: all written' : 'all written' } },
          ],
        },
      });
      try {
        writeFileSync(path.join(h.workspace, 'seed.txt'), 'seed');
        const handle = await h.start({ toolFormat: format });
        const r = await handle.result();
        assert.deepEqual([r.status, r.answer, r.steps], ['completed', 'all written', 3]);
        assert.equal(readFileSync(path.join(h.workspace, 'result.txt'), 'utf8'), content);
        assert.equal(
          existsSync(path.join(h.workspace, 'example.txt')),
          false,
          'the example inside a code block must not run',
        );

        const [first, second, third] = h.model.requests.map((q) => q.body);
        assert.equal(first!.tools, undefined, 'text protocols send no native tool schemas');
        assert.match(
          String(first!.messages[0]!.content),
          new RegExp(`## Calling tools \\(${format} format\\)[\\s\\S]*write_file\\(path: string, content: string\\)`),
        );
        const correction = second!.messages.at(-1)!;
        assert.equal(correction.role, 'user');
        assert.match(String(correction.content), MALFORMED[format].problem);
        assert.match(String(correction.content), /The expected form, for example:/);
        const results = String(third!.messages.at(-1)!.content);
        assert.match(results, RESULT_MARK[format]);
        assert.ok(
          results.indexOf('seed') < results.indexOf('Wrote 14 bytes'),
          'results come back in the order the calls were written',
        );
        assert.ok(
          second!.messages.every((m) => m.role !== 'tool'),
          'no native tool messages reach a text model',
        );

        const steps = decodedModelReplies(await handle.fetchHistory());
        const calls = steps.flatMap((s) => s.calls);
        assert.ok(calls.every((c) => c.format === format));
        const write = calls.find((c) => c.name === 'write_file' && !c.rejected)!;
        assert.ok(corrected.includes(write.rawText!), `the history records the raw text of the call: ${write.rawText}`);
        assert.ok(
          calls.some((c) => c.rejected?.match(MALFORMED[format].problem)),
          'the history records the unreadable call and why',
        );
      } finally {
        await h.close();
      }
    });
  }
});

describe('a text reply cut off at the token limit', () => {
  it('runs none of its calls (a block that looks closed may be cut short) and tells the model why', async () => {
    const h = await startHarness({
      scenario: {
        name: 'cut-off',
        steps: [
          {
            reply: {
              content: '```write_file doc.md\n# Doc\n```\ncode',
              finishReason: 'length',
            },
          },
          { reply: { content: 'ok' } },
        ],
      },
    });
    try {
      const handle = await h.start({ toolFormat: 'markdown' });
      await handle.result();
      assert.ok(!existsSync(path.join(h.workspace, 'doc.md')), 'the cut-off write did not run');
      const second = JSON.stringify(h.model.requests.filter((r) => r.status === 200)[1]!.body.messages);
      assert.match(second, /cut off at the token limit, so this call may be incomplete: it did not run/);
    } finally {
      await h.close();
    }
  });
});
