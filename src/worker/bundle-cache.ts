import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { cacheDir } from '../config.js';
import { CODE_EXT, CODE_ROOT } from '../paths.js';
import { bundleWorkflows } from './bundle.js';
import { TRACING_WORKFLOW_MODULE } from './tracing.js';

const SOURCES = ['workflows', 'src/workflow-safe'];

function hashSources(): string {
  const h = createHash('sha256');
  h.update(readFileSync(createRequire(import.meta.url).resolve('@temporalio/workflow/package.json')));
  for (const dir of SOURCES) {
    for (const f of readdirSync(path.join(CODE_ROOT, dir), { recursive: true, encoding: 'utf8' }).sort()) {
      if (f.endsWith(CODE_EXT)) h.update(f).update(readFileSync(path.join(CODE_ROOT, dir, f)));
    }
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * A bundle of our workflows for the current code, built once and reused from the user's cache;
 * `traced` includes the OpenTelemetry workflow interceptors.
 */
export async function cachedWorkflowBundle(o: { traced?: boolean } = {}): Promise<string> {
  const dir = path.join(cacheDir(), 'bundles');
  const file = path.join(dir, `workflows-${hashSources()}${o.traced ? '-traced' : ''}.js`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await bundleWorkflows(tmp, o.traced ? [TRACING_WORKFLOW_MODULE] : []);
  renameSync(tmp, file); // atomic: two workers starting at once never read half a bundle
  return file;
}
