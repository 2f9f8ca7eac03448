// Search attributes the turn sets, so jobs can be found from Temporal's visibility store
// (`dagent jobs --tool / --wrote / --status`) without reading every history.

export const SA_TOOLS = { name: 'DagentTools', type: 'KEYWORD_LIST' } as const;
export const SA_WROTE = { name: 'DagentWrote', type: 'KEYWORD_LIST' } as const;
export const SA_STATUS = { name: 'DagentStatus', type: 'KEYWORD' } as const;

export const SEARCH_ATTRIBUTES = [SA_TOOLS, SA_WROTE, SA_STATUS] as const;

/** The dev server's `--search-attribute` flag spelling of each type. */
export const DEV_SERVER_TYPE = { KEYWORD_LIST: 'KeywordList', KEYWORD: 'Keyword' } as const;
