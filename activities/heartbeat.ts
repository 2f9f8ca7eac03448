// How often activities heartbeat: used by the model and tool activities and the worker's throttle.

/** How often a stream's progress is heartbeated at most (the worker's heartbeat throttle is set to match). */
export const BEAT_EVERY_MS = 250;

/** How often an activity that has nothing new to say heartbeats (the heartbeat timeout is 10 s). */
export const QUIET_BEAT_EVERY_MS = 3_000;
