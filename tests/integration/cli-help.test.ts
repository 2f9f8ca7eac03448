import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildProgram } from '../../src/cli/main.js';
import { JOB_STATUSES } from '../../src/workflow-safe/job-status.js';
import { dagent } from '../helpers/cli.js';

const COMMANDS = buildProgram().commands.map((c) => c.name());

describe('the CLI parser', () => {
  it('knows every command', () => {
    assert.deepEqual([...COMMANDS].sort(), [
      'approve',
      'audit',
      'cancel',
      'chat',
      'cluster',
      'demo',
      'deny',
      'diff',
      'down',
      'eval',
      'export',
      'fork',
      'jobs',
      'list',
      'pending',
      'replay',
      'result',
      'resume',
      'run',
      'send',
      'server',
      'setup',
      'status',
      'ui',
      'up',
      'watch',
      'worker',
    ]);
  });

  it("`dagent <command> --help` exits 0 with that command's usage, for every command", async () => {
    const results = await Promise.all(COMMANDS.map(async (name) => [name, await dagent([name, '--help'])] as const));
    for (const [name, r] of results) {
      assert.equal(r.code, 0, `${name}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^Usage: dagent ${name} `), name);
    }
    const top = await dagent(['--help']);
    assert.equal(top.code, 0);
    for (const name of COMMANDS) assert.match(top.stdout, new RegExp(`\\n  ${name}\\b`), `the overview lists ${name}`);
  });

  it('refuses unknown flags on every command', async () => {
    const needs: Record<string, string[]> = {
      approve: ['--by', 'me'],
      deny: ['--by', 'me'],
      fork: ['--at-step', '1'],
      eval: ['--at-step', '1'],
    };
    const results = await Promise.all(
      COMMANDS.map(async (name) => [name, await dagent([name, ...(needs[name] ?? []), '--no-such-flag'])] as const),
    );
    for (const [name, r] of results) {
      assert.equal(r.code, 2, `${name}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`dagent ${name}: unknown option '--no-such-flag'`));
    }
  });

  it('`dagent jobs --status` accepts every status a job can have', async () => {
    assert.ok(JOB_STATUSES.length >= 11);
    const results = await Promise.all(
      JOB_STATUSES.map(async (s) => [s, await dagent(['jobs', '--status', s, '--json'])] as const),
    );
    for (const [s, r] of results) {
      assert.equal(r.code, 0, `${s}: ${r.stderr}`);
      assert.ok(Array.isArray(JSON.parse(r.stdout)));
    }
  });

  it('a setting with a typo is a clear error before anything runs', async () => {
    const r = await dagent(['list'], { DAGENT_MODEL_TIMEOUT_MS: '90s', OPENAI_API_KEY: 'k' });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /DAGENT_MODEL_TIMEOUT_MS must be a whole number from 100 to \d+, got '90s'/);
    const stream = await dagent(['list'], { DAGENT_MODEL_STREAM: 'sometimes', OPENAI_API_KEY: 'k' });
    assert.equal(stream.code, 2);
    assert.match(stream.stderr, /DAGENT_MODEL_STREAM must be 1\/true\/yes or 0\/false\/no, got 'sometimes'/);
    const metrics = await dagent(['list'], { DAGENT_METRICS: '9464', DAGENT_TRACING: 'jaeger' });
    assert.equal(metrics.code, 2);
    assert.match(metrics.stderr, /DAGENT_METRICS must be host:port to listen on, such as 127.0.0.1:9464, got '9464'/);
    const tracing = await dagent(['list'], { DAGENT_TRACING: 'jaeger' });
    assert.match(tracing.stderr, /DAGENT_TRACING must be otlp or console, got 'jaeger'/);
    const content = await dagent(['list'], { DAGENT_CONTENT_URL: 'mysql://db/x' });
    assert.equal(content.code, 2);
    assert.match(
      content.stderr,
      /DAGENT_CONTENT_URL must be a PostgreSQL URL like postgres:\/\/user@host:5432\/dbname, got 'mysql:\/\/db\/x'/,
    );
    const declared = await dagent(['list'], { DAGENT_WORKSPACES: 'repo' });
    assert.equal(declared.code, 2);
    assert.match(declared.stderr, /DAGENT_WORKSPACES: 'repo' is not id=folder/);
  });

  it('a workspace that is not here, or a bad workspace id, is refused before Temporal is asked', async () => {
    const away = { TEMPORAL_ADDRESS: '127.0.0.1:1' }; // nothing listens: an early refusal never gets there
    const missing = await dagent(['worker', '--workspace', 'repo=/no/such/folder'], away);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Workspace 'repo': \/no\/such\/folder is not an existing folder on this host/);
    const bad = await dagent(['run', '--workspace-id', '../x', '-d', 'a task'], away);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /option '--workspace-id <id>' argument '\.\.\/x' is invalid/);
  });
});
