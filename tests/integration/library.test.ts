import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { startJob } from '../../src/client/start-job.js';
import { startScriptedModel, type ScriptHandler } from '../../src/scripted-model/server.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { agentPlugin } from '../../src/worker/create-worker.js';
import { tempDir, temporalAddress, uniqueId } from '../helpers/harness.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const TSX = import.meta.resolve('tsx');
const userText = (body: { messages: Array<{ role: string; content?: unknown }> }) =>
  String(body.messages.find((m) => m.role === 'user')?.content ?? '');

/** Runs a program as a user would, against the test server and a scripted model. */
async function runProgram(args: string[], o: { cwd: string; handler: ScriptHandler; node?: string[] }) {
  const model = await startScriptedModel({ handler: o.handler });
  try {
    const env = {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress(),
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'test',
      DAGENT_MODEL: 'scripted',
      TASK_QUEUE: uniqueId('lib'),
      XDG_CACHE_HOME: tempDir('dagent-cache-'),
    };
    const r = await run(process.execPath, [...(o.node ?? []), ...args], { cwd: o.cwd, env, timeout: 120_000 });
    return { ...r, requests: model.requests };
  } finally {
    await model.close();
  }
}

const wordCountScript: ScriptHandler = ({ step }) =>
  step === 0
    ? { reply: { toolCalls: [{ name: 'word_count', arguments: { text: 'to be or not to be' } }] } }
    : { reply: { content: 'It has 6 words.' } };

describe('durable-agent as a library', () => {
  it('examples/custom-tool: a custom tool on a worker in a few lines; the job calls it', async () => {
    const r = await runProgram(['--import', TSX, 'examples/custom-tool/main.ts'], {
      cwd: root,
      handler: wordCountScript,
    });
    assert.equal(r.stdout.trim(), 'It has 6 words.');
    const toolMessage = r.requests.at(-1)!.body.messages.find((m) => m.role === 'tool');
    assert.equal(toolMessage?.content, '6', "the model read the custom tool's real output");
  });

  it("examples/child-workflow: a team's parent workflow runs two agent turns as children", async () => {
    const ws = tempDir();
    const r = await runProgram(['--import', TSX, path.join(root, 'examples/child-workflow/main.ts')], {
      cwd: ws,
      handler: ({ body, step }) => {
        const writing = userText(body).startsWith('Write NOTES.md');
        if (step === 0)
          return {
            reply: {
              toolCalls: [
                writing
                  ? { name: 'write_file', arguments: { path: 'NOTES.md', content: 'one\ntwo\nthree\n' } }
                  : { name: 'read_file', arguments: { path: 'NOTES.md' } },
              ],
            },
          };
        return { reply: { content: writing ? 'Drafted NOTES.md.' : 'Add an example.' } };
      },
    });
    assert.deepEqual(JSON.parse(r.stdout), { draft: 'Drafted NOTES.md.', review: 'Add an example.' });
    assert.equal(readFileSync(path.join(ws, 'NOTES.md'), 'utf8'), 'one\ntwo\nthree\n');
    const reviewRead = r.requests
      .flatMap((q) => q.body.messages)
      .find((m) => m.role === 'tool' && String(m.content).includes('two'));
    assert.ok(reviewRead, 'the review turn read the file the draft turn wrote');
  });

  it('agentPlugin adds our activities to a worker the team builds itself', async () => {
    const model = await startScriptedModel({ handler: wordCountScript });
    const taskQueue = uniqueId('plugin');
    const address = temporalAddress();
    const connection = await NativeConnection.connect({ address });
    const client = new Client({ connection: await Connection.connect({ address }) });
    const wordCount = defineTool({
      name: 'word_count',
      description: 'Count words.',
      input: z.object({ text: z.string() }),
      effect: 'read',
      execute: ({ text }) => String(text.split(/\s+/).filter(Boolean).length),
    });
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: { codePath: process.env.DAGENT_WORKFLOW_BUNDLE! },
      activities: { theirs: async () => 'still here' },
      plugins: [
        agentPlugin({
          model: { baseURL: model.url, apiKey: 'k', model: 'm', timeoutMs: 10_000 },
          client,
          tools: [wordCount],
        }),
      ],
    });
    const running = worker.run();
    try {
      const job = await startJob(client, { task: 'count', workspace: tempDir(), taskQueue });
      assert.deepEqual([(await job.result()).answer, model.requests.length], ['It has 6 words.', 2]);
    } finally {
      worker.shutdown();
      await running;
      await client.connection.close();
      await connection.close();
      await model.close();
    }
  });

  it('the packed tarball installs into an empty project, type-checks without tsx, and runs a job with a custom tool', async () => {
    const dir = tempDir('dagent-pack-');
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: root });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    const app = path.join(dir, 'app');
    const files: Record<string, string> = {
      'package.json': JSON.stringify({ name: 'app', private: true, type: 'module' }),
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: true,
          outDir: 'out',
          types: ['node'],
        },
        include: ['main.ts'],
      }),
      'main.ts': [
        "import { Client, Connection } from '@temporalio/client';",
        "import { z } from 'zod';",
        "import { builtinTools, createAgentWorker, defineTool, modelConfigFromEnv, readAudit, startJob, type TurnResult } from 'durable-agent';",
        "const wordCount = defineTool({ name: 'word_count', description: 'Count words.', input: z.object({ text: z.string().transform((t) => t.trim()) }), effect: 'read',",
        '  execute: ({ text }) => String(text.split(/\\s+/).filter(Boolean).length) });',
        'const address = process.env.TEMPORAL_ADDRESS!;',
        'const taskQueue = process.env.TASK_QUEUE!;',
        'const worker = await createAgentWorker({ address, taskQueue, model: modelConfigFromEnv()!, tools: [...builtinTools, wordCount] });',
        'const running = worker.run();',
        'const client = new Client({ connection: await Connection.connect({ address }) });',
        "const job = await startJob(client, { task: 'count', workspace: process.cwd(), taskQueue });",
        'const result: TurnResult = await job.result();',
        'const audit = await readAudit(client, job.workflowId);',
        "console.log(JSON.stringify({ answer: result.answer, tools: audit.flatMap((r) => (r.type === 'tool_call' ? [r.name] : [])) }));",
        'worker.shutdown();',
        'await running;',
        'await client.connection.close();',
      ].join('\n'),
    };
    mkdirSync(app);
    for (const [f, text] of Object.entries(files)) writeFileSync(path.join(app, f), text);
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        path.join(dir, tarball),
        'typescript@5',
        '@types/node@20',
      ],
      { cwd: app, timeout: 300_000 },
    );
    const tsc = path.join(app, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', app], { cwd: app }).catch((e: { stdout: string }) =>
      assert.fail(`tsc failed:\n${e.stdout}`),
    );
    const r = await runProgram(['out/main.js'], { cwd: app, handler: wordCountScript });
    assert.deepEqual(JSON.parse(r.stdout), { answer: 'It has 6 words.', tools: ['word_count'] });
  });
});
