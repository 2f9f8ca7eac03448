import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Records a background process: its pid, and what it serves (for a worker: address and task queue). */
export function writePid(file: string, pid: number, about: Record<string, string> = {}): void {
  writeFileSync(file, `${pid}\n${JSON.stringify(about)}\n`);
}

function read(file: string): { pid: number; about: Record<string, string> } | undefined {
  try {
    const [pid, about] = readFileSync(file, 'utf8').split('\n');
    return { pid: Number(pid), about: about ? (JSON.parse(about) as Record<string, string>) : {} };
  } catch {
    return undefined;
  }
}

/** The process recorded in `file` if it still runs; removes a stale file. */
export function liveProcess(file: string): { pid: number; about: Record<string, string> } | undefined {
  const rec = read(file);
  if (!rec) return undefined;
  try {
    process.kill(rec.pid, 0);
    return rec;
  } catch {
    rmSync(file, { force: true });
    return undefined;
  }
}

/** The pid recorded in `file` if that process still runs; removes a stale file. */
export const livePid = (file: string): number | undefined => liveProcess(file)?.pid;
