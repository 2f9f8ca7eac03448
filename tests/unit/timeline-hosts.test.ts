import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { auditRecord, type AuditRecord } from '../../src/audit/schema.js';
import { formatTimeline } from '../../src/audit/timeline.js';

const records = (): AuditRecord[] =>
  readFileSync(fileURLToPath(new URL('../fixtures/audit/v1/fixture-native.jsonl', import.meta.url)), 'utf8')
    .trim()
    .split('\n')
    .map((l) => auditRecord.parse(JSON.parse(l)));

const toolLines = (text: string) =>
  text.split('\n').filter((l) => /read_file|write_file|list_files|calculator/.test(l));

describe('the timeline names the host of each call when a job ran on several', () => {
  it('one host: no host on the lines', () => {
    const rs = records();
    assert.ok(
      rs.some((r) => r.type === 'tool_call' && r.worker),
      'the fixture records the worker',
    );
    assert.ok(toolLines(formatTimeline(rs)).every((l) => !/ on \S+ {2}/.test(l)));
  });

  it('two hosts: every call that ran says where', () => {
    let n = 0;
    const rs = records().map((r) =>
      r.type === 'tool_call' && r.worker ? { ...r, worker: `${100 + n}@host-${n++ % 2 ? 'b' : 'a'}` } : r,
    );
    const lines = toolLines(formatTimeline(rs)).filter((l) => !l.includes('✗'));
    assert.ok(lines.length >= 2);
    assert.deepEqual(
      lines.map((l) => / on (host-[ab]) {2}/.exec(l)?.[1]),
      lines.map((_, i) => (i % 2 ? 'host-b' : 'host-a')),
    );
  });
});
