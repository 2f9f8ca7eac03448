import type { RunnableCall } from './types.js';

type Schedulable = Pick<RunnableCall, 'effect' | 'resources'>;

export interface ScheduleOptions {
  /** Run every write strictly one at a time, whatever its resources. */
  serialWrites?: boolean;
}

const isBarrier = (c: Schedulable) => c.effect === 'write' && c.resources.length === 0;

/** Two calls conflict when one is a barrier, or they share a resource and at least one writes. */
export function conflicts(a: Schedulable, b: Schedulable, opts: ScheduleOptions = {}): boolean {
  if (a.effect === 'read' && b.effect === 'read') return false;
  if (isBarrier(a) || isBarrier(b)) return true;
  if (opts.serialWrites && a.effect === 'write' && b.effect === 'write') return true;
  return a.resources.some((r) => b.resources.includes(r));
}

/**
 * The scheduling DAG, in the model's order: `deps[j]` lists the earlier calls `i < j` that call
 * `j` must wait for. Calls with no conflict run at once.
 */
export function schedule(calls: readonly Schedulable[], opts: ScheduleOptions = {}): number[][] {
  return calls.map((cj, j) => {
    const deps: number[] = [];
    for (let i = 0; i < j; i++) if (conflicts(calls[i]!, cj, opts)) deps.push(i);
    return deps;
  });
}

/**
 * Runs `run(i)` for every node once all its dependencies settled; resolves with the results in
 * node order, whatever order they finished in. A failed dependency does not stop its dependants.
 */
export async function runDag<T>(deps: number[][], run: (i: number) => Promise<T>): Promise<T[]> {
  const done: Promise<T>[] = [];
  deps.forEach((d, i) => {
    done[i] = Promise.allSettled(d.map((j) => done[j]!)).then(() => run(i));
  });
  return Promise.all(done);
}
