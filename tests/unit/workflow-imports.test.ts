import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Folders whose code runs inside Temporal's deterministic workflow sandbox. */
const SANDBOXED = ['workflows', 'src/workflow-safe'];
const ALLOWED_PACKAGES = ['@temporalio/workflow'];

/** Value imports of `file` that would pull Node-specific or I/O code into the workflow sandbox. */
export function forbiddenImports(file: string, source: string): string[] {
  const bad: string[] = [];
  for (const m of source.matchAll(/^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)) {
    if (m[2]) continue; // `import type` is erased
    const spec = (m[3] ?? m[4] ?? m[5])!;
    if (spec.startsWith('.')) {
      const target = path.relative(root, path.resolve(path.dirname(file), spec));
      if (!SANDBOXED.some((d) => target.startsWith(`${d}/`))) bad.push(`${spec} (leaves the sandboxed folders)`);
    } else if (!ALLOWED_PACKAGES.includes(spec)) bad.push(spec);
  }
  return bad;
}

describe('workflow code', () => {
  it('imports nothing Node-specific: only @temporalio/workflow and sandboxed files', () => {
    const files = SANDBOXED.flatMap((d) =>
      readdirSync(path.join(root, d), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => path.join(root, d, f)),
    );
    assert.ok(files.length >= 5);
    const problems = files.flatMap((f) => forbiddenImports(f, readFileSync(f, 'utf8')).map((b) => `${path.relative(root, f)}: ${b}`));
    assert.deepEqual(problems, []);
  });

  it('the check catches Node built-ins, I/O packages and escapes', () => {
    const f = path.join(root, 'workflows/x.ts');
    const src = [
      "import fs from 'node:fs';",
      "import { readFile } from 'fs/promises';",
      "import OpenAI from 'openai';",
      "import { evaluate } from '../src/tools/builtins/arithmetic.js';",
      "import type { Activities } from '../activities/index.js';",
      "import { schedule } from '../src/workflow-safe/schedule.js';",
      "const m = await import('node:child_process');",
    ].join('\n');
    assert.deepEqual(forbiddenImports(f, src), ['node:fs', 'fs/promises', 'openai', '../src/tools/builtins/arithmetic.js (leaves the sandboxed folders)', 'node:child_process']);
  });
});
