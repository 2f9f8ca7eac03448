import type { ChatMessage, ConversationRef } from '../workflow-safe/types.js';
import { ContentError, type ContentStore } from './store.js';

// The conversation lives outside the history, as an append-only hash chain in the content store:
// each node holds the messages one step added and the reference of the node before. A model call
// gets the reference of the conversation so far plus what is new, and returns the new head; so
// each step writes only its own content to history, never the conversation again.

interface Node {
  v: 1;
  prev: string | null;
  messages: ChatMessage[];
}

const CACHE_LIMIT = 256;

export class ConversationStore {
  /** Recently read or written heads → the whole conversation (history form), newest last. */
  readonly #cache = new Map<string, ChatMessage[]>();

  constructor(readonly store: ContentStore) {}

  /** The messages of a conversation, oldest first (long texts still as references). */
  async read(ref: ConversationRef | null | undefined): Promise<ChatMessage[]> {
    if (!ref?.head) return [];
    const nodes: Node[] = [];
    let head: string | null = ref.head;
    let base: ChatMessage[] = [];
    while (head) {
      const cached = this.#cache.get(head);
      if (cached) {
        base = cached;
        break;
      }
      const node = this.#parse(head, await this.store.get(head));
      nodes.push(node);
      head = node.prev;
    }
    const messages = [...base];
    for (const n of nodes.reverse()) messages.push(...n.messages);
    if (messages.length !== ref.count) {
      throw new ContentError(
        `Conversation ${ref.head} holds ${messages.length} messages where ${ref.count} were recorded.`,
      );
    }
    this.#remember(ref.head, messages);
    return messages;
  }

  /** Appends messages to the conversation whose messages are `before` (kept in the cache); returns the new head. */
  async append(
    ref: ConversationRef | null | undefined,
    messages: ChatMessage[],
    before?: ChatMessage[],
  ): Promise<ConversationRef> {
    const node: Node = { v: 1, prev: ref?.head ?? null, messages };
    const head = await this.store.put(JSON.stringify(node));
    const count = (ref?.count ?? 0) + messages.length;
    if (before) this.#remember(head, [...before, ...messages]);
    return { head, count };
  }

  #parse(head: string, text: string): Node {
    try {
      const node = JSON.parse(text) as Node;
      if (node.v === 1 && Array.isArray(node.messages)) return node;
    } catch {
      /* reported below */
    }
    throw new ContentError(`Content ${head} is not a conversation node.`);
  }

  #remember(head: string, messages: ChatMessage[]): void {
    this.#cache.delete(head);
    this.#cache.set(head, messages);
    if (this.#cache.size > CACHE_LIMIT) this.#cache.delete(this.#cache.keys().next().value!);
  }
}
