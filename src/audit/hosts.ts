import type { AuditRecord } from './schema.js';

/** The host part of a worker's identity (`pid@host`). */
export const hostOf = (worker: string) => worker.replace(/^\d+@/, '');

/**
 * Whether a job's tool calls ran on more than one host: then the timeline and the page say where
 * each ran (on one host it would only repeat the same name).
 */
export function ranOnManyHosts(records: AuditRecord[]): boolean {
  return new Set(records.flatMap((r) => (r.type === 'tool_call' && r.worker ? [hostOf(r.worker)] : []))).size > 1;
}
