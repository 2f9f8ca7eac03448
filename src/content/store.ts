import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../config.js';

/**
 * A content-addressed store for large tool outputs, so history holds a short reference instead
 * of the text (Temporal limits a payload to 2 MiB and a history to 50 MiB; a conversation passed
 * to every model call would otherwise grow history quadratically). Files named by SHA-256 under
 * DAGENT_CONTENT_DIR (default: the data folder's `content/`); workers on several machines must
 * share that folder.
 */
export class ContentStore {
  constructor(readonly dir: string = process.env.DAGENT_CONTENT_DIR ?? path.join(dataDir(), 'content')) {}

  async put(text: string): Promise<string> {
    const hash = createHash('sha256').update(text).digest('hex');
    const file = path.join(this.dir, hash.slice(0, 2), hash);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, file); // atomic: a reader never sees half a blob
    return `sha256:${hash}`;
  }

  async get(ref: string): Promise<string> {
    const m = /^sha256:([0-9a-f]{64})$/.exec(ref);
    if (!m) throw new Error(`Not a content reference: ${ref}`);
    try {
      return await readFile(path.join(this.dir, m[1]!.slice(0, 2), m[1]!), 'utf8');
    } catch (err) {
      throw new Error(`Content ${ref} is missing from ${this.dir} (${(err as NodeJS.ErrnoException).code}); workers and the CLI must share DAGENT_CONTENT_DIR.`);
    }
  }
}

/** Text at least this long goes to the store; history keeps a reference. */
export const INLINE_LIMIT = 4 * 1024;

const MARKER = /^\[\[dagent-content (sha256:[0-9a-f]{64}) (\d+) chars\]\]/;

/** The text to keep in history: the text itself when short, else a reference to the stored text. */
export async function toHistory(store: ContentStore, text: string): Promise<string> {
  if (text.length < INLINE_LIMIT) return text;
  return `[[dagent-content ${await store.put(text)} ${text.length} chars]]`;
}

export const isReference = (text: string) => MARKER.test(text);

/** The full text behind a history value (itself when it is not a reference). */
export async function fromHistory(store: ContentStore, value: string): Promise<string> {
  const m = MARKER.exec(value);
  return m ? store.get(m[1]!) : value;
}
