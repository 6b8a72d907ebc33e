// The search query language shared by the Sessions filter, the / search in
// Turns and `dsh-browse find`. Pure: a parser from text to terms, no I/O.
//
//   free words        match any text in the session (case-insensitive)
//   "two words"       a phrase: quotes group words
//   -term             negation (of a word, a phrase or a field)
//   tool:NAME         a tool call/result of that tool (substring, case-insensitive)
//   is:error          a tool result with an error
//   reason:KIND       a turn/end with that reason kind (exact, case-insensitive)
//   file:GLOB         a write or edit of a path matching GLOB (or a call of unknown effect naming one)
//   is:failed-edit    a write or edit whose result is an error
//   is:open is:fork is:spawn is:root is:damaged     session predicates
//   is:upgrade-refused  the current release would refuse it on upgrade (upgrade.ts)
//   cwd:TEXT id:TEXT  session predicates (substring, case-insensitive)
//   after:DATE before:DATE   session activity time (YYYY-MM-DD = that UTC day, or any ISO date)
//
// Terms combine with AND. Every query either parses or yields a QueryError
// whose `position` is the index (UTF-16) of the offending token in the text.
// A query holds at most MAX_QUERY_LENGTH characters and MAX_QUERY_TERMS terms.

export type SessionFlag = 'open' | 'fork' | 'spawn' | 'root' | 'damaged' | 'upgrade-refused';

export type Term =
  | { kind: 'text'; value: string; negated: boolean; start: number; end: number }
  | { kind: 'tool'; value: string; negated: boolean; start: number; end: number }
  | { kind: 'error'; negated: boolean; start: number; end: number }
  | { kind: 'file'; value: string; negated: boolean; start: number; end: number }
  | { kind: 'failedEdit'; negated: boolean; start: number; end: number }
  | { kind: 'reason'; value: string; negated: boolean; start: number; end: number }
  | { kind: 'flag'; flag: SessionFlag; negated: boolean; start: number; end: number }
  | { kind: 'cwd' | 'id'; value: string; negated: boolean; start: number; end: number }
  | { kind: 'after' | 'before'; time: number; value: string; negated: boolean; start: number; end: number };

export interface Query {
  source: string;
  terms: Term[];
}

export interface QueryError {
  error: true;
  /** 0-based index into the query text, always < text length (0 for an empty text) */
  position: number;
  message: string;
}

export type ParseResult = Query | QueryError;

export const isQueryError = (r: ParseResult): r is QueryError => (r as QueryError).error === true;

/** Terms that need the session's events (the rest are answered from the header and facts). */
export const EVENT_TERMS: ReadonlySet<Term['kind']> = new Set(['text', 'tool', 'error', 'reason', 'file', 'failedEdit']);
export const isEventTerm = (t: Term): boolean => EVENT_TERMS.has(t.kind);

/**
 * The most characters (UTF-16 code units) a query may hold. A person's query
 * is a few words, a pasted error line or a path: well under a thousand
 * characters. The bound keeps every answer cheap (each term is one literal
 * search per text, see literal.ts) and turns a pasted log or a runaway script
 * into a clear usage error instead of minutes of work.
 */
export const MAX_QUERY_LENGTH = 1000;
/**
 * The most terms a query may hold. Terms AND together, so past a handful each
 * one narrows nothing a person would notice; 32 leaves room for any real
 * query while bounding the work per text at 32 literal searches.
 */
export const MAX_QUERY_TERMS = 32;

export const QUERY_FIELDS = ['tool', 'is', 'reason', 'file', 'cwd', 'id', 'after', 'before'] as const;
const IS_VALUES = ['error', 'failed-edit', 'open', 'fork', 'spawn', 'root', 'damaged', 'upgrade-refused'] as const;

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0' || c === '\u3000';

function fail(position: number, message: string): QueryError {
  return { error: true, position, message };
}

/** Reads a bare or quoted value starting at i; returns the value and the index after it. */
function readValue(text: string, i: number): { value: string; next: number } | QueryError {
  if (text[i] === '"') {
    const close = text.indexOf('"', i + 1);
    if (close < 0) return fail(i, `unterminated quote: add a closing " (opened at column ${i + 1})`);
    const after = close + 1;
    if (after < text.length && !isSpace(text[after])) return fail(after, `expected a space after the closing quote at column ${close + 1}`);
    return { value: text.slice(i + 1, close), next: after };
  }
  let j = i;
  while (j < text.length && !isSpace(text[j])) {
    if (text[j] === '"') return fail(j, 'a quote inside a word: put quotes around the whole phrase');
    j++;
  }
  return { value: text.slice(i, j), next: j };
}

/** A date: YYYY-MM-DD (that UTC day's start) or anything Date.parse reads as ISO. */
export function parseDate(value: string): number | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const t = Date.parse(value + 'T00:00:00Z');
    return Number.isNaN(t) ? undefined : t;
  }
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(value)) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

