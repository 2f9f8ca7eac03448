/** A declared workspace id: letters, digits, '.', '_' and '-' (it names a task queue and resource keys). */
export const WORKSPACE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** What a valid workspace id is, in the words every refusal of one uses. */
export const WORKSPACE_ID_RULE = "up to 64 letters, digits, '.', '_' or '-', starting with a letter or digit";

/** The task queue of the tool calls of a declared workspace: served by the workers that have it. */
export const workspaceQueue = (taskQueue: string, workspaceId: string) => `${taskQueue}@${workspaceId}`;
