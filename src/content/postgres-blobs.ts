import pg from 'pg';
import type { BlobBackend } from './store.js';

// The content store in PostgreSQL (DAGENT_CONTENT_URL): one table of blobs by hash, which every
// host reaches (the cluster's own database server serves it). Blobs are bytes (a text may hold
// NUL, which PostgreSQL's text type refuses). A restart of the database is waited out: calls retry
// while it comes back, so a tool call that already ran is not failed by the store.

/** How long an operation keeps trying while the database cannot be reached. */
const RETRY_FOR_MS = 120_000;

const TABLE = `CREATE TABLE IF NOT EXISTS dagent_blobs (
  hash text PRIMARY KEY,
  body bytea NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now()
)`;

/** Errors of a database that is restarting or unreachable (the operation is tried again). */
function transient(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (
    e.code &&
    /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|57P0[123]|08\w{3}|53300)$/.test(e.code)
  )
    return true;
  return /Connection terminated|terminating connection|the database system is (starting up|shutting down)/i.test(
    e.message ?? '',
  );
}

export class PostgresBlobs implements BlobBackend {
  readonly setting = 'DAGENT_CONTENT_URL';
  readonly where: string;
  readonly #pool: pg.Pool;
  #ready: Promise<void> | null = null;

  constructor(url: string, o: { max?: number } = {}) {
    // Never print the password: the place is the host, port and database.
    const u = new URL(url);
    this.where = `PostgreSQL ${u.host}${u.pathname}`;
    this.#pool = new pg.Pool({ connectionString: url, max: o.max ?? 8, allowExitOnIdle: true });
    this.#pool.on('error', () => {}); // an idle client lost in a restart; the next query reconnects
  }

  async #query<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<pg.QueryResult<R>> {
    const until = Date.now() + RETRY_FOR_MS;
    for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
      try {
        this.#ready ??= this.#pool.query(TABLE).then(
          () => undefined,
          (err: { code?: string }) => {
            // Two hosts creating the table at once: one of them loses the race, and the table exists.
            if (err.code !== '23505' && err.code !== '42P07') {
              this.#ready = null;
              throw err;
            }
          },
        );
        await this.#ready;
        return await this.#pool.query<R>(sql, params);
      } catch (err) {
        if (!transient(err) || Date.now() > until) throw err;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  async write(hash: string, text: string): Promise<void> {
    await this.#query('INSERT INTO dagent_blobs (hash, body) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING', [
      hash,
      Buffer.from(text, 'utf8'),
    ]);
  }

  async read(hash: string): Promise<string | null> {
    const r = await this.#query<{ body: Buffer }>('SELECT body FROM dagent_blobs WHERE hash = $1', [hash]);
    return r.rows[0] ? r.rows[0].body.toString('utf8') : null;
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
