// Search attributes the turn sets, so jobs can be found from Temporal's visibility store
// (`dagent jobs --tool / --wrote / --status`) without reading every history.

export const SA_TOOLS = { name: 'DagentTools', type: 'KEYWORD_LIST' } as const;
export const SA_WROTE = { name: 'DagentWrote', type: 'KEYWORD_LIST' } as const;
export const SA_STATUS = { name: 'DagentStatus', type: 'KEYWORD' } as const;
/** Hashes of the agents (system prompt, model, format, tool schemas) that ran the job's model calls. */
export const SA_AGENT = { name: 'DagentAgent', type: 'KEYWORD_LIST' } as const;

export const SEARCH_ATTRIBUTES = [SA_TOOLS, SA_WROTE, SA_STATUS, SA_AGENT] as const;

/** The dev server's `--search-attribute` flag spelling of each type. */
export const DEV_SERVER_TYPE = { KEYWORD_LIST: 'KeywordList', KEYWORD: 'Keyword' } as const;
