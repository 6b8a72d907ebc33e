// The catalog's row of a session as its facts are now (session/catalog-row.ts
// says what a row is): each value computed by the function that owns it, so a
// session listed from its row shows what it would show read.
import { listFactsOf, type CatalogRow } from '../session/catalog-row.js';
import { NO_FINDINGS } from '../session/event-audit.js';
import type { ForkBlock, SessionState } from '../session/log-facts.js';
import { takesParentTitle } from '../session/inherited-title.js';
import type { LogState, Session, ThawingRow } from '../session/session.js';
import type { SessionHeader } from '../session/events.js';
import { upgradeRefusal } from '../session/upgrade.js';
import { resumeVerdict } from './resume.js';
import { KEPT, NUM, PRESENT, TRANSIENT, storable, type Catalog } from './catalog-file.js';

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

/**
 * Stores `r` in an entry's columns (catalog-file.ts): its numbers in `nums`
 * (NaN for an absent one), its kept strings in `kept`. Returns its structure
 * finding's JSON ('' when absent), or undefined when the row would not come
 * back the same (a string with a lone surrogate, a number that is NaN).
 */
export function rowToColumns(r: CatalogRow, nums: Float64Array, kept: string[]): string | undefined {
  const values = [r.turns, r.events, r.diagnostics, r.consumed, r.tokens, r.lastEventTime, r.seedFrom];
  if (values.some((v) => Number.isNaN(v))) return undefined;
  nums[NUM.turns] = r.turns;
  nums[NUM.events] = r.events;
  nums[NUM.state] = STATES.indexOf(r.state);
  nums[NUM.diagnostics] = r.diagnostics;
  nums[NUM.block] = r.forkBlock === undefined ? -1 : BLOCKS.indexOf(r.forkBlock);
  nums[NUM.tokens] = r.tokens ?? NaN;
  nums[NUM.lastEventTime] = r.lastEventTime ?? NaN;
  nums[NUM.consumed] = r.consumed;
  nums[NUM.seedFrom] = r.seedFrom ?? NaN;
  let present = 0;
  const put = (field: number, bit: number, v: string | undefined): boolean => {
    if (v === undefined) return true;
    present |= bit;
    kept[field] = v;
    return storable(v);
  };
  if (!put(KEPT.title, PRESENT.title, r.title) || !put(KEPT.lastEventType, PRESENT.lastEventType, r.lastEventType) || !put(KEPT.upgrade, PRESENT.upgrade, r.upgrade) || !storable(r.resume)) return undefined;
  kept[KEPT.resume] = r.resume;
  if (r.takesTitle) present |= PRESENT.takesTitle;
  if (r.structure !== undefined) present |= PRESENT.structure;
  nums[NUM.present] = present;
  return r.structure === undefined ? '' : JSON.stringify(r.structure);
}

/**
 * A number read from the columns, as V8's small integer when it is one: a
 * double read from a Float64Array and stored in an object stays a boxed
 * number of its own (16 bytes) even when it is 4.
 */
const small = (v: number): number => (v === (v | 0) ? v | 0 : v);
const optNum = (v: number): number | undefined => (Number.isNaN(v) ? undefined : small(v));

/** Where a row's session has its reader's snapshot (the open catalog it was read from: fact-cache.ts). */
export interface SnapshotSource {
  restore(file: string, header: SessionHeader, at: number, length: number): LogState;
}

/**
 * A row read from the columns, which builds its session's log state from the
 * snapshot at [snapAt, snapAt + snapLength) of `source` (session.ts
 * ThawingRow). A class, its optional fields declared only
 * (absent until set, as in a row computed from facts): V8 sizes a class's
 * objects for the fields its first instances got, so the ones set after the
 * constructor stay inside the object; added to an object literal they went
 * to an array of their own (~60 bytes a row at 100,000 sessions).
 */
class ColumnRow implements ThawingRow {
  declare forkBlock?: ForkBlock;
  declare tokens?: number;
  declare title?: string;
  declare lastEventTime?: number;
  declare lastEventType?: string;
  declare upgrade?: string;
  declare takesTitle?: true;
  declare seedFrom?: number;
  declare structure?: CatalogRow['structure'];
  constructor(
    public turns: number,
    public events: number,
    public state: SessionState,
    public diagnostics: number,
    public resume: string,
    public consumed: number,
    private readonly source: SnapshotSource,
    private readonly snapAt: number,
    private readonly snapLength: number,
  ) {}

  thaw(file: string, header: SessionHeader): LogState {
    return this.source.restore(file, header, this.snapAt, this.snapLength);
  }
}

/** An event type, one string per type: 100,000 rows held as many copies of "turn/end" (2.4 MB). */
const types = new Map<string, string>();
function interned(type: string): string {
  const known = types.get(type);
  if (known !== undefined) return known;
  if (types.size < 1024) types.set(type, type);
  return type;
}

/** Entry `slot`'s row, its reader's snapshot at [at, at + length) of `source` (undefined: its columns hold none that rowToColumns could have written: the entry is read again). */
export function rowFromColumns(cat: Catalog, slot: number, source: SnapshotSource, at: number, length: number): ThawingRow | undefined {
  const num = (f: number): number => cat.num(slot, f);
  const [turns, events, diagnostics, consumed] = [small(num(NUM.turns)), small(num(NUM.events)), small(num(NUM.diagnostics)), small(num(NUM.consumed))];
  const state = STATES[num(NUM.state)];
  const block = num(NUM.block);
  const present = num(NUM.present);
  if (!Number.isFinite(turns) || !Number.isFinite(events) || !Number.isFinite(diagnostics) || !Number.isFinite(consumed) || state === undefined || (block !== -1 && BLOCKS[block] === undefined) || !(present >= 0 && present < 32)) return undefined;
  const r = new ColumnRow(turns, events, state, diagnostics, cat.kept(slot, KEPT.resume), consumed, source, small(at), small(length));
  if (block !== -1) r.forkBlock = BLOCKS[block];
  const tokens = optNum(num(NUM.tokens));
  if (tokens !== undefined) r.tokens = tokens;
  if (present & PRESENT.title) r.title = cat.kept(slot, KEPT.title);
  const last = optNum(num(NUM.lastEventTime));
  if (last !== undefined) r.lastEventTime = last;
  if (present & PRESENT.lastEventType) r.lastEventType = interned(cat.kept(slot, KEPT.lastEventType));
  if (present & PRESENT.upgrade) r.upgrade = cat.kept(slot, KEPT.upgrade);
  if (present & PRESENT.takesTitle) r.takesTitle = true;
  const seedFrom = optNum(num(NUM.seedFrom));
  if (seedFrom !== undefined) r.seedFrom = seedFrom;
  if (present & PRESENT.structure) {
    const json = cat.transient(slot, TRANSIENT.structure);
    if (json === '[]') r.structure = NO_FINDINGS;
    else {
      const structure = JSON.parse(json) as unknown;
      if (!Array.isArray(structure)) return undefined;
      r.structure = structure as CatalogRow['structure'];
    }
  }
  return r;
}
