import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { DEV_SERVER_TYPE, SEARCH_ATTRIBUTES } from '../workflow-safe/search-attributes.js';

const INDEXED = proto.temporal.api.enums.v1.IndexedValueType;
const CODE = {
  KEYWORD_LIST: INDEXED.INDEXED_VALUE_TYPE_KEYWORD_LIST,
  KEYWORD: INDEXED.INDEXED_VALUE_TYPE_KEYWORD,
} as const;

/** `--search-attribute` flags that register ours when the dev server starts. */
export const devServerSearchAttributeArgs = (): string[] =>
  SEARCH_ATTRIBUTES.flatMap((a) => ['--search-attribute', `${a.name}=${DEV_SERVER_TYPE[a.type]}`]);

/**
 * Registers the turn's search attributes on a server that lacks them (one started elsewhere or
 * by an older version). Without them a turn's upsert would fail its workflow task.
 */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<void> {
  const ops = client.connection.operatorService;
  const { customAttributes } = await ops.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTES.filter((a) => !customAttributes?.[a.name]);
  if (!missing.length) return;
  try {
    await ops.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((a) => [a.name, CODE[a.type]])),
    });
  } catch (err) {
    throw new Error(
      `The Temporal server lacks the search attributes ${missing.map((a) => a.name).join(', ')} and refused to add them ` +
        `(${(err as Error).message}). Add them as an administrator: ${missing.map((a) => `temporal operator search-attribute create --name ${a.name} --type ${DEV_SERVER_TYPE[a.type]}`).join('; ')}`,
      { cause: err },
    );
  }
}
