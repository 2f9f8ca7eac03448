import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { fileResource } from '../../src/tools/workspace.js';
import { lockWorkflowId } from '../../src/workflow-safe/lock-types.js';
import { dagent } from '../helpers/cli.js';
import { shellAllowed, startHarness } from '../helpers/harness.js';

/** Everything a history holds as text: its JSON, plus every payload decoded from base64. */
function historyText(json: string): string {
  const decoded: string[] = [];
  JSON.parse(json, (k, v) => {
    if (k === 'data' && typeof v === 'string') decoded.push(Buffer.from(v, 'base64').toString('utf8'));
    return v;
  });
  assert.ok(decoded.length > 0, 'payloads were found and decoded');
  return `${json}\n${decoded.join('\n')}`;
}

// A value with no recognisable key format: only the environment tells it is secret.
const SECRET = 'plain-but-secret-value-4711';

describe('secrets', () => {
  it('a key set in the environment never appears in any history, even when the model and the tools see it', async () => {
    process.env.OPENAI_API_KEY = SECRET;
    const h = await startHarness({
      policy: shellAllowed(),
      scenario: {
        name: 'leaky',
        steps: [
          {
            reply: {
              content: `I will store ${SECRET}.`,
              toolCalls: [
                { name: 'write_file', arguments: { path: 'creds.txt', content: `key=${SECRET}` } },
                { name: 'read_file', arguments: { path: 'leak.txt' } },
                { name: 'shell', arguments: { command: 'echo "env: $OPENAI_API_KEY"' } },
              ],
            },
          },
          { reply: { content: `The key is ${SECRET}.` } },
        ],
      },
    });
    try {
      writeFileSync(
        path.join(h.workspace, 'leak.txt'),
        `the file holds ${SECRET} and sk-proj-AbCdEfGhIjKlMnOpQrStUvWx`,
      );
      const handle = await h.start({ task: 'store the key' });
      const r = await handle.result();
      assert.equal(r.answer, 'The key is [REDACTED:OPENAI_API_KEY].');

      const job = historyText(historyToJSON(await handle.fetchHistory()));
      const lock = historyText(
        historyToJSON(
          await h.client.workflow
            .getHandle(lockWorkflowId(await fileResource(h.workspace, 'creds.txt')))
            .fetchHistory(),
        ),
      );
      for (const [name, text] of [
        ['job', job],
        ['lock', lock],
      ] as const) {
        assert.ok(!text.includes(SECRET), `the secret is in the ${name} history`);
        assert.ok(!text.includes('sk-proj-AbCdEfGhIjKlMnOpQrStUvWx'), `a key-shaped value is in the ${name} history`);
      }
      assert.match(job, /\[REDACTED:OPENAI_API_KEY\]/);
      assert.equal(
        readFileSync(path.join(h.workspace, 'creds.txt'), 'utf8'),
        'key=[REDACTED:OPENAI_API_KEY]',
        'redacted arguments are what the tool receives',
      );
      const audit = await dagent(['audit', handle.workflowId, '--json']);
      assert.ok(!audit.stdout.includes(SECRET));
      assert.match(audit.stdout, /env: \\n/, 'the shell never saw the key');
      assert.ok(
        h.model.requests.every((q) => !JSON.stringify(q.body).includes(SECRET) || q.step === 0),
        'the model only ever saw what history holds',
      );
    } finally {
      await h.close();
      delete process.env.OPENAI_API_KEY;
    }
  });
});
