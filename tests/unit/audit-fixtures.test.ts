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
    const histories = readdirSync(path.join(fixtures, 'histories')).filter((f) => f.endsWith('.json'));
    assert.ok(histories.length >= 2);
    for (const f of histories) {
      const id = f.replace(/\.json$/, '');
      const history = historyFromJSON(JSON.parse(readFileSync(path.join(fixtures, 'histories', f), 'utf8')));
      const decoded = JSON.parse(JSON.stringify(historyToRecords(id, history))) as unknown[];
      const committed = jsonl(path.join(fixtures, 'audit', `v${AUDIT_SCHEMA_VERSION}`, `${id}.jsonl`));
      assert.deepEqual(decoded, committed, `${id}: the decoder changed what it reads from a recorded history`);
    }
  });
});
