import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../paths.js';

/** Bundles workflow code (the bundler refuses Node built-ins in workflow code). */
export async function workflowBundleCode(
  workflowsPath = WORKFLOWS_PATH,
  workflowInterceptorModules: string[] = [],
): Promise<string> {
  return (await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger: quietLogger })).code;
}

/** Bundles our workflow code (with these interceptor modules) into a file. */
export async function bundleWorkflows(outFile: string, interceptorModules: string[] = []): Promise<string> {
  await writeFile(outFile, await workflowBundleCode(WORKFLOWS_PATH, interceptorModules));
  return outFile;
}

const noop = () => {};
const quietLogger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: (m: string) => console.error(m),
  log: noop,
};
