import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataDir } from '../config.js';
import { bundleWorkflows } from './bundle.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = ['workflows', 'src/workflow-safe'];

function hashSources(): string {
  const h = createHash('sha256');
  h.update(readFileSync(path.join(ROOT, 'node_modules/@temporalio/workflow/package.json')));
  for (const dir of SOURCES) {
    for (const f of readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).sort()) {
      const p = path.join(ROOT, dir, f);
      if (f.endsWith('.ts')) h.update(f).update(readFileSync(p));
    }
  }
  return h.digest('hex').slice(0, 16);
}

/** A workflow bundle for the current source, built once and reused from the data folder. */
export async function cachedWorkflowBundle(): Promise<string> {
  const dir = path.join(dataDir(), 'bundles');
  const file = path.join(dir, `workflows-${hashSources()}.js`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  return bundleWorkflows(file);
}
