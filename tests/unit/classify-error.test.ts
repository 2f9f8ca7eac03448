import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { makeRedactor } from '../../src/audit/redact.js';
import { classifyModelError } from '../../src/llm/classify-error.js';
import { startScriptedModel, type ScriptedModel } from '../../src/scripted-model/server.js';

describe('classifyModelError, on real HTTP errors from the scripted server', () => {
  let m: ScriptedModel;
  before(async () => {
    m = await startScriptedModel({
      handler: ({ body }) => {
        const [code, told] = String(body.messages[0]!.content).split(' ');
        const status = Number(code);
        if (code === 'echo')
          return {
            faults: [{ status: 401, message: `Incorrect API key provided: ${told}. You can find your API key at …` }],
            reply: { content: 'ok' },
          };
        if (status === 1) return { faults: [{ delayMs: 2_000 }], reply: { content: 'late' } };
        return {
          faults: [{ status, retryAfter: 7, ...(told ? { shouldRetry: told === 'true' } : {}) }],
          reply: { content: 'ok' },
        };
      },
    });
  });
  after(() => m.close());

  const failWith = async (content: string, timeout = 5_000, redact?: (t: string) => string) => {
    const client = new OpenAI({ baseURL: m.url, apiKey: 'k', maxRetries: 0, timeout });
    try {
      await client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content }] });
    } catch (err) {
      return classifyModelError(err, m.url, redact);
    }
    throw new Error('expected a failure');
  };

  it('retries 429 after the time retry-after gives', async () => {
    const f = await failWith('429');
    assert.deepEqual([f.type, f.nonRetryable, f.nextRetryDelay], ['ModelRateLimited', false, 7000]);
  });

  it('a 401 body that echoes the key is redacted in the message and in its cause (both reach history)', async () => {
    const key = 'sk-proj-EchoedBackByTheProvider0123456789';
    const f = await failWith(`echo ${key}`, 5_000, makeRedactor({ OPENAI_API_KEY: key }));
    assert.equal(f.type, 'ModelAuthentication');
    assert.match(f.message, /Incorrect API key provided: \[REDACTED:OPENAI_API_KEY\]/);
    assert.ok(!f.message.includes(key) && !String(f.cause?.message).includes(key), f.cause?.message);
    assert.ok(!JSON.stringify(f.cause).includes(key));
  });

  it('retries 5xx', async () => {
    const f = await failWith('502');
    assert.deepEqual([f.type, f.nonRetryable], ['ModelServerError', false]);
  });

  for (const [status, type, hint] of [
    [400, 'ModelBadRequest', /check the model name/],
    [401, 'ModelAuthentication', /check OPENAI_API_KEY/],
    [403, 'ModelPermissionDenied', /may not use this model/],
    [404, 'ModelNotFound', /check DAGENT_MODEL/],
    [422, 'ModelUnprocessable', /could not process/],
  ] as const) {
    it(`does not retry ${status}, and says why`, async () => {
      const f = await failWith(String(status));
      assert.deepEqual([f.type, f.nonRetryable], [type, true]);
      assert.match(f.message, new RegExp(`HTTP ${status}`));
      assert.match(f.message, hint);
    });
  }

  for (const status of [408, 409, 500, 503]) {
    it(`retries ${status}, keeping the provider's error as the cause`, async () => {
      const f = await failWith(String(status));
      assert.equal(f.nonRetryable, false);
      // The provider's error, redacted: its class name and message (which carries the status).
      assert.match(f.cause?.name ?? '', /Error$/);
      assert.notEqual(f.cause?.name, 'Error');
      assert.match(f.cause?.message ?? '', new RegExp(`^${status} `));
    });
  }

  for (const status of [405, 413, 418]) {
    it(`does not retry an unlisted 4xx (${status})`, async () => {
      const f = await failWith(String(status));
      assert.deepEqual([f.type, f.nonRetryable, f.nextRetryDelay], ['ModelHttpError', true, undefined]);
      assert.match(f.message, new RegExp(`HTTP ${status}: the provider refused the request`));
    });
  }

  it('honours x-should-retry: false on a 500, and true on a 400', async () => {
    const no = await failWith('500 false');
    assert.deepEqual([no.nonRetryable, no.type], [true, 'ModelServerError']);
    assert.match(no.message, /x-should-retry: false/);
    const yes = await failWith('400 true');
    assert.deepEqual([yes.nonRetryable, yes.type, yes.nextRetryDelay], [false, 'ModelBadRequest', 7000]);
  });

  it('retries a timeout', async () => {
    const f = await failWith('1', 300);
    assert.deepEqual([f.type, f.nonRetryable], ['ModelTimeout', false]);
  });

  it('retries a refused connection', async () => {
    const client = new OpenAI({ baseURL: 'http://127.0.0.1:1/v1', apiKey: 'k', maxRetries: 0 });
    const f = await client.chat.completions.create({ model: 'x', messages: [] }).then(
      () => null,
      (e) => classifyModelError(e, 'http://127.0.0.1:1/v1'),
    );
    assert.deepEqual([f?.type, f?.nonRetryable], ['ModelConnection', false]);
  });
});
