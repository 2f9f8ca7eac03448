import type { PauseKind } from '../types.js';

// Which failures of a model call pause a job (it waits for `dagent resume`) rather than fail it.

/** Failure types (from src/llm/classify-error.ts) that a person, or time, can fix. */
const PAUSING: Record<string, PauseKind> = {
  ModelServerError: 'outage',
  ModelTimeout: 'outage',
  ModelConnection: 'outage',
  ModelRequestTimeout: 'outage',
  ModelConflict: 'outage',
  ModelBadResponse: 'outage',
  ModelRateLimited: 'rate_limit',
  ModelQuotaExceeded: 'quota',
  ModelContextOverflow: 'context_overflow',
};

/** How a failed model call ends: a pause of some kind, or (null) the job fails. */
export const pauseKindOf = (failureType: string | undefined): PauseKind | null =>
  (failureType && PAUSING[failureType]) || null;

/** What to do about it, said in `dagent status` and the audit. */
export const PAUSE_HINTS: Record<PauseKind, string> = {
  outage: 'the model provider kept failing; `dagent resume` tries again (optionally --model another)',
  rate_limit: 'the provider kept rate-limiting; `dagent resume` when the limit has passed',
  quota: 'the provider says the quota is used up; add credit, then `dagent resume` (or --model another)',
  context_overflow: 'the conversation no longer fits the model; `dagent resume --model` one with a bigger context',
  token_budget: 'the token budget is used up; `dagent resume --max-tokens N` to continue',
  time_budget: 'the deadline has passed; `dagent resume --deadline 30m` to continue',
  cost_budget: 'the money budget is used up; `dagent resume --max-cost USD` to continue',
};
