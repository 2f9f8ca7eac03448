// Queries, signals and updates of the turn workflow, defined once for workflows and clients.
import { defineQuery } from '@temporalio/workflow';
import type { ProgressEvent } from '../src/workflow-safe/types.js';

/** Progress events from index `since` on. */
export const progressQuery = defineQuery<ProgressEvent[], [number]>('progress');
