/** Polls `fn` until it returns something truthy (errors count as not yet); fails after `ms`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | false | null>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what}`);
}
