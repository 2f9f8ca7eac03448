import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeRedactor, redactValue } from '../../src/audit/redact.js';

describe('makeRedactor', () => {
  const redact = makeRedactor({
    OPENAI_API_KEY: 'plain-value-without-format-123',
    SHORT_TOKEN: 'abc',
    HOME: '/root',
    DAGENT_REDACT_PATTERNS: '["acct-[0-9]{6}"]',
  });

  it('hides the values of secret-named environment variables, whatever they look like', () => {
    assert.equal(redact('key is plain-value-without-format-123.'), 'key is [REDACTED:OPENAI_API_KEY].');
    assert.equal(redact('abc /root'), 'abc /root', 'short values and non-secret names stay');
  });

  it('hides well-known key formats and credential assignments', () => {
    assert.equal(redact('use sk-proj-AbCdEfGhIjKlMnOpQrStUvWx now'), 'use [REDACTED] now');
    assert.equal(redact('AKIAABCDEFGHIJKLMNOP'), '[REDACTED]');
    assert.equal(redact('DB_PASSWORD="hunter2hunter2x9"'), 'DB_PASSWORD="[REDACTED]"');
    assert.equal(redact('api_key: Zx81kLmNoPqRsTu'), 'api_key: [REDACTED]');
    assert.equal(redact('-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----'), '[REDACTED]');
  });

  it('leaves code that merely mentions tokens alone', () => {
    for (const code of [
      'const token = getToken();',
      'password = request.form["password"]',
      'secret: process.env.SECRET_NAME',
    ])
      assert.equal(redact(code), code);
  });

  it('applies extra patterns from DAGENT_REDACT_PATTERNS, and refuses a malformed list', () => {
    assert.equal(redact('account acct-123456'), 'account [REDACTED]');
    assert.throws(
      () => makeRedactor({ DAGENT_REDACT_PATTERNS: 'acct-.*' }),
      /must be a JSON array of regular expressions/,
    );
  });

  it('redacts every string inside a value', () => {
    assert.deepEqual(redactValue({ a: ['x sk-AAAAAAAAAAAAAAAAAAAAAAAA'], n: 1 }, redact), {
      a: ['x [REDACTED]'],
      n: 1,
    });
  });

  it('stays linear on hostile text: 120 KB of "token-token-…" (cubic before: 6 KB took 8 s)', () => {
    const started = Date.now();
    const text = 'token-'.repeat(20_000);
    assert.equal(redact(text), text);
    assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
  });

  it('redacts a private key whose END line is missing', () => {
    assert.equal(redact('-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA75\nabc'), '[REDACTED]');
  });

  it('hides JWTs, bearer tokens, Stripe, GCP, GitHub, GitLab, npm and Slack formats, and URL passwords', () => {
    const cases: Array<[string, string]> = [
      [
        'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c end',
        'jwt [REDACTED] end',
      ],
      ['Authorization: Bearer abcDEF123456ghiJKL789', 'Authorization: Bearer [REDACTED]'],
      ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN', '[REDACTED]'],
      ['stripe sk_live_51HqLyjWDarjtT1zdp7dcXYZ0123', 'stripe [REDACTED]'],
      ['rk_test_51HqLyjWDarjtT1zdp7dc', '[REDACTED]'],
      ['gcp AIzaSyA1234567890abcdefghijklmnopqrstuv', 'gcp [REDACTED]'],
      ['npm_abcdefghijklmnopqrstuvwxyz0123456789', '[REDACTED]'],
      ['glpat-abcdefghijklmnopqrst', '[REDACTED]'],
      ['hook https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX', 'hook [REDACTED]'],
      ['postgres://app:s3cr3t-pw@db.internal:5432/prod', 'postgres://app:[REDACTED]@db.internal:5432/prod'],
      ['{"api_key": "Zx81kLmNoPqRsTu"}', '{"api_key": "[REDACTED]"}'],
      [
        '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\nkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n"}',
        '{"private_key": "[REDACTED]\\n"}',
      ],
    ];
    for (const [text, want] of cases) assert.equal(redact(text), want, text);
  });

  it('hides a secret value split across lines or string pieces', () => {
    const r = makeRedactor({ SERVICE_TOKEN: 'tok0123456789abcdefXYZ' });
    assert.equal(r('a = "tok0123456" +\n    "789abcdefXYZ";'), 'a = "[REDACTED:SERVICE_TOKEN]";');
    assert.equal(r('tok0123456789\nabcdefXYZ'), '[REDACTED:SERVICE_TOKEN]');
    assert.equal(r('tok0123 is not the token'), 'tok0123 is not the token');
  });
});
