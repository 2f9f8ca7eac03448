import path from 'node:path';
import { Option, type Command } from 'commander';
import { dataDir } from '../../config.js';
import {
  clusterDown,
  clusterStatus,
  clusterUp,
  CONTENT_DB,
  contentStoreUrl,
  SERVER_VERSION,
} from '../../temporal/cluster.js';
import { handler } from '../plumbing/command.js';
import { portNumber } from '../plumbing/options.js';
import { note, out } from '../plumbing/output.js';

interface ClusterFlags {
  dir?: string;
  port: number;
  pgPort: number;
  listen?: string;
}

const options = (c: Command) =>
  c
    .option('--dir <dir>', 'where its data lives (default: $DAGENT_HOME/cluster)')
    .addOption(
      new Option('--port <n>', "the frontend's gRPC port (the next 3 are used too)")
        .argParser(portNumber)
        .default(7300),
    )
    .addOption(new Option('--pg-port <n>', "PostgreSQL's port").argParser(portNumber).default(5433))
    .option(
      '--listen <ip>',
      'another address of this machine for other hosts (PostgreSQL trusts its /24; the server listens on every address)',
    );

const dirOf = (o: ClusterFlags) => path.resolve(o.dir ?? path.join(dataDir(), 'cluster'));

/** `dagent cluster up|down|status`: Temporal on PostgreSQL on this machine, production-shaped. */
export function registerCluster(program: Command): void {
  const cluster = program
    .command('cluster')
    .summary('a Temporal server on PostgreSQL on this machine (no Docker)')
    .description(
      `temporal-server ${SERVER_VERSION} (built with Go the first time) on PostgreSQL (Debian's), its schemas created and migrated by Temporal's SQL tool. Everything else works against it: TEMPORAL_ADDRESS=127.0.0.1:PORT.`,
    );
  options(cluster.command('up').summary('start PostgreSQL and the server; print TEMPORAL_ADDRESS')).action(
    handler(async (o: ClusterFlags) => {
      const address = await clusterUp({
        dir: dirOf(o),
        port: o.port,
        pgPort: o.pgPort,
        ...(o.listen ? { listen: o.listen } : {}),
        log: note,
      });
      note(`Temporal on PostgreSQL: ${address}; the content store in its database ${CONTENT_DB}. Use them with:`);
      out(`export TEMPORAL_ADDRESS=${address}`);
      out(`export DAGENT_CONTENT_URL=${contentStoreUrl('127.0.0.1', o.pgPort)}`);
      if (o.listen) {
        note(`From other hosts:`);
        out(`export TEMPORAL_ADDRESS=${o.listen}:${o.port}`);
        out(`export DAGENT_CONTENT_URL=${contentStoreUrl(o.listen, o.pgPort)}`);
      }
      return 0;
    }),
  );
  options(cluster.command('down').summary('stop the server and PostgreSQL (the data stays)')).action(
    handler(async (o: ClusterFlags) => {
      await clusterDown({ dir: dirOf(o), log: note });
      return 0;
    }),
  );
  options(cluster.command('status').summary('is it running?')).action(
    handler(async (o: ClusterFlags) => {
      const s = await clusterStatus(dirOf(o));
      out(`temporal-server: ${s.server ? `running (pid ${s.server}) on 127.0.0.1:${o.port}` : 'not running'}`);
      out(`PostgreSQL: ${s.postgres ? `running on 127.0.0.1:${o.pgPort}` : 'not running'}`);
      return s.server && s.postgres ? 0 : 1;
    }),
  );
}
