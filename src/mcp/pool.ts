import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from '../tools/define-tool.js';
import type { McpServerConfig } from './config.js';
import { mcpToolDefinition, type McpCallResult, type McpTool } from './tools.js';

interface Connection {
  client: Client;
  tools: McpTool[];
}

/**
 * A worker's MCP servers: one connection each, opened at start, opened again when the server
 * died (on the next call), and its tool list read again when the server says it changed.
 */
export class McpPool {
  readonly #conns = new Map<string, Promise<Connection>>();
  readonly #listeners: Array<(server: string, tools: ToolDefinition[]) => void> = [];

  constructor(
    readonly servers: McpServerConfig[],
    private readonly log: (m: string) => void = () => {},
  ) {}

  /** Connects to every server and reads its tools; a server that cannot be reached fails the start. */
  async start(): Promise<void> {
    await Promise.all(this.servers.map((s) => this.#connection(s.name)));
  }

  /** Every server's tools, as ours. */
  async tools(): Promise<ToolDefinition[]> {
    const out: ToolDefinition[] = [];
    for (const s of this.servers) out.push(...this.#definitions(s.name, (await this.#connection(s.name)).tools));
    return out;
  }

  /** Called with a server's new tools whenever its list changes (or it came back with another list). */
  onToolsChanged(fn: (server: string, tools: ToolDefinition[]) => void): void {
    this.#listeners.push(fn);
  }

  async call(server: string, tool: string, args: unknown, signal: AbortSignal): Promise<McpCallResult> {
    const once = async () =>
      (await this.#connection(server)).client.callTool(
        { name: tool, arguments: (args ?? {}) as Record<string, unknown> },
        undefined,
        { signal, timeout: 115_000 },
      ) as Promise<McpCallResult>;
    try {
      return await once();
    } catch (err) {
      if (signal.aborted || !this.#isDisconnect(err)) throw err;
      // The server went away: connect again (starting it again, for stdio) and try once more.
      this.log(`MCP server '${server}' disconnected (${(err as Error).message}); reconnecting`);
      this.#conns.delete(server);
      return once();
    }
  }

  async close(): Promise<void> {
    const conns = [...this.#conns.values()];
    this.#conns.clear();
    await Promise.allSettled(conns.map(async (c) => (await c).client.close()));
  }

  #isDisconnect(err: unknown): boolean {
    const m = String((err as Error)?.message ?? err);
    return /closed|not connected|ECONNREFUSED|EPIPE|terminated|fetch failed/i.test(m);
  }

  #definitions(server: string, tools: McpTool[]): ToolDefinition[] {
    return tools.map((t) => mcpToolDefinition(server, t, (s, n, a, sig) => this.call(s, n, a, sig)));
  }

  #connection(name: string): Promise<Connection> {
    let c = this.#conns.get(name);
    if (!c) {
      c = this.#connect(name);
      this.#conns.set(name, c);
      c.catch(() => this.#conns.delete(name));
    }
    return c;
  }

  async #connect(name: string): Promise<Connection> {
    const cfg = this.servers.find((s) => s.name === name);
    if (!cfg) throw new Error(`No MCP server '${name}' is configured.`);
    const client = new Client({ name: 'durable-agent', version: '0.1.0' });
    const transport =
      'url' in cfg
        ? new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers: cfg.headers ?? {} } })
        : new StdioClientTransport({
            command: cfg.command,
            args: cfg.args ?? [],
            ...(cfg.env ? { env: { ...(process.env as Record<string, string>), ...cfg.env } } : {}),
            ...(cfg.cwd ? { cwd: cfg.cwd } : {}),
            stderr: 'ignore',
          });
    try {
      await client.connect(transport);
    } catch (err) {
      throw new Error(`Cannot connect to MCP server '${name}': ${(err as Error).message}`, { cause: err });
    }
    const conn: Connection = { client, tools: (await client.listTools()).tools as McpTool[] };
    client.onclose = () => {
      // The next call connects again.
      if (this.#conns.get(name)) this.#conns.delete(name);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      conn.tools = (await client.listTools()).tools as McpTool[];
      this.log(`MCP server '${name}' changed its tools: ${conn.tools.map((t) => t.name).join(', ')}`);
      const defs = this.#definitions(name, conn.tools);
      for (const fn of this.#listeners) fn(name, defs);
    });
    return conn;
  }
}
