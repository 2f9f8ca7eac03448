// The statuses of a job, one list for the turn (which records them in the DagentStatus search
// attribute), the CLI (`dagent jobs --status`, `status`, `result`) and the README.

/** How a turn ends on its own. */
export const TURN_STATUSES = [
  'completed',
  'max_steps',
  'token_budget',
  'time_budget',
  'cost_budget',
  'no_progress',
] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

/** Every value the turn writes to DagentStatus: while it runs, and how it ended. */
export const RECORDED_STATUSES = [
  'running',
  'awaiting_approval',
  'paused',
  ...TURN_STATUSES,
  'failed',
  'cancelled',
] as const;
export type RecordedStatus = (typeof RECORDED_STATUSES)[number];

/** Endings Temporal decides without the turn's knowledge, by its own execution status. */
export const TEMPORAL_ENDINGS = { terminated: 'Terminated', timed_out: 'TimedOut' } as const;

/** Every status a job can have, as the CLI shows and filters them. */
export const JOB_STATUSES = [
  ...RECORDED_STATUSES,
  ...(Object.keys(TEMPORAL_ENDINGS) as Array<keyof typeof TEMPORAL_ENDINGS>),
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** One job as `dagent jobs --json` and the `dagent ui` page list it. */
export interface JobRow {
  jobId: string;
  status: string;
  startedAt: string;
  closedAt: string | null;
  tools: string[];
  wrote: string[];
}
