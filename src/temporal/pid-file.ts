import { readFileSync, rmSync, writeFileSync } from 'node:fs';

export function writePid(file: string, pid: number): void {
  writeFileSync(file, `${pid}\n`);
}

/** The pid recorded in `file` if that process still runs; removes a stale file. */
export function livePid(file: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(file, 'utf8').trim());
  } catch {
    return undefined;
  }
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    rmSync(file, { force: true });
    return undefined;
  }
}
