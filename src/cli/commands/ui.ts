import { Option, type Command } from 'commander';
import { ContentStore } from '../../content/store.js';
import { startUiServer } from '../../ui/server.js';
import { handler } from '../plumbing/command.js';
import { portNumber } from '../plumbing/options.js';
import { note, out } from '../plumbing/output.js';
import { onInterrupt } from '../plumbing/run-job.js';
import { withTemporal } from '../plumbing/with-temporal.js';

/** `dagent ui`: the jobs and their timelines in a browser, until Ctrl-C. */
export function registerUi(program: Command): void {
  program
    .command('ui')
    .summary('a local page: recent jobs, and each job’s timeline')
    .description(
      'Serves a page with recent jobs (search by status, tool, file written) and, for one job, its timeline: steps, parallel calls as lanes, lock waits and grants, approvals, retries, rejected and denied calls. Drawn from the same records as `dagent audit --json`; a running job’s page follows it. Needs the Temporal server, not a worker. Runs until Ctrl-C.',
    )
    .addOption(new Option('--port <n>', 'port to listen on').argParser(portNumber).default(7400))
    .option('--host <host>', 'address to listen on (the page shows every audit: keep it on loopback)', '127.0.0.1')
    .action(
      handler((o: { port: number; host: string }) =>
        withTemporal(async (t) => {
          const ui = await startUiServer({ client: t.client, store: new ContentStore(), port: o.port, host: o.host });
          out(`dagent ui: ${ui.url}`);
          note('Ctrl-C stops it.');
          const { interrupted, dispose } = onInterrupt();
          await interrupted;
          dispose();
          await ui.close();
          return 0;
        }),
      ),
    );
}
