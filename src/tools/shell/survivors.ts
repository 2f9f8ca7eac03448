import { readdir, readFile } from 'node:fs/promises';

/** The variable every process a shell call starts inherits, so that its survivors can be found. */
export const CALL_MARK = 'DAGENT_SHELL_CALL';

/**
 * Kills every process still carrying this call's mark: children that left the process group
 * (`setsid`, `nohup … &`) outlive a group kill, but not this. Returns how many were killed.
 */
export async function killMarked(mark: string): Promise<number> {
  const needle = Buffer.from(`\0${CALL_MARK}=${mark}\0`);
  let killed = 0;
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((p) => /^\d+$/.test(p));
  await Promise.all(
    pids.map(async (pid) => {
      const env = await readFile(`/proc/${pid}/environ`).catch(() => null);
      if (!env || !Buffer.concat([Buffer.from([0]), env]).includes(needle)) return;
      try {
        process.kill(Number(pid), 'SIGKILL');
        killed++;
      } catch {
        /* gone already */
      }
    }),
  );
  return killed;
}

/** Kills a process group, quietly when it is gone. */
export function killGroup(pgid: number | undefined): void {
  if (!pgid) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}
