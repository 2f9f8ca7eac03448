import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/** Bundles the workflow code once (the bundler refuses Node built-ins in workflow code). */
export async function bundleWorkflows(outFile: string): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger });
  await writeFile(outFile, code);
  return outFile;
}

const noop = () => {};
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => console.error(m), log: noop };
