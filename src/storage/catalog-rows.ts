// The catalog's row of a session as its facts are now (session/catalog-row.ts
// says what a row is): each value computed by the function that owns it, so a
// session listed from its row shows what it would show read.
import { listFactsOf, type CatalogRow } from '../session/catalog-row.js';
import { NO_FINDINGS } from '../session/event-audit.js';
import type { ForkBlock, SessionState } from '../session/log-facts.js';
import { takesParentTitle } from '../session/inherited-title.js';
import type { Session } from '../session/session.js';
import { upgradeRefusal } from '../session/upgrade.js';
import { resumeVerdict } from './resume.js';

/** The row of `s` (its log state is built if it was not: the catalog's writer calls it for a session it read). */
export function catalogRowOf(s: Session): CatalogRow {
  const log = s.log;
  const row: CatalogRow = { ...listFactsOf(s), resume: resumeVerdict(s).reason ?? '', consumed: log.consumed };
  const upgrade = upgradeRefusal(s);
  if (upgrade !== undefined) row.upgrade = upgrade;
  if (takesParentTitle(s)) row.takesTitle = true;
  if (s.header.version >= 2 && log.facts.seedFrom !== undefined) row.seedFrom = log.facts.seedFrom;
  const structure = log.structure?.();
  if (structure !== undefined) row.structure = structure;
  return row;
}

const STATES: readonly SessionState[] = ['empty', 'at-boundary', 'open-turn'];
const BLOCKS: readonly ForkBlock[] = ['open-turn', 'seq-gap'];
const opt = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

/** A row as the catalog stores it: its values by position, absent ones null (JSON-safe, a third of the keyed form). */
export function packRow(r: CatalogRow): unknown[] {
  return [r.turns, r.events, STATES.indexOf(r.state), r.diagnostics, r.forkBlock === undefined ? -1 : BLOCKS.indexOf(r.forkBlock), opt(r.tokens), opt(r.title), opt(r.lastEventTime), opt(r.lastEventType), r.resume, opt(r.upgrade), r.takesTitle ? 1 : 0, r.consumed, opt(r.seedFrom), opt(r.structure)];
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const optNum = (v: unknown): boolean => v === null || isNum(v);
const optStr = (v: unknown): boolean => v === null || typeof v === 'string';

/** packRow's array back (undefined: not one: the entry is read again). */
export function unpackRow(a: unknown): CatalogRow | undefined {
  if (!Array.isArray(a) || a.length !== 15) return undefined;
  const [turns, events, state, diagnostics, block, tokens, title, lastEventTime, lastEventType, resume, upgrade, takesTitle, consumed, seedFrom, structure] = a as unknown[];
  if (!isNum(turns) || !isNum(events) || !isNum(diagnostics) || !isNum(consumed) || typeof resume !== 'string') return undefined;
  if (STATES[state as number] === undefined || (block !== -1 && BLOCKS[block as number] === undefined)) return undefined;
  if (!optNum(tokens) || !optStr(title) || !optNum(lastEventTime) || !optStr(lastEventType) || !optStr(upgrade) || !optNum(seedFrom) || !(structure === null || Array.isArray(structure))) return undefined;
  const r: CatalogRow = { turns, events, state: STATES[state as number], diagnostics, resume, consumed };
  if (block !== -1) r.forkBlock = BLOCKS[block as number];
  if (tokens !== null) r.tokens = tokens as number;
  if (title !== null) r.title = title as string;
  if (lastEventTime !== null) r.lastEventTime = lastEventTime as number;
  if (lastEventType !== null) r.lastEventType = lastEventType as string;
  if (upgrade !== null) r.upgrade = upgrade as string;
  if (takesTitle === 1) r.takesTitle = true;
  if (seedFrom !== null) r.seedFrom = seedFrom as number;
  if (structure !== null) r.structure = (structure as unknown[]).length === 0 ? NO_FINDINGS : (structure as CatalogRow['structure']);
  return r;
}
