/**
 * One provider's quota, shared by every job on this worker: after a quota error (the provider
 * says the account has no credit left), the next calls to that provider are not sent for a
 * while — each job pauses at once with the same reason instead of spending a request to learn it.
 * A call made right after `dagent resume` is sent anyway (someone says the quota is back), and a
 * call that succeeds closes the breaker.
 */
export class QuotaBreaker {
  readonly #open = new Map<string, { since: number; until: number; message: string }>();

  constructor(readonly coolDownMs = 10 * 60_000) {}

  /** Why calls to `provider` are held back now, or null. */
  check(provider: string, now = Date.now()): string | null {
    const o = this.#open.get(provider);
    if (!o) return null;
    if (now >= o.until) {
      this.#open.delete(provider);
      return null;
    }
    return `not sent: ${provider} reported its quota used up ${Math.round((now - o.since) / 1000)} s ago (${o.message}); calls to it wait for \`dagent resume\` until ${new Date(o.until).toISOString()}`;
  }

  trip(provider: string, message: string, now = Date.now()): void {
    this.#open.set(provider, { since: now, until: now + this.coolDownMs, message });
  }

  close(provider: string): void {
    this.#open.delete(provider);
  }
}
