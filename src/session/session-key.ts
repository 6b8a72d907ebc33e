// The key a session is kept by everywhere (the store, the audit, the search
// index, the views' selection): its file, or `mem:<id>` for a session that
// lives in memory only. Ids repeat across files; files do not.

const MEMORY = 'mem:';

export const sessionKey = (s: { file?: string; id: string }): string => s.file ?? `${MEMORY}${s.id}`;

/** The key of a session without a file: it names no log to point at. */
export const isMemoryKey = (key: string): boolean => key.startsWith(MEMORY);
