import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { readAudit } from '../../src/client/audit.js';
import type { ToolCallRecord } from '../../src/audit/schema.js';
import { decideUpdate, pendingApprovalsQuery } from '../../src/workflow-safe/messages.js';
import { startHarness, tempDir } from '../helpers/harness.js';
import { until } from '../helpers/wait.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/mcp/server.mjs', import.meta.url));
const FILESYSTEM = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

/** A Streamable HTTP MCP server of the test's own, stateless (a server and transport per request). */
async function httpServer() {
  const http = createServer(async (req, res) => {
    const server = new McpServer({ name: 'web', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: 'Echo a text.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
      async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
    );
    const transport = new StreamableHTTPServerTransport({});
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.method === 'POST' ? await body(req) : undefined);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, close: () => http.close() };
}

const toolMessages = (messages: Array<{ role: string; content?: unknown }>) =>
  messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

describe('tools from MCP servers', () => {
  it('a real filesystem server over stdio, an HTTP server and a fixture: annotations decide how calls run; reconnect; a changed tool list', async () => {
    const dir = tempDir('dagent-mcp-');
    writeFileSync(path.join(dir, 'a.txt'), 'from the filesystem server');
    const web = await httpServer();
    let killed = 0;
    const h = await startHarness({
      mcpServers: [
        { name: 'fs', command: process.execPath, args: [FILESYSTEM, dir] },
        { name: 'fx', command: process.execPath, args: [FIXTURE] },
        { name: 'web', url: web.url },
      ],
      handler: ({ step, body: b }) => {
        const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });
        switch (step) {
          case 0:
            return {
              reply: {
                toolCalls: [
                  call('fs__read_text_file', { path: path.join(dir, 'a.txt') }),
                  call('web__echo', { text: 'hi' }),
                  call('fx__lookup', { key: 'k' }),
                ],
              },
            };
          case 1:
            return {
              reply: { toolCalls: [call('fs__write_file', { path: path.join(dir, 'b.txt'), content: 'approved' })] },
            };
          case 2:
            return { reply: { toolCalls: [call('fx__pid', {})] } };
          case 3: {
            // The fixture server dies between two steps: the next call connects again.
            const pid = Number(toolMessages(b.messages).at(-1));
            if (!killed) {
              process.kill(pid, 'SIGKILL');
              killed = pid;
            }
            return { reply: { toolCalls: [call('fx__lookup', { key: 'again' })] } };
          }
          case 4:
            return { reply: { toolCalls: [call('fx__grow', {})] } };
          case 5:
            return { reply: { toolCalls: [call('fx__late_tool', { n: 21 })] } };
          default:
            return { reply: { content: 'done' } };
        }
      },
    });
    try {
      const handle = await h.start({ workspace: dir, maxSteps: 10 });
      // fs__write_file is destructive: it waits for a person, under the policy's default rule.
      const [pending] = await until('the destructive write to wait', async () => {
        const p = await handle.query(pendingApprovalsQuery);
        return p.length === 1 && p;
      });
      assert.equal(pending!.name, 'fs__write_file');
      assert.equal(pending!.policy?.rule, 'default:tool-needs-approval');
      await handle.executeUpdate(decideUpdate, {
        args: [{ callId: pending!.callId, approve: true, by: 'ana', argsHash: pending!.argsHash }],
      });
      const r = await handle.result();
      assert.equal(r.answer, 'done');
      assert.equal(readFileSync(path.join(dir, 'b.txt'), 'utf8'), 'approved');

      const results = toolMessages(h.model.requests.at(-1)!.body.messages);
      assert.equal(results[0], 'from the filesystem server');
      assert.equal(results[1], 'echo: hi');
      assert.match(results[2]!, /^value of k \(pid \d+\)$/);
      assert.match(
        results[5]!,
        new RegExp(`^value of again \\(pid (?!${killed}\\))\\d+\\)$`),
        'served by a new server process',
      );
      assert.equal(results[6], 'added late_tool');
      assert.equal(results[7], 'late 42');
      // The changed list reached the model: late_tool is offered after grow, not before.
      const offered = (n: number) =>
        (h.model.requests.filter((q) => q.status === 200)[n]!.body.tools ?? []).map((t) => t.function.name);
      assert.ok(!offered(0).includes('fx__late_tool'));
      assert.ok(offered(5).includes('fx__late_tool'));

      // In the audit like any call: reads fanned out, the write approved.
      const calls = (await readAudit(h.client, handle.workflowId)).filter(
        (x): x is ToolCallRecord => x.type === 'tool_call',
      );
      const byName = new Map(calls.map((c) => [c.name, c]));
      assert.equal(byName.get('fs__read_text_file')!.effect, 'read');
      assert.equal(byName.get('web__echo')!.effect, 'read');
      assert.equal(byName.get('fs__write_file')!.effect, 'write');
      assert.equal(byName.get('fs__write_file')!.approval?.by, 'ana');
      assert.equal(byName.get('fx__grow')!.idempotent, false, 'no annotations: a write that runs once');
    } finally {
      await h.close();
      web.close();
    }
  });
});
