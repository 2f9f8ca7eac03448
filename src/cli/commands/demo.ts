import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { dataDir } from '../../config.js';
import { loadScenario } from '../../scripted-model/scenario.js';
import { DEMO_SCENARIO } from '../../worker/model-setup.js';
import { note } from '../output.js';
import { newJobId, startJob } from './run.js';

const DEMO_WORKSPACE = fileURLToPath(new URL('../../../demo/workspace', import.meta.url));

/** `npm start`: the recorded demo scenario on a fresh copy of the sample workspace, offline. */
export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean', default: false } } });
  const scenario = await loadScenario(DEMO_SCENARIO);
  const workspace = path.join(dataDir(), 'demo-workspace');
  rmSync(workspace, { recursive: true, force: true });
  cpSync(DEMO_WORKSPACE, workspace, { recursive: true });
  if (!values.json) note(`Demo workspace: ${workspace}\nTask: ${scenario.task}\n`);
  const jobId = newJobId('demo');
  const { code, temporal } = await startJob({
    input: { task: scenario.task ?? 'Run the demo.', workspace },
    jobId,
    detach: false,
    json: values.json,
    offlineQueue: 'dagent-demo',
  });
  if (!values.json) {
    note(`\nThe file it wrote: ${path.join(workspace, 'STATUS.md')}`);
    if (temporal.uiUrl) {
      note(`Every model call and tool call of this job, in Temporal's Web UI:\n  ${temporal.uiUrl}/namespaces/${temporal.config.namespace}/workflows/${jobId}`);
      note('The embedded Temporal server keeps running in the background; stop it with `npx dagent down`.');
    }
  }
  await temporal.close();
  return code;
}
