import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { dagent, dagentBackground } from '../helpers/cli.js';
import { tempDir, uniqueId } from '../helpers/harness.js';

const DEMO = fileURLToPath(new URL('../../demo/workspace', import.meta.url));
const demoCopy = () => {
  const ws = tempDir();
  cpSync(DEMO, ws, { recursive: true });
  return ws;
};
const isolated = () => ({ DAGENT_HOME: tempDir('dagent-home-'), DAGENT_TASK_QUEUE: uniqueId('cli') });

describe('the dagent CLI', () => {
  it('demo: runs the offline demo job to completion and prints one JSON object', async () => {
    const env = isolated();
    const r = await dagent(['demo', '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual([out.status, out.steps], ['completed', 4]);
    assert.match(out.jobId, /^demo-/);
    assert.match(out.answer, /port 8080 and has 3 open todos needing 6.5 hours/);
    assert.ok(out.usage.totalTokens > 0);
    const status = readFileSync(path.join(env.DAGENT_HOME, 'demo-workspace', 'STATUS.md'), 'utf8');
    assert.match(status, /Port: 8080/);
  });

  it('run: shows live progress and, with no model configured, says it uses the offline demo model', async () => {
    const ws = demoCopy();
    const r = await dagent(['run', 'summarise the todos', '--workspace', ws], isolated());
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /No model configured .*OPENAI_BASE_URL/);
    assert.match(r.stderr, /offline demo model: a scripted OpenAI-compatible server/);
    const lines = r.stdout.split('\n');
    const idx = (re: RegExp) => lines.findIndex((l) => re.test(l));
    assert.ok(idx(/^step 1 {2}model replied in \d+ ms: 3 tool calls/) >= 0, r.stdout);
    assert.ok(idx(/→ read_file \{"path":"notes\/todo.md"\}/) > idx(/^step 1 {2}model replied/));
    assert.ok(idx(/← read_file \d+ ms: # Todo/) > idx(/→ read_file \{"path":"notes\/todo.md"\}/));
    assert.ok(idx(/✗ write_file rejected: Invalid arguments for 'write_file': content/) > 0);
    assert.ok(idx(/^done after 4 steps$/) > idx(/← write_file/));
    assert.match(r.stdout, /Wrote STATUS.md: billing-api listens on port 8080/);
  });

  it('run --max-steps: stops the job with status max_steps and a non-zero exit', async () => {
    const r = await dagent(['run', 'x', '--workspace', demoCopy(), '--max-steps', '2', '--json'], isolated());
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout);
    assert.deepEqual([out.status, out.steps, out.answer], ['max_steps', 2, null]);
  });

  it('run --detach, then status and result, with a worker started separately', async () => {
    const env = isolated();
    const ws = demoCopy();
    const jobId = uniqueId('detached');
    const started = await dagent(['run', 'the demo task', '--workspace', ws, '--id', jobId, '--detach', '--json'], env);
    assert.equal(started.code, 0, started.stderr);
    assert.deepEqual(JSON.parse(started.stdout), { jobId, status: 'running' });
    assert.match(started.stderr, /No worker polls task queue .* yet/);

    const before = await dagent(['status', jobId, '--json'], env);
    assert.equal(JSON.parse(before.stdout).status, 'running');

    const worker = dagentBackground(['worker'], env);
    try {
      const result = await dagent(['result', jobId, '--json'], env);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual([JSON.parse(result.stdout).status, JSON.parse(result.stdout).steps], ['completed', 4]);
      const after = JSON.parse((await dagent(['status', jobId, '--json'], env)).stdout);
      assert.equal(after.status, 'completed');
      assert.ok(after.closedAt);
      assert.match(readFileSync(path.join(ws, 'STATUS.md'), 'utf8'), /6\.5 h in total/);
    } finally {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.once('close', r));
    }

    const again = await dagent(['run', 'again', '--workspace', ws, '--id', jobId, '--detach'], env);
    assert.equal(again.code, 2);
    assert.match(again.stderr, new RegExp(`A job with id '${jobId}' already exists`));
  });

  it('refuses bad input with a clear message and exit code 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['run'], /dagent run: missing required argument 'task'/],
      [['run', '  '], /dagent run: Give the task to do/],
      [
        ['run', 'x', '--max-steps', 'ten'],
        /option '--max-steps <n>' argument 'ten' is invalid\. Give a whole number of at least 1\./,
      ],
      [['run', 'x', '--workspace', '/no/such/dir'], /--workspace \/no\/such\/dir is not an existing folder/],
      [['run', 'x', '--bogus'], /dagent run: unknown option '--bogus'/],
      [
        ['run', 'x', '--format', 'yaml'],
        /argument 'yaml' is invalid\. Allowed choices are native, markdown, xml, react, line/,
      ],
      [
        ['run', 'x', '--deadline', 'soon'],
        /option '--deadline <duration>' argument 'soon' is invalid\. Give a duration like 30s/,
      ],
      [['status'], /dagent status: missing required argument 'jobId'/],
      [['status', 'a', 'b'], /dagent status: too many arguments/],
      [['jobs', '--limit', '0'], /option '--limit <n>' argument '0' is invalid/],
      [['approve', 'job', 'call'], /required option '--by <name>' not specified/],
      [['status', 'no-such-job-anywhere'], /No job with id 'no-such-job-anywhere'/],
      [['audit', 'no-such-job-anywhere'], /dagent audit: No job with id 'no-such-job-anywhere'/],
      [
        ['export', 'no-such-job-anywhere', '--scenario', '/tmp/never.json'],
        /dagent export: No job with id 'no-such-job-anywhere'/,
      ],
      [['replay', 'no-such-job-anywhere'], /dagent replay: No job with id 'no-such-job-anywhere'/],
      [['frobnicate'], /dagent: unknown command 'frobnicate'/],
    ];
    for (const [args, message] of cases) {
      const r = await dagent(args, isolated());
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
  });
});
