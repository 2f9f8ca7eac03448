import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { historyToRecords } from '../../src/audit/decode.js';
import { AUDIT_SCHEMA_VERSION, auditRecord } from '../../src/audit/schema.js';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));
const jsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);

describe('committed audit records', () => {
  it('of every schema version still parse', () => {
    const dirs = readdirSync(path.join(fixtures, 'audit'));
    assert.ok(dirs.includes('v1'));
    let n = 0;
    for (const dir of dirs) {
      for (const f of readdirSync(path.join(fixtures, 'audit', dir))) {
        for (const r of jsonl(path.join(fixtures, 'audit', dir, f))) {
          const parsed = auditRecord.safeParse(r);
          assert.ok(parsed.success, `${dir}/${f}: ${parsed.success ? '' : parsed.error.message}`);
          n++;
        }
      }
    }
    assert.ok(n >= 10);
  });

  it('are what the current decoder makes of the committed histories, record for record', () => {
    const dir = path.join(fixtures, 'audit', `v${AUDIT_SCHEMA_VERSION}`);
    // Every recorded turn with its audit (not `*.first.jsonl`: records as first written, kept for the parse test).
    const ids = readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl') && !f.endsWith('.first.jsonl'))
      .map((f) => f.replace(/\.jsonl$/, ''));
    assert.ok(ids.length >= 9);
    for (const id of ids) {
      const history = historyFromJSON(JSON.parse(readFileSync(path.join(fixtures, 'histories', `${id}.json`), 'utf8')));
      const decoded = JSON.parse(JSON.stringify(historyToRecords(id, history))) as unknown[];
      assert.deepEqual(
        decoded,
        jsonl(path.join(dir, `${id}.jsonl`)),
        `${id}: the decoder changed what it reads from a recorded history`,
      );
    }
  });
});
