import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';

const NON_RETRYABLE: Record<number, { type: string; hint: string }> = {
  400: { type: 'ModelBadRequest', hint: 'the provider rejected the request (check the model name and parameters)' },
  401: { type: 'ModelAuthentication', hint: 'authentication failed: check OPENAI_API_KEY' },
  403: { type: 'ModelPermissionDenied', hint: 'the key may not use this model or endpoint' },
  404: { type: 'ModelNotFound', hint: 'no such model or endpoint: check DAGENT_MODEL and OPENAI_BASE_URL' },
  422: { type: 'ModelUnprocessable', hint: 'the provider could not process the request' },
};

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const s = headers?.get('retry-after');
  if (!s) return undefined;
  if (Number.isFinite(Number(s))) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Turns whatever the OpenAI client threw into an ApplicationFailure with explicit retryability. */
export function classifyModelError(err: unknown, baseURL: string): ApplicationFailure {
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return ApplicationFailure.retryable(`Model request to ${baseURL} timed out`, 'ModelTimeout');
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return ApplicationFailure.retryable(`Cannot reach the model at ${baseURL}: ${err.message}`, 'ModelConnection');
  }
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const known = NON_RETRYABLE[err.status];
    if (known) {
      return ApplicationFailure.create({
        message: `Model call failed with HTTP ${err.status}: ${known.hint}. Provider said: ${err.message}`,
        type: known.type,
        nonRetryable: true,
      });
    }
    const delay = retryAfterMs(err.headers);
    const type = err.status === 429 ? 'ModelRateLimited' : err.status >= 500 ? 'ModelServerError' : 'ModelHttpError';
    return ApplicationFailure.create({
      message: `Model call failed with HTTP ${err.status}${delay !== undefined ? ` (retry after ${delay} ms)` : ''}: ${err.message}`,
      type,
      nonRetryable: false,
      ...(delay !== undefined ? { nextRetryDelay: delay } : {}),
    });
  }
  const e = err instanceof Error ? err : new Error(String(err));
  return ApplicationFailure.retryable(`Model reply could not be used: ${e.message}`, 'ModelBadResponse');
}
