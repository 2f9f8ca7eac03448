import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { newJobId } from '../../client/start-job.js';
import { dataDir } from '../../config.js';
import { DEMO_DIR } from '../../paths.js';
import { loadScenario } from '../../scripted-model/scenario.js';
import { DEMO_SCENARIO } from '../../worker/model-setup.js';
import { handler } from '../plumbing/command.js';
import { jsonOption } from '../plumbing/options.js';
import { note } from '../plumbing/output.js';
import { runJob } from '../plumbing/run-job.js';

/** `dagent demo` (`npm start`): the recorded demo scenario on a fresh copy of the sample workspace, offline. */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .summary('the offline demo (npm start)')
    .addOption(jsonOption())
    .action(
      handler(async (o: { json: boolean }) => {
        const scenario = await loadScenario(DEMO_SCENARIO);
        const workspace = path.join(dataDir(), 'demo-workspace');
        rmSync(workspace, { recursive: true, force: true });
        cpSync(path.join(DEMO_DIR, 'workspace'), workspace, { recursive: true });
        if (!o.json) note(`Demo workspace: ${workspace}\nTask: ${scenario.task}\n`);
        const jobId = newJobId('demo');
        const { code, temporal } = await runJob({
          input: { task: scenario.task ?? 'Run the demo.', workspace },
          jobId,
          detach: false,
          json: o.json,
          offlineQueue: 'dagent-demo',
        });
        if (!o.json) {
          note(`\nThe file it wrote: ${path.join(workspace, 'STATUS.md')}`);
          if (temporal.uiUrl) {
            note(
              `Every model call and tool call of this job, in Temporal's Web UI:\n  ${temporal.uiUrl}/namespaces/${temporal.config.namespace}/workflows/${jobId}`,
            );
            note('The embedded Temporal server keeps running in the background; stop it with `npx dagent down`.');
          }
        }
        await temporal.close();
        return code;
      }),
    );
}