function fieldTerm(field: string, value: string, negated: boolean, start: number, end: number, valueAt: number): Term | QueryError {
  if (value === '') return fail(valueAt < end ? valueAt : start, `${field}: needs a value (e.g. ${field === 'is' ? 'is:error' : field === 'after' || field === 'before' ? `${field}:2026-11-30` : `${field}:bash`})`);
  const base = { negated, start, end };
  switch (field) {
    case 'tool':
      return { kind: 'tool', value, ...base };
    case 'reason':
      return { kind: 'reason', value, ...base };
    case 'file':
      return { kind: 'file', value, ...base };
    case 'cwd':
    case 'id':
      return { kind: field, value, ...base };
    case 'after':
    case 'before': {
      const time = parseDate(value);
      if (time === undefined) return fail(valueAt, `${field}: expects a date like 2026-11-30 or 2026-11-30T14:00Z, got ${JSON.stringify(value)}`);
      return { kind: field, time, value, ...base };
    }
    case 'is': {
      const v = value.toLowerCase();
      if (v === 'error') return { kind: 'error', ...base };
      if (v === 'failed-edit') return { kind: 'failedEdit', ...base };
      if ((IS_VALUES as readonly string[]).includes(v)) return { kind: 'flag', flag: v as SessionFlag, ...base };
      return fail(valueAt, `unknown is:${value}; known: ${IS_VALUES.map((x) => 'is:' + x).join(', ')}`);
    }
  }
  return fail(start, `unknown field ${field}:`);
}

/** A query error as one line, the same in `find`, the Sessions filter and the Turns search. */
export const queryErrorLine = (e: QueryError): string => `query error at column ${e.position + 1}: ${e.message}`;

/** Parses a query. Never throws; past the limits it answers at once, without reading the text. */
export function parseQuery(text: string): ParseResult {
  if (text.length > MAX_QUERY_LENGTH)
    return fail(MAX_QUERY_LENGTH, `query too long: ${text.length} characters; a query holds at most ${MAX_QUERY_LENGTH} characters`);
  const terms: Term[] = [];
  let i = 0;
  while (i < text.length) {
    if (isSpace(text[i])) {
      i++;
      continue;
    }
    const start = i;
    if (terms.length === MAX_QUERY_TERMS) return fail(start, `too many terms: a query holds at most ${MAX_QUERY_TERMS} terms (this is term ${MAX_QUERY_TERMS + 1})`);
    let negated = false;
    if (text[i] === '-') {
      negated = true;
      i++;
      if (i >= text.length || isSpace(text[i])) return fail(start, 'a lone "-": put the term to exclude right after it (-word)');
    }
    if (text[i] === '"') {
      const r = readValue(text, i);
      if ('error' in r) return r;
      if (r.value.trim() === '') return fail(i, 'empty phrase ""');
      terms.push({ kind: 'text', value: r.value, negated, start, end: r.next });
      i = r.next;
      continue;
    }
    const m = /^([a-z]+):/.exec(text.slice(i, i + 16));
    if (m && (QUERY_FIELDS as readonly string[]).includes(m[1])) {
      const valueAt = i + m[0].length;
      const r = valueAt < text.length && !isSpace(text[valueAt]) ? readValue(text, valueAt) : { value: '', next: valueAt };
      if ('error' in r) return r;
      const t = fieldTerm(m[1], r.value, negated, start, r.next, valueAt);
      if ('error' in t) return t;
      terms.push(t);
      i = r.next;
      continue;
    }
    if (m && text[i + m[0].length] !== '/' && text[i + m[0].length] !== undefined && !isSpace(text[i + m[0].length]))
      return fail(i, `unknown field ${m[1]}: (known: ${QUERY_FIELDS.join(', ')}); put the word in quotes to search for it as text`);
    const r = readValue(text, i);
    if ('error' in r) return r;
    terms.push({ kind: 'text', value: r.value, negated, start, end: r.next });
    i = r.next;
  }
  return { source: text, terms };
}

/** The query back as text (normalised); parseQuery(formatQuery(q)) has the same terms. */
export function formatQuery(q: Query): string {
  const val = (v: string) => (/[\s"]/.test(v) || v === '' ? `"${v}"` : v);
  return q.terms
    .map((t) => {
      const n = t.negated ? '-' : '';
      switch (t.kind) {
        case 'text':
          return n + (/^[a-z]+:/.test(t.value) || t.value.startsWith('-') || /[\s]/.test(t.value) ? `"${t.value}"` : t.value);
        case 'error':
          return `${n}is:error`;
        case 'failedEdit':
          return `${n}is:failed-edit`;
        case 'flag':
          return `${n}is:${t.flag}`;
        default:
          return `${n}${t.kind}:${val(t.value)}`;
      }
    })
    .join(' ');
}
