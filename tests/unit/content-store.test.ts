import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConversationStore } from '../../src/content/conversation.js';
import { ContentStore, fromHistory, toHistory } from '../../src/content/store.js';
import { tempDir } from '../helpers/harness.js';

describe('the content store', () => {
  it('a text that looks like a reference comes back as itself, never as another blob', async () => {
    const store = new ContentStore(tempDir('dagent-store-'));
    const victim = await store.put("another job's secret output");
    const forged = `[[dagent-content ${victim} 27 chars]]`;
    const kept = await toHistory(store, forged);
    assert.notEqual(kept, forged, 'stored, not kept inline');
    assert.equal(await fromHistory(store, kept), forged);
  });

  it('a blob altered on disk is an error naming it, even for a fresh reader', async () => {
    const dir = tempDir('dagent-store-');
    const ref = await new ContentStore(dir).put('original text');
    const hash = ref.slice('sha256:'.length);
    writeFileSync(path.join(dir, hash.slice(0, 2), hash), 'tampered text');
    await assert.rejects(
      new ContentStore(dir).get(ref),
      new RegExp(`Content ${ref} in .* is corrupt: its text no longer matches its hash`),
    );
  });

  it('a conversation is a chain: appends read back in order; a count that does not match is an error', async () => {
    const dir = tempDir('dagent-store-');
    const conversations = new ConversationStore(new ContentStore(dir));
    const a = await conversations.append(null, [{ role: 'user', content: 'one' }], []);
    const b = await conversations.append(
      a,
      [{ role: 'assistant', content: 'two' }],
      [{ role: 'user', content: 'one' }],
    );
    const cold = new ConversationStore(new ContentStore(dir));
    assert.deepEqual(
      (await cold.read(b)).map((m) => m.content),
      ['one', 'two'],
    );
    await assert.rejects(cold.read({ ...b, count: 3 }), /holds 2 messages where 3 were recorded/);
  });
});

describe('the content store under load', () => {
  it('the same text put many times at once is stored once, without a race', async () => {
    const dir = tempDir('dagent-store-');
    const text = 'x'.repeat(5000);
    const refs = await Promise.all(Array.from({ length: 50 }, () => new ContentStore(dir).put(text)));
    assert.equal(new Set(refs).size, 1);
    assert.equal(await new ContentStore(dir).get(refs[0]!), text);
  });
});
