// Workflows for the floor benchmark: the cost of one server hop, with nothing else in the way.
import { condition, defineSignal, getExternalWorkflowHandle, proxyActivities, setHandler } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '10s' });

/** `n` empty activities one after the other. */
export async function activityLoop(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await noop();
}

export const ball = defineSignal<[number]>('ball');

/** Signals `peer` and waits for its answer, `rounds` times; the peer answers each ball. */
export async function pingPong(peer: string, rounds: number, serve: boolean): Promise<void> {
  let got = 0;
  setHandler(ball, () => void got++);
  for (let i = 0; i < rounds; i++) {
    if (serve) await getExternalWorkflowHandle(peer).signal(ball, i);
    await condition(() => got > i);
    if (!serve) await getExternalWorkflowHandle(peer).signal(ball, i);
  }
}
