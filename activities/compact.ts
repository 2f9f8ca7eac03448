import { ConversationStore } from '../src/content/conversation.js';
import { expandMessages, type ContentStore } from '../src/content/store.js';
import { preview } from '../src/workflow-safe/preview.js';
import type { ChatMessage, ConversationRef } from '../src/workflow-safe/types.js';

export const COMPACTED_MARK = '[Earlier work, compacted to fit the model’s context';

/** One older message, in a line or two of the summary. */
function summaryLine(m: ChatMessage): string {
  if (m.role === 'assistant') {
    const calls = (m.tool_calls ?? []).map((c) => `${c.function.name}(${preview(c.function.arguments, 150)})`);
    return [
      m.content ? `You said: ${preview(m.content, 200)}` : '',
      calls.length ? `You called: ${calls.join('; ')}` : '',
    ]
      .filter(Boolean)
      .join('\n');
  }
  if (m.role === 'tool') return `Result: ${preview(m.content, 200)}`;
  return `${m.role === 'user' ? 'User' : 'System'}: ${preview(m.content, 200)}`;
}

/**
 * A compaction step (after a context overflow, on `dagent resume --compact`): the conversation
 * becomes the system prompt, the task, one message that summarises every older message (each
 * call and result in a line, marked as a compaction), and the last reply (whose calls the
 * pending results answer). Stored as a new chain; the old one stays for the audit.
 */
export function makeCompactConversation(store: ContentStore) {
  const conversations = new ConversationStore(store);
  return async function compactConversation(req: {
    conversation: ConversationRef | null;
  }): Promise<{ conversation: ConversationRef | null; summarised: number }> {
    const messages = await conversations.read(req.conversation);
    const head = messages[0]?.role === 'system' ? 2 : 1; // the system prompt and the task stay
    const older = messages.slice(head, -1);
    if (older.length < 2) return { conversation: req.conversation, summarised: 0 };
    const text = (await expandMessages(store, older)).map(summaryLine).join('\n');
    const summary: ChatMessage = {
      role: 'user',
      content: `${COMPACTED_MARK}: ${older.length} messages]\n${text}`,
    };
    const compacted = [...messages.slice(0, head), summary, messages.at(-1)!];
    return { conversation: await conversations.append(null, compacted), summarised: older.length };
  };
}
