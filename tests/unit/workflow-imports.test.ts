import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The import-rule messages lint gives `code` as if it stood in `file`. */
async function importProblems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-globals')
    .map((m) => m.message.split(' import is restricted')[0]!.split("'")[1] ?? m.message);
}

describe('the determinism boundary, held by lint', () => {
  it('workflow code may import only @temporalio/workflow, src/workflow-safe and activity types', async () => {
    const code = [
      "import fs from 'node:fs';",
      "import { readFile } from 'fs/promises';",
      "import OpenAI from 'openai';",
      "import { Client } from '@temporalio/client';",
      "import { evaluate } from '../src/tools/builtins/arithmetic.js';",
      "import type { Activities } from '../activities/index.js';",
      "import { schedule } from '../src/workflow-safe/schedule.js';",
      "import { condition } from '@temporalio/workflow';",
      'export const all = [fs, readFile, OpenAI, Client, evaluate, schedule, condition] as unknown as Activities;',
    ].join('\n');
    assert.deepEqual(await importProblems('workflows/agent-turn.ts', code), [
      'node:fs',
      'fs/promises',
      'openai',
      '@temporalio/client',
      '../src/tools/builtins/arithmetic.js',
    ]);
  });

  it('src/workflow-safe imports only its own files, and no Node globals', async () => {
    const code =
      "import { z } from '../tools/registry.js';\nimport { preview } from './preview.js';\nexport const x = [z, preview, process.env];";
    assert.deepEqual(await importProblems('src/workflow-safe/preview.ts', code), ['../tools/registry.js', 'process']);
  });

  it('nothing in src/ or activities/ imports workflows/ (dependencies point down)', async () => {
    const code = "import { agentTurn } from '../../workflows/agent-turn.js';\nexport const x = agentTurn;";
    assert.deepEqual(await importProblems('src/cli/main.ts', code), ['../../workflows/agent-turn.js']);
    assert.deepEqual(await importProblems('activities/call-model.ts', code.replace('../../', '../')), [
      '../workflows/agent-turn.js',
    ]);
  });

  it('the tree as it is passes', async () => {
    const results = await eslint.lintFiles(['workflows', 'src/workflow-safe', 'src/cli', 'activities']);
    const problems = results.flatMap((r) =>
      r.messages
        .filter((m) => m.ruleId?.startsWith('no-restricted'))
        .map((m) => `${path.relative(root, r.filePath)}: ${m.message}`),
    );
    assert.deepEqual(problems, []);
  });
});
