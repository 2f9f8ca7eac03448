/** USD per million tokens, by model name. */
export type PriceTable = Record<string, { input: number; output: number }>;

/**
 * Published list prices of a few common models (USD per million tokens). Prices change: set your
 * own table in DAGENT_PRICES (or the library's `prices` option); it is merged over this one.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
};

/**
 * What one call cost, from the table: the model's own entry, else the longest entry its name
 * starts with (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`); undefined when the table has no price.
 */
export function callCost(
  table: PriceTable,
  model: string,
  usage: { promptTokens: number; completionTokens: number },
): number | undefined {
  const key =
    table[model] !== undefined
      ? model
      : Object.keys(table)
          .filter((k) => model.startsWith(k))
          .sort((a, b) => b.length - a.length)[0];
  const p = key === undefined ? undefined : table[key];
  if (!p) return undefined;
  return (usage.promptTokens * p.input + usage.completionTokens * p.output) / 1e6;
}
