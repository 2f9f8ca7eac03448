import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { builtinTools } from '../../src/tools/builtins/index.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { isRunnable, type PlannedCall, type RunnableCall } from '../../src/workflow-safe/types.js';

const runnable = (c: PlannedCall): RunnableCall => {
  assert.ok(isRunnable(c), `expected a runnable call, got: ${c.rejected}`);
  return c;
};
import { toolContext } from '../helpers/harness.js';

const ctx = toolContext();

describe('ToolRegistry', () => {
  const registry = new ToolRegistry(builtinTools);

  it('gives the model a JSON schema per tool, from zod', () => {
    const write = registry.openAITools().find((t) => t.function.name === 'write_file')!;
    assert.equal(write.function.parameters.type, 'object');
    assert.deepEqual(write.function.parameters.required, ['path', 'content']);
    assert.equal('$schema' in write.function.parameters, false);
    const list = registry.openAITools(['list_files']);
    assert.deepEqual(
      list.map((t) => t.function.name),
      ['list_files'],
    );
    assert.equal(
      (list[0]!.function.parameters.required as string[] | undefined)?.includes('path') ?? false,
      false,
      'defaulted fields are optional for the model',
    );
  });

  it('classifies calls: effect, resources, idempotence', async () => {
    const read = runnable(
      await registry.prepareCall({
        id: '1',
        name: 'read_file',
        rawArguments: '{"path":"a.txt"}',
        workspace: ctx.workspace,
      }),
    );
    assert.equal(read.effect, 'read');
    assert.equal(read.idempotent, true);
    assert.equal(read.resources.length, 1);
    assert.match(read.resources[0]!, /^file:[A-Za-z0-9._-]+-[0-9a-f]{10}\/a\.txt$/);
    const shell = runnable(
      await registry.prepareCall({
        id: '2',
        name: 'shell',
        rawArguments: '{"command":"ls"}',
        workspace: ctx.workspace,
      }),
    );
    assert.deepEqual([shell.effect, shell.resources, shell.idempotent], ['write', [], false]);
    const write = runnable(
      await registry.prepareCall({
        id: '3',
        name: 'write_file',
        rawArguments: '{"path":"a.txt","content":""}',
        workspace: ctx.workspace,
      }),
    );
    assert.deepEqual([write.effect, write.idempotent, write.resources], ['write', true, read.resources]);
  });

  it('rejects with text the model can act on', async () => {
    const allowedOnly = await registry.prepareCall({
      id: '1',
      name: 'shell',
      rawArguments: '{}',
      workspace: ctx.workspace,
      only: ['read_file', 'calculator'],
    });
    assert.equal(allowedOnly.rejected, "Unknown tool 'shell'. Available tools: read_file, calculator.");
    const missing = await registry.prepareCall({
      id: '2',
      name: 'write_file',
      rawArguments: '{"path":"a"}',
      workspace: ctx.workspace,
    });
    assert.match(missing.rejected!, /content: Invalid input: expected string, received undefined/);
    const escape = await registry.prepareCall({
      id: '3',
      name: 'read_file',
      rawArguments: '{"path":"../../etc/passwd"}',
      workspace: ctx.workspace,
    });
    assert.match(escape.rejected!, /Cannot run 'read_file': Path '..\/..\/etc\/passwd' is outside the workspace/);
    const empty = await registry.prepareCall({
      id: '4',
      name: 'list_files',
      rawArguments: '',
      workspace: ctx.workspace,
    });
    assert.equal(empty.rejected, undefined, 'empty arguments mean {}');
  });

  it('turns handler exceptions into error results, never throws', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'x',
      input: z.object({}),
      effect: 'read',
      execute: () => {
        throw new TypeError('kaput');
      },
    });
    const r = await new ToolRegistry([boom]).execute({ id: 'c', name: 'boom', args: {} }, ctx);
    assert.deepEqual([r.isError, r.output], [true, 'Error: TypeError: kaput']);
  });

  it('a schema that transforms its input (.transform, z.coerce, .pipe) runs with the transformed value, once', async () => {
    let transforms = 0;
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'repeat',
      description: 'x',
      input: z.object({
        word: z.string().transform((w) => {
          transforms++;
          return w.toUpperCase();
        }),
        times: z.coerce.number().int().min(1),
        tags: z.string().pipe(z.string().transform((t) => t.split(','))),
      }),
      effect: 'read',
      resources: (args) => [`word:${args.word}`],
      execute: (args) => {
        seen.push(args);
        return args.word.repeat(args.times);
      },
    });
    const registry = new ToolRegistry([tool]);
    const call = await registry.prepareCall({
      id: '1',
      name: 'repeat',
      rawArguments: '{"word":"ab","times":"3","tags":"x,y"}',
      workspace: ctx.workspace,
    });
    assert.equal(call.rejected, undefined, call.rejected);
    assert.deepEqual(call.resources, ['word:AB'], 'resources see the output');
    // What history carries is plain JSON: the arguments as sent, which validate again.
    const carried = JSON.parse(JSON.stringify(call.args)) as unknown;
    transforms = 0;
    const r = await registry.execute({ id: '1', name: 'repeat', args: carried }, ctx);
    assert.deepEqual([r.isError, r.output], [false, 'ABABAB']);
    assert.deepEqual(seen, [{ word: 'AB', times: 3, tags: ['x', 'y'] }]);
    assert.equal(transforms, 1, 'the handler run transformed once');
  });

  it('never gives the model a blank result: an empty file, a tool that printed nothing, only whitespace', async () => {
    const c = toolContext();
    writeFileSync(path.join(c.workspace, 'empty.txt'), '');
    writeFileSync(path.join(c.workspace, 'blank.txt'), '\n\n');
    const read = async (p: string) =>
      (await registry.execute({ id: '1', name: 'read_file', args: { path: p } }, c)).output;
    assert.equal(await read('empty.txt'), '(empty: read_file returned no text)');
    assert.equal(await read('blank.txt'), '(empty: read_file returned only whitespace, 2 characters)');
    const quiet = defineTool({
      name: 'quiet',
      description: '',
      input: z.object({}),
      effect: 'read',
      execute: () => '',
    });
    const r = await new ToolRegistry([quiet]).execute({ id: '2', name: 'quiet', args: {} }, c);
    assert.deepEqual([r.isError, r.output], [false, '(empty: quiet returned no text)']);
  });

  it('refuses bad definitions up front', () => {
    assert.throws(
      () => defineTool({ name: 'bad name', description: '', input: z.object({}), effect: 'read', execute: () => '' }),
      /Tool name 'bad name' is invalid/,
    );
    const t = defineTool({ name: 'dup', description: '', input: z.object({}), effect: 'read', execute: () => '' });
    assert.throws(() => new ToolRegistry([t, t]), /Tool 'dup' is defined twice/);
  });
});
