import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ContentError, type ContentStore } from '../content/store.js';
import { readAudit } from '../client/audit.js';
import { jobsQuery, listJobs } from '../client/find-jobs.js';
import { JOB_STATUSES, type JobStatus } from '../workflow-safe/job-status.js';
import { PAGE_HTML } from './page-html.js';
import { pageScript } from './page-script.js';

export interface UiServerOptions {
  client: Client;
  store: ContentStore;
  /** 0 picks a free port. */
  port?: number;
  /** Where to listen; loopback unless said otherwise (the page shows every job's audit). */
  host?: string;
}

export interface UiServer {
  url: string;
  close(): Promise<void>;
}

/** A bad request, answered 400 with its message. */
class BadRequest extends Error {}

const GRPC_NOT_FOUND = 5;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_LIMIT = 500;

// The page's script and styles are its own; data is set as text, and nothing else may run.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...SECURITY_HEADERS });
  res.end(body);
}
const sendJson = (res: ServerResponse, status: number, data: unknown) =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(data));

function filtersFrom(q: URLSearchParams) {
  const status = q.get('status') || undefined;
  if (status !== undefined && !(JOB_STATUSES as readonly string[]).includes(status))
    throw new BadRequest(`Unknown status '${status}'; one of: ${JOB_STATUSES.join(', ')}.`);
  const limit = Number(q.get('limit') ?? 100);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new BadRequest(`limit must be a whole number from 1 to ${MAX_LIMIT}.`);
  const tool = q.get('tool') || undefined;
  const wrote = q.get('wrote') || undefined;
  const agent = q.get('agent') || undefined;
  return {
    limit,
    filters: {
      ...(status ? { status: status as JobStatus } : {}),
      ...(tool ? { tool } : {}),
      ...(wrote ? { wrote } : {}),
      ...(agent ? { agent } : {}),
    },
  };
}

/**
 * `dagent ui`: the page, its script, and two JSON routes over what the CLI reads —
 * `/api/jobs` (visibility, as `dagent jobs`) and `/api/jobs/ID/audit` (as `dagent audit --json`).
 * Read-only; it needs Temporal, not a worker.
 */
export async function startUiServer(o: UiServerOptions): Promise<UiServer> {
  const host = o.host ?? '127.0.0.1';
  const allowedHosts = new Set([...LOCAL_HOSTS, host]);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // Another site's page must not read the audit through a name that points here (DNS rebinding).
    const hostHeader = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (!allowedHosts.has(hostHeader)) return sendJson(res, 403, { error: `Host '${hostHeader}' is not served.` });
    if (req.method !== 'GET') return sendJson(res, 405, { error: 'Only GET: the page reads, never changes, jobs.' });
    const url = new URL(req.url ?? '/', 'http://ui');
    if (url.pathname === '/') return send(res, 200, 'text/html; charset=utf-8', PAGE_HTML);
    if (url.pathname === '/app.js') return send(res, 200, 'text/javascript; charset=utf-8', await pageScript());
    if (url.pathname === '/api/jobs') {
      const { filters, limit } = filtersFrom(url.searchParams);
      return sendJson(res, 200, { jobs: await listJobs(o.client, await jobsQuery(filters), limit) });
    }
    const audit = /^\/api\/jobs\/([^/]+)\/audit$/.exec(url.pathname);
    if (audit) {
      const jobId = decodeURIComponent(audit[1]!);
      return sendJson(res, 200, { records: await readAudit(o.client, jobId, o.store) });
    }
    sendJson(res, 404, { error: `Nothing at ${url.pathname}.` });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.end();
      if (err instanceof BadRequest) return sendJson(res, 400, { error: err.message });
      const code = (err as { code?: number; cause?: { code?: number } }).code ?? (err as any)?.cause?.code;
      if (err instanceof WorkflowNotFoundError || code === GRPC_NOT_FOUND)
        return sendJson(res, 404, { error: `No such job: ${(err as Error).message}` });
      if (err instanceof ContentError) return sendJson(res, 500, { error: err.message });
      sendJson(res, 500, { error: `The page's server failed: ${(err as Error).message}` });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
