import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { ChatMessage, PlannedCall, RejectedCall, ToolFormat, ToolResult } from '../workflow-safe/types.js';
import type { ToolSpec } from '../protocols/types.js';
import { decide, defaultPolicy, type Policy } from '../policy/index.js';
import { MAX_NESTING, nestingDepth } from '../protocols/text/json-scan.js';
import { defineTool, type ToolContext, type ToolDefinition } from './define-tool.js';
import { derivedWorkspaceId, localWorkspace, type ResourceContext } from './workspace.js';
import { FIND_TOOLS, rankTools, ROUTE_ABOVE, routeTools } from './routing.js';

const DEFAULT_TIMEOUT_MS = 60_000;
/** The largest argument text one call may carry; larger calls are refused with their size. */
export const MAX_ARGUMENT_BYTES = 1 << 20;

export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** What an approval binds to: the tool and its exact (validated) arguments. */
export const argsHash = (name: string, args: string) => createHash('sha256').update(`${name}\n${args}`).digest('hex');

export function formatZodIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`).join('; ');
}

export interface CallToPrepare {
  id: string;
  /** The provider's id of a native call (answers the provider; may repeat or be empty). */
  providerId?: string;
  name: string;
  rawArguments: string;
  /** The job's workspace folder, and its declared id (absent: derived from the folder). */
  workspace: string;
  workspaceId?: string | undefined;
  /** Tool names this agent may use; all when absent. */
  only?: string[] | undefined;
  format?: ToolFormat;
  rawText?: string;
}

/** The worker's tools: their schemas for the model, validation, classification and execution. */
export class ToolRegistry {
  readonly #tools = new Map<string, ToolDefinition>();
  /** Decides every call: allow, deny (the model reads why) or ask (a person decides). */
  readonly policy: Policy;

  /** Workspaces this host declares (id → folder): their calls' files are named under that id. */
  readonly workspaces: ReadonlyMap<string, string>;

  constructor(
    tools: ToolDefinition<any>[],
    policy: Policy = defaultPolicy(),
    workspaces: ReadonlyMap<string, string> = new Map(),
  ) {
    this.workspaces = workspaces;
    this.policy = policy;
    for (const t of [...tools, findToolsTool(this)]) {
      if (this.#tools.has(t.name)) throw new Error(`Tool '${t.name}' is defined twice.`);
      this.#tools.set(t.name, t);
    }
    const unknown = policy.disabled.filter((n) => !this.#tools.has(n));
    if (unknown.length)
      throw new Error(
        `The policy (${policy.source}) disables tools this worker does not have: ${unknown.join(', ')}. Tools: ${[...this.#tools.keys()].join(', ')}.`,
      );
  }

  /**
   * Replaces the tools of one MCP server (named `<server>__…`) with its new list: a changed list
   * takes effect for the next model call; a call of a tool that went away is an unknown tool.
   */
  replaceServerTools(server: string, tools: ToolDefinition<any>[]): void {
    for (const name of [...this.#tools.keys()]) if (name.startsWith(`${server}__`)) this.#tools.delete(name);
    for (const t of tools) this.#tools.set(t.name, t);
  }

  /** The tools this worker offers (those its policy disables are not offered). */
  names(): string[] {
    return this.#select().map((t) => t.name);
  }

  /**
   * What the next model call is offered: every tool, or — with more than {@link ROUTE_ABOVE} — a
   * relevant subset plus `find_tools` (see src/tools/routing.ts). `routed` lists the subset.
   */
  offer(only: string[] | undefined, conversation: ChatMessage[]): { only: string[] | undefined; routed?: string[] } {
    const docs = this.#select(only).map((t) => ({ name: t.name, description: t.description }));
    const routed = routeTools(docs, conversation);
    return routed ? { only: routed, routed } : { only };
  }

  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name);
  }

  /** Tool schemas in OpenAI's format, from each tool's zod schema. */
  openAITools(only?: string[]): OpenAITool[] {
    return this.#select(only).map((t) => {
      const { $schema: _ignored, ...parameters } = z.toJSONSchema(t.input, {
        target: 'draft-7',
        io: 'input',
      }) as Record<string, unknown>;
      return { type: 'function', function: { name: t.name, description: t.description, parameters } };
    });
  }

  /** What the text protocols need of each tool: name, description, fields in schema order. */
  toolSpecs(only?: string[]): ToolSpec[] {
    return this.openAITools(only).map(({ function: f }) => {
      const props = (f.parameters.properties ?? {}) as Record<string, { type?: string; description?: string }>;
      const required = (f.parameters.required ?? []) as string[];
      return {
        name: f.name,
        description: f.description,
        fields: Object.entries(props).map(([name, p]) => ({
          name,
          type: p.type ?? 'string',
          required: required.includes(name),
          ...(p.description ? { description: p.description } : {}),
        })),
      };
    });
  }

  /**
   * Parses, validates and classifies one call. Never throws for a bad call: a call the model
   * got wrong comes back with `rejected` set to text the model can act on.
   */
  async prepareCall(c: CallToPrepare): Promise<PlannedCall> {
    const { id, name, rawArguments, only } = c;
    const workspace = await this.workspaceFor(c);
    const base = {
      id,
      ...(c.providerId !== undefined ? { providerId: c.providerId } : {}),
      name,
      rawArguments,
      format: c.format ?? 'native',
      ...(c.rawText !== undefined ? { rawText: c.rawText } : {}),
    };
    const reject = (rejected: string): RejectedCall => ({ ...base, rejected });
    const tool = this.#tools.get(name);
    const allowed = this.#select(only).map((t) => t.name);
    if (allowed.length > ROUTE_ABOVE) allowed.push(FIND_TOOLS); // routed: find_tools is on offer
    if (tool && this.policy.disabled.includes(name))
      return reject(`Tool '${name}' is disabled on this worker by its policy. Available tools: ${allowed.join(', ')}.`);
    if (!tool || !allowed.includes(name))
      return reject(`Unknown tool '${name}'. Available tools: ${allowed.join(', ')}.`);
    const bytes = Buffer.byteLength(rawArguments);
    if (bytes > MAX_ARGUMENT_BYTES)
      return reject(
        `The arguments of '${name}' are ${bytes} bytes; the limit is ${MAX_ARGUMENT_BYTES} bytes per call. The call did not run: split the work into smaller calls.`,
      );
    if (nestingDepth(rawArguments, MAX_NESTING + 1) > MAX_NESTING)
      return reject(
        `The arguments of '${name}' nest more than ${MAX_NESTING} levels deep. The call did not run: send flatter arguments.`,
      );
    let json: unknown;
    try {
      json = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
    } catch (err) {
      return reject(
        `Arguments for '${name}' are not valid JSON (${(err as Error).message}). Send one JSON object matching the tool's schema.`,
      );
    }
    const parsed = tool.input.safeParse(json);
    if (!parsed.success) return reject(`Invalid arguments for '${name}': ${formatZodIssues(parsed.error)}.`);
    let resources: string[];
    try {
      resources = tool.resources ? await tool.resources(parsed.data, workspace) : [];
    } catch (err) {
      return reject(`Cannot run '${name}': ${(err as Error).message}`);
    }
    const policy = decide(this.policy, {
      name,
      effect: tool.effect,
      args: parsed.data,
      needsApproval: tool.needsApproval ?? false,
      workspace: workspace.workspace,
    });
    if (policy.decision === 'deny')
      return {
        ...reject(
          `Denied by policy (rule ${policy.rule})${policy.reason ? `: ${policy.reason}` : ''}. The call did not run; do it another way or ask the user.`,
        ),
        policy,
      };
    // The call carries the arguments as sent (plain JSON, as history stores them); the handler
    // gets the schema's output of them, so transforms and coercions apply exactly once, there.
    return {
      ...base,
      policy,
      args: json,
      argsHash: argsHash(name, JSON.stringify(json)),
      effect: tool.effect,
      resources: [...new Set(resources)].sort(),
      idempotent: tool.idempotent ?? tool.effect === 'read',
      timeoutMs: tool.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      needsApproval: policy.decision === 'ask',
    };
  }

  /**
   * Runs a prepared call. Handler failures become an error result the model reads; never throws for
   * them. The output is whole: the caller redacts it, then cuts it for the model (in that order, so
   * that a cut never splits a secret into pieces the redactor no longer recognises).
   */
  async execute(
    call: { id: string; name: string; args?: unknown; resources?: string[] | undefined },
    ctx: ToolContext,
    workspace?: ResourceContext,
  ): Promise<ToolResult> {
    const startedAt = Date.now();
    const done = (output: string, isError: boolean): ToolResult => ({
      callId: call.id,
      output,
      isError,
      startedAt,
      endedAt: Date.now(),
    });
    const tool = this.#tools.get(call.name);
    if (!tool || this.policy.disabled.includes(call.name))
      return done(`Unknown tool '${call.name}'. Available tools: ${this.names().join(', ')}.`, true);
    const parsed = tool.input.safeParse(call.args ?? {});
    if (!parsed.success) return done(`Invalid arguments for '${call.name}': ${formatZodIssues(parsed.error)}.`, true);
    // The worker that runs a call applies its own policy too (it may not be the one that planned it).
    const verdict = decide(this.policy, {
      name: call.name,
      effect: tool.effect,
      args: parsed.data,
      needsApproval: false,
      workspace: await realpath(ctx.workspace).catch(() => path.resolve(ctx.workspace)),
    });
    if (verdict.decision === 'deny')
      return done(
        `Denied by this worker's policy (rule ${verdict.rule})${verdict.reason ? `: ${verdict.reason}` : ''}. The call did not run.`,
        true,
      );
    try {
      // Keys planned off the workspace's host (or before a file changed) must name the files that
      // this host will touch: the locks held are for those keys.
      if (workspace && call.resources && tool.resources) {
        const here = [...new Set(await tool.resources(parsed.data, workspace))].sort();
        if (here.join('\n') !== call.resources.join('\n'))
          return done(
            `The call did not run: on the workspace's host it touches ${here.join(', ') || 'nothing'}, not ${call.resources.join(', ') || 'nothing'} as planned (a symbolic link, or the files changed since). Call the tool again with the real path.`,
            true,
          );
      }
      return done(nonEmpty(call.name, await tool.execute(parsed.data, ctx)), false);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const e = err as Error;
      return done(
        `Error: ${e.name && e.name !== 'Error' && e.name !== 'ToolInputError' ? `${e.name}: ` : ''}${e.message}`,
        true,
      );
    }
  }

  /**
   * A job's workspace as this host sees it: a declared id is this host's folder for it, or (not
   * declared here) named by text alone; an undeclared workspace is the job's folder, id derived.
   */
  async workspaceFor(j: { workspace: string; workspaceId?: string | undefined }): Promise<ResourceContext> {
    if (j.workspaceId) {
      const root = this.workspaces.get(j.workspaceId);
      return root
        ? localWorkspace(root, j.workspaceId)
        : { workspace: j.workspace, workspaceId: j.workspaceId, onThisHost: false };
    }
    return localWorkspace(j.workspace).catch(() => ({
      workspace: path.resolve(j.workspace),
      workspaceId: derivedWorkspaceId(path.resolve(j.workspace)),
      onThisHost: true, // its tools fail, naming the missing folder
    }));
  }

  #select(only?: string[]): ToolDefinition[] {
    const all = [...this.#tools.values()].filter((t) => !this.policy.disabled.includes(t.name));
    // find_tools is offered only when named: by routing, for a worker with many tools.
    return only ? all.filter((t) => only.includes(t.name)) : all.filter((t) => t.name !== FIND_TOOLS);
  }
}

/**
 * A tool's output as the model gets it: never blank (an empty file, a tool that printed nothing).
 * A blank tool message is ambiguous to the model, and some providers refuse one.
 */
function nonEmpty(tool: string, output: string): string {
  if (output.trim() !== '') return output;
  return output === ''
    ? `(empty: ${tool} returned no text)`
    : `(empty: ${tool} returned only whitespace, ${output.length} characters)`;
}

/** `find_tools`: searches every tool of the worker; the ones it names are offered from then on. */
function findToolsTool(registry: ToolRegistry) {
  return defineTool({
    name: FIND_TOOLS,
    description:
      'Search all tools by what you need (words from their names and descriptions). The tools it lists are offered to you from the next step on.',
    input: z.object({ query: z.string().min(1).max(500) }),
    effect: 'read',
    execute: ({ query }) => {
      const docs = registry
        .names()
        .map((n) => registry.get(n)!)
        .map((t) => ({ name: t.name, description: t.description }));
      const hits = rankTools(docs, query).slice(0, 10);
      if (!hits.length) return `No tool matches '${query}'. Try other words.`;
      return hits.map((n) => `${n}: ${registry.get(n)!.description}`).join('\n');
    },
  });
}
