import type { Usage } from './types.js';

export const zeroUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
