import { createHash } from 'node:crypto';
import { access, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { contentDir, contentUrl } from '../config.js';
import { PostgresBlobs } from './postgres-blobs.js';
import { isRejected, type ChatMessage, type ModelReply } from '../workflow-safe/types.js';

/**
 * A content-addressed store for large tool outputs and the conversation's chain, so history holds
 * a short reference instead of the text (Temporal limits a payload to 2 MiB and a history to 50 MiB;
 * a conversation passed to every model call would otherwise grow history quadratically). Blobs are
 * named by SHA-256 and kept by a backend every worker and the CLI reach: a folder
 * (DAGENT_CONTENT_DIR, default the data folder's `content/`) or PostgreSQL (DAGENT_CONTENT_URL).
 */
export class ContentStore {
  /** Blobs read or written lately, already verified (they never change: the name is the hash). */
  readonly #cache = new Map<string, string>();
  #cachedChars = 0;
  readonly blobs: BlobBackend;

  /** A folder's path, a backend, or (absent) the one the environment names. */
  constructor(
    blobs: string | BlobBackend = blobsFromEnv(),
    private readonly cacheChars = 32 * 1024 * 1024,
  ) {
    this.blobs = typeof blobs === 'string' ? new FolderBlobs(blobs) : blobs;
  }

  #remember(ref: string, text: string): void {
    if (text.length > this.cacheChars / 8 || this.#cache.has(ref)) return;
    this.#cache.set(ref, text);
    this.#cachedChars += text.length;
    for (const [k, v] of this.#cache) {
      if (this.#cachedChars <= this.cacheChars) break;
      this.#cache.delete(k);
      this.#cachedChars -= v.length;
    }
  }

  async put(text: string): Promise<string> {
    const hash = createHash('sha256').update(text).digest('hex');
    const ref = `sha256:${hash}`;
    // Written through even when cached: a put must leave the blob where other hosts and the CLI
    // can read it (the backend skips a blob it has).
    await this.blobs.write(hash, text);
    this.#remember(ref, text);
    return ref;
  }

  /** The text stored under `ref`, checked against its hash: a missing or altered blob is an error naming it. */
  async get(ref: string): Promise<string> {
    const m = /^sha256:([0-9a-f]{64})$/.exec(ref);
    if (!m) throw new Error(`Not a content reference: ${ref}`);
    const cached = this.#cache.get(ref);
    if (cached !== undefined) return cached;
    const text = await this.blobs.read(m[1]!);
    if (text === null)
      throw new ContentError(
        `Content ${ref} is missing from ${this.blobs.where}; workers and the CLI must share one content store (${this.blobs.setting}).`,
      );
    if (createHash('sha256').update(text).digest('hex') !== m[1]) {
      throw new ContentError(`Content ${ref} in ${this.blobs.where} is corrupt: its text no longer matches its hash.`);
    }
    this.#remember(ref, text);
    return text;
  }

  close(): Promise<void> {
    return this.blobs.close();
  }
}

/** Where blobs live: written once under their hash, read back whole. */
export interface BlobBackend {
  /** Where, in words (errors name it). */
  readonly where: string;
  /** The setting that chooses it. */
  readonly setting: string;
  /** Stores `text` under `hash` unless there already (same name, same text). */
  write(hash: string, text: string): Promise<void>;
  /** The text under `hash`, or null when there is none. */
  read(hash: string): Promise<string | null>;
  close(): Promise<void>;
}

let tmpCounter = 0;

/** Blobs as files `<dir>/<first two hex digits>/<hash>`, written under a temporary name and renamed. */
export class FolderBlobs implements BlobBackend {
  readonly setting = 'DAGENT_CONTENT_DIR';
  constructor(readonly dir: string) {}

  get where(): string {
    return this.dir;
  }

  async write(hash: string, text: string): Promise<void> {
    const file = path.join(this.dir, hash.slice(0, 2), hash);
    const there = await access(file).then(
      () => true,
      () => false,
    );
    if (there) return;
    await mkdir(path.dirname(file), { recursive: true });
    // A temporary name of its own per write: the same text put twice at once must not race on one.
    const tmp = `${file}.${process.pid}.${++tmpCounter}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, file); // atomic: a reader never sees half a blob
  }

  async read(hash: string): Promise<string | null> {
    try {
      return await readFile(path.join(this.dir, hash.slice(0, 2), hash), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async close(): Promise<void> {}
}

/** The backend the environment names: PostgreSQL when DAGENT_CONTENT_URL is set, else the folder. */
export function blobsFromEnv(): BlobBackend {
  const url = contentUrl();
  return url ? new PostgresBlobs(url) : new FolderBlobs(contentDir());
}

/** A blob that is missing or no longer matches its hash: retrying will not bring it back. */
export class ContentError extends Error {
  override name = 'ContentError';
}

/** Text at least this long goes to the store; history keeps a reference. */
export const INLINE_LIMIT = 4 * 1024;
/**
 * Tool outputs move to the store from this length: each one appears twice in history otherwise
 * (the tool's result, and the next model call's input).
 */
export const TOOL_OUTPUT_INLINE_LIMIT = 1024;

const MARKER = /^\[\[dagent-content (sha256:[0-9a-f]{64}) (\d+) chars\]\]/;

/** The text to keep in history: the text itself when short, else a reference to the stored text. */
export async function toHistory(store: ContentStore, text: string, limit = INLINE_LIMIT): Promise<string> {
  // A text that merely looks like a reference (a hostile file, a model's reply) is stored like a
  // long one, so that reading it back gives the literal text, never another blob.
  if (text.length < limit && !MARKER.test(text)) return text;
  return `[[dagent-content ${await store.put(text)} ${text.length} chars]]`;
}

export const isReference = (text: string) => MARKER.test(text);

/** The full text behind a history value (itself when it is not a reference). */
export async function fromHistory(store: ContentStore, value: string): Promise<string> {
  const m = MARKER.exec(value);
  return m ? store.get(m[1]!) : value;
}

/**
 * Moves the long parts of a model step out of history: the assistant's text, each call's
 * argument text (the validated arguments then travel as a reference), and the raw text of
 * text-protocol calls. The final answer stays inline: it is the turn's result.
 */
export async function shrinkReply(store: ContentStore, step: ModelReply): Promise<ModelReply> {
  const small = await shrinkReplyAt(store, step, INLINE_LIMIT);
  // A reply of many calls can pass Temporal's 2 MiB payload limit though each text is short: then
  // every text that is not tiny moves to the store, and the step still fits.
  return JSON.stringify(small).length > REPLY_BUDGET ? shrinkReplyAt(store, step, 256) : small;
}

/** A model step's result above this many characters has its shorter texts moved out too. */
const REPLY_BUDGET = 1024 * 1024;

async function shrinkReplyAt(store: ContentStore, step: ModelReply, limit: number): Promise<ModelReply> {
  const msg = step.assistantMessage;
  const calls = await Promise.all(
    step.calls.map(async (c) => {
      const raw = await toHistory(store, c.rawArguments, limit);
      const rawText = c.rawText === undefined ? undefined : await toHistory(store, c.rawText, limit);
      const texts = { rawArguments: raw, ...(rawText !== undefined ? { rawText } : {}) };
      if (isRejected(c)) return { ...c, ...texts };
      const { args, ...rest } = c;
      const moved = raw !== c.rawArguments;
      return { ...rest, ...texts, ...(moved ? (args === undefined ? {} : { argsRef: raw }) : { args }) };
    }),
  );
  const toolCalls =
    msg.tool_calls &&
    (await Promise.all(
      msg.tool_calls.map(async (tc) => ({
        ...tc,
        function: { ...tc.function, arguments: await toHistory(store, tc.function.arguments, limit) },
      })),
    ));
  return {
    ...step,
    calls,
    assistantMessage: {
      ...msg,
      content: msg.content === null ? null : await toHistory(store, msg.content, limit),
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
    },
  };
}

/** The conversation with every reference replaced by its text, as the model must see it. */
export async function expandMessages(store: ContentStore, messages: ChatMessage[]): Promise<ChatMessage[]> {
  return Promise.all(
    messages.map(async (m): Promise<ChatMessage> => {
      if (m.role === 'assistant') {
        const toolCalls =
          m.tool_calls &&
          (await Promise.all(
            m.tool_calls.map(async (tc) => ({
              ...tc,
              function: { ...tc.function, arguments: await fromHistory(store, tc.function.arguments) },
            })),
          ));
        return {
          ...m,
          content: m.content === null ? null : await fromHistory(store, m.content),
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
        };
      }
      return { ...m, content: await fromHistory(store, m.content) } as ChatMessage;
    }),
  );
}
