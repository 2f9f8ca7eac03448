import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { spawnDevServer, waitForServer } from './dev-server.js';
import { locateTemporalCli } from './locate-cli.js';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A throwaway dev server (in memory, headless, free port) for a test or benchmark run. */
export async function startEphemeralServer(
  logDir: string,
  log: (l: string) => void,
  o: { tuned?: boolean } = {},
): Promise<{ address: string; logFile: string; stop(): Promise<void> }> {
  const cliPath = await locateTemporalCli(log);
  // A free port can be taken by another process before the server binds it: try another one.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const logFile = path.join(logDir, `server-${port}.log`);
    log(`Temporal dev server ${cliPath} on ${address}…`);
    const server = spawnDevServer({ cliPath, port, logFile, ...(o.tuned === false ? { tuned: false } : {}) });
    const stop = async () => {
      if (server.exitCode !== null) return;
      server.kill('SIGTERM');
      await new Promise((r) => server.once('close', r));
    };
    try {
      await waitForServer(address, 60_000, server, logFile);
      return { address, logFile, stop };
    } catch (err) {
      await stop();
      const taken = await readFile(logFile, 'utf8').then(
        (t) => t.includes('address already in use'),
        () => false,
      );
      if (!taken || attempt >= 3) throw err;
      log(`Port ${port} was taken before the server bound it; trying another.`);
    }
  }
}
