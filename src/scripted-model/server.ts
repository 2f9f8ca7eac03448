import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Fault, type ScenarioInput, type ScenarioStep, type Scenario, stepSchema } from './scenario.js';
import { streamChunks } from './stream.js';

/** The JSON body of a chat completion request, as far as the scripted server reads it. */
export interface ChatRequestBody {
  model: string;
  messages: Array<{
    role: string;
    content?: unknown;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ function: { name: string } }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

export interface RecordedRequest {
  at: number;
  /** 0-based step: the number of assistant messages already in the conversation. */
  step: number;
  /** 0-based attempt at this step of this conversation. */
  attempt: number;
  conversation: string;
  body: ChatRequestBody;
  /** The HTTP status answered; -1 when a scripted fault broke the stream off. */
  status: number;
}

/** Decides a step programmatically instead of from a scenario file. */
export type ScriptHandler = (ctx: {
  body: ChatRequestBody;
  step: number;
  conversation: string;
}) => ScenarioInput['steps'][number];

export interface ScriptedModelOptions {
  scenario?: Scenario;
  handler?: ScriptHandler;
  port?: number;
  host?: string;
  /** Append one JSON line per request here (survives the process, for crash tests). */
  ledgerFile?: string;
}

export interface ScriptedModel {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

function conversationKey(body: ChatRequestBody): string {
  const firstUser = body.messages.find((m) => m.role === 'user');
  return createHash('sha256')
    .update(JSON.stringify(firstUser?.content ?? ''))
    .digest('hex')
    .slice(0, 12);
}

function sendJson(res: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(data));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An OpenAI-compatible chat completions server that plays a scenario over real HTTP: each
 * request answers the step given by how many assistant messages the conversation holds, so
 * a retried or replayed request gets the same reply. Faults scripted for a step are served
 * first, one per attempt. Every request is recorded for tests to inspect.
 */
export async function startScriptedModel(opts: ScriptedModelOptions): Promise<ScriptedModel> {
  if (!opts.scenario && !opts.handler) throw new Error('startScriptedModel needs a scenario or a handler');
  const requests: RecordedRequest[] = [];
  const attempts = new Map<string, number>();

  const stepFor = (body: ChatRequestBody, step: number, conversation: string): ScenarioStep | string => {
    if (opts.handler) return stepSchema.parse(opts.handler({ body, step, conversation }));
    const s = opts.scenario!.steps[step];
    return (
      s ??
      `scenario '${opts.scenario!.name}' has ${opts.scenario!.steps.length} steps; the conversation asks for step ${step + 1}`
    );
  };

  const serveFault = async (res: ServerResponse, fault: Fault): Promise<number> => {
    if (fault.delayMs) await sleep(fault.delayMs);
    const status = fault.status ?? 200;
    const headers: Record<string, string> = {};
    if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
    if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
    if (fault.shouldRetry !== undefined) headers['x-should-retry'] = String(fault.shouldRetry);
    if (fault.body !== undefined) {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(fault.body);
    } else {
      sendJson(
        res,
        status,
        {
          error: {
            message: fault.message ?? `scripted fault: HTTP ${status}`,
            type: fault.code ?? 'scripted_fault',
            code: fault.code ?? status,
          },
        },
        headers,
      );
    }
    return status;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: opts.scenario?.name ?? 'scripted', object: 'model', owned_by: 'durable-agent' }],
      });
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${url.pathname}`, type: 'not_found' } });
    }
    let body: ChatRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as ChatRequestBody;
      if (!Array.isArray(body.messages)) throw new Error('messages must be an array');
    } catch (err) {
      return sendJson(res, 400, {
        error: { message: `bad request body: ${(err as Error).message}`, type: 'invalid_request_error' },
      });
    }
    const step = body.messages.filter((m) => m.role === 'assistant').length;
    const conversation = conversationKey(body);
    const key = `${conversation}/${step}`;
    const attempt = attempts.get(key) ?? 0;
    attempts.set(key, attempt + 1);
    const record: RecordedRequest = { at: Date.now(), step, attempt, conversation, body, status: 0 };
    requests.push(record);
    if (opts.ledgerFile)
      appendFileSync(
        opts.ledgerFile,
        `${JSON.stringify({ at: record.at, conversation, step, attempt, task: body.messages.find((m) => m.role === 'user')?.content })}\n`,
      );

    const plan = stepFor(body, step, conversation);
    if (typeof plan === 'string') {
      record.status = 400;
      return sendJson(res, 400, { error: { message: plan, type: 'invalid_request_error' } });
    }
    const fault = plan.faults[attempt];
    const streamFault = fault && (fault.streamCut || fault.streamStallMs !== undefined) ? fault : undefined;
    if (fault && !streamFault) {
      record.status = await serveFault(res, fault);
      return;
    }
    if (plan.delayMs) await sleep(plan.delayMs);
    const calls = plan.reply.toolCalls.map((c, i) => ({
      id: c.id ?? `call_${step + 1}_${i + 1}`,
      type: 'function' as const,
      function: {
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
      },
    }));
    const finish = plan.reply.finishReason ?? (calls.length ? 'tool_calls' : 'stop');
    const promptTokens = estimateTokens(JSON.stringify(body.messages));
    const completionTokens = estimateTokens((plan.reply.content ?? '') + JSON.stringify(calls));
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
    const id = `chatcmpl-scripted-${conversation}-${step + 1}`;
    const model = body.model;
    record.status = 200;
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunks = streamChunks({
        id,
        model,
        content: plan.reply.content,
        calls,
        finish,
        usage: body.stream_options?.include_usage ? usage : undefined,
      });
      const breakAt = streamFault ? Math.floor(chunks.length / 2) : chunks.length;
      for (const [i, chunk] of chunks.entries()) {
        if (i === breakAt && streamFault?.streamCut) {
          record.status = -1;
          res.destroy();
          return;
        }
        if (i === breakAt && streamFault?.streamStallMs !== undefined) await sleep(streamFault.streamStallMs);
        if (res.destroyed) return;
        if (i > 0 && plan.chunkDelayMs) await sleep(plan.chunkDelayMs);
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      }
      res.end('data: [DONE]\n\n');
      return;
    }
    if (streamFault) {
      record.status = -1;
      res.destroy();
      return;
    }
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: plan.reply.content,
            ...(calls.length ? { tool_calls: calls } : {}),
            refusal: null,
          },
          finish_reason: finish,
          logprobs: null,
        },
      ],
      usage,
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent)
        sendJson(res, 500, {
          error: { message: `scripted server error: ${(err as Error).message}`, type: 'server_error' },
        });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
