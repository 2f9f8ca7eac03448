import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';

// As the OpenAI SDK itself decides (and Temporal's OpenAI contrib): 408, 409, 429 and 5xx are
// worth another attempt, other 4xx are not; the provider's `x-should-retry` header overrides both.

const HINTS: Record<number, { type: string; hint: string }> = {
  400: { type: 'ModelBadRequest', hint: 'the provider rejected the request (check the model name and parameters)' },
  401: { type: 'ModelAuthentication', hint: 'authentication failed: check OPENAI_API_KEY' },
  403: { type: 'ModelPermissionDenied', hint: 'the key may not use this model or endpoint' },
  404: { type: 'ModelNotFound', hint: 'no such model or endpoint: check DAGENT_MODEL and OPENAI_BASE_URL' },
  408: { type: 'ModelRequestTimeout', hint: 'the provider timed out the request' },
  409: { type: 'ModelConflict', hint: 'the provider reported a conflict' },
  422: { type: 'ModelUnprocessable', hint: 'the provider could not process the request' },
  429: { type: 'ModelRateLimited', hint: 'rate limited' },
};

const retryableStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const s = headers?.get('retry-after');
  if (!s) return undefined;
  if (Number.isFinite(Number(s))) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function describe(status: number): { type: string; hint: string } {
  if (HINTS[status]) return HINTS[status];
  if (status >= 500) return { type: 'ModelServerError', hint: 'the provider failed' };
  return { type: 'ModelHttpError', hint: 'the provider refused the request' };
}

/**
 * Turns whatever the OpenAI client threw into an ApplicationFailure with explicit retryability
 * and, for rate limits, the delay the provider asked for. The original error is kept as the cause.
 */
export function classifyModelError(
  err: unknown,
  baseURL: string,
  redact: (text: string) => string = (t) => t,
): ApplicationFailure {
  const f = classify(err, baseURL);
  // A provider may echo the key (a 401 body): the message and its cause go to history, the audit,
  // logs and the CLI, so both are redacted; the cause keeps its type and message, not its stack.
  const cause = f.cause
    ? Object.assign(new Error(redact(f.cause.message)), { name: f.cause.constructor.name || f.cause.name })
    : undefined;
  return ApplicationFailure.create({
    message: redact(f.message),
    ...(f.type ? { type: f.type } : {}),
    nonRetryable: f.nonRetryable ?? false,
    ...(cause ? { cause } : {}),
    ...(f.nextRetryDelay !== undefined && f.nextRetryDelay !== null ? { nextRetryDelay: f.nextRetryDelay } : {}),
  });
}

function classify(err: unknown, baseURL: string): ApplicationFailure {
  const cause = err instanceof Error ? err : new Error(String(err));
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return ApplicationFailure.create({
      message: `Model request to ${baseURL} timed out`,
      type: 'ModelTimeout',
      nonRetryable: false,
      cause,
    });
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return ApplicationFailure.create({
      message: `Cannot reach the model at ${baseURL}: ${err.message}`,
      type: 'ModelConnection',
      nonRetryable: false,
      cause,
    });
  }
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    // Errors no retry fixes, but a person can: the job pauses on them (src/workflow-safe/turn/pause.ts).
    const code = String(err.code ?? err.type ?? '');
    if (code === 'insufficient_quota' || code === 'context_length_exceeded') {
      const quota = code === 'insufficient_quota';
      return ApplicationFailure.create({
        message: `Model call failed with HTTP ${err.status} (${code}): ${quota ? 'the quota is used up' : 'the conversation is longer than the model accepts'}. Provider said: ${err.message}`,
        type: quota ? 'ModelQuotaExceeded' : 'ModelContextOverflow',
        nonRetryable: true,
        cause,
      });
    }
    const { type, hint } = describe(err.status);
    const told = err.headers?.get('x-should-retry');
    const retry = told === 'true' ? true : told === 'false' ? false : retryableStatus(err.status);
    const delay = retry ? retryAfterMs(err.headers) : undefined;
    return ApplicationFailure.create({
      message: `Model call failed with HTTP ${err.status}: ${hint}${delay !== undefined ? ` (retry after ${delay} ms)` : ''}${told ? ` (x-should-retry: ${told})` : ''}. Provider said: ${err.message}`,
      type,
      nonRetryable: !retry,
      cause,
      ...(delay !== undefined ? { nextRetryDelay: delay } : {}),
    });
  }
  return ApplicationFailure.create({
    message: `Model reply could not be used: ${cause.message}`,
    type: 'ModelBadResponse',
    nonRetryable: false,
    cause,
  });
}
