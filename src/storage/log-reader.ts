// Incremental JSONL reader: header, envelope and seq checks, packed-row
// expansion, diagnostics with file and line. Feeds only complete lines; a
// final line without "\n" is pending (an append in progress), never an error.
import { isUtf8 } from 'node:buffer';
import { checkHeader, expandRow, isHeaderProblem, type SessionEvent, type SessionHeader } from '../session/events.js';
import { foreignFormat, foreignFormatText, generationMismatch, knownType, NEWEST_FORMAT, seedByMarker, unknownEventReason, type HeaderProblem } from '../session/formats.js';
import { generationOf } from '../session/generation-name.js';
import { compactSeqs, emptyFacts, foldEvent, packFacts, type LogFacts } from '../session/log-facts.js';
import { auditFromJson, auditToJson, expand, foldAudit, NO_FINDINGS, quietExpect, UNKNOWN, type AuditFold, type StructureFinding } from '../session/event-audit.js';
import { usesRc8Rule } from '../session/era.js';
import type { LoadProgress } from '../session/session.js';
import { scanEnvelope, scannedOddEnvelope, scannedSurfaceKeys, SURFACE_OP } from './envelope-scan.js';
import { firstRefusal, rowNeedsCheck, rowRefusal } from '../session/row-rules.js';
import { envelopeProblem, foldRc8Event } from '../session/rc8-rules.js';

import type { Diagnostic } from "../session/diagnostics.js";
export type { Diagnostic };

/** Diagnostics kept per file; past it one TOO_MANY_DIAGNOSTICS says the rest are not listed. */
export const MAX_DIAGNOSTICS = 1000;
/** Lines longer than this are reported and skipped instead of parsed (bounded memory). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/**
 * How far the end of one over-long line is looked for. Past this (a multi-GB
 * file with no newline, e.g. a sparse or corrupt file) the file is given up
 * with a LINE_TOO_LONG diagnostic instead of being scanned to its end.
 */
export const MAX_LINE_SCAN = 1024 * 1024 * 1024;

export interface LogReaderOptions {
  /** Keep parsed events (an opened session) or only fold them into facts (the index). */
  retain: boolean;
  /**
   * With retain: which events to keep, asked of an event line (valid UTF-8) whose
   * envelope the scan read (envelope-scan.ts), with its type and bytes [start, end)
   * of `buf`. An event it declines is folded into the facts from its envelope,
   * never parsed, and not kept: `events` then holds only some of the log's events
   * (`find` keeps the lines that may hold its words; see search.ts eventLineFilter).
   * Events of types whose fold reads their data are always parsed and kept.
   */
  keepLine?: KeepLine;
}

/** See LogReaderOptions.keepLine. */
export type KeepLine = (type: string, buf: Buffer, start: number, end: number) => boolean;

/**
 * The fold of a read that starts in the usual end state (see LogReader's
 * `audit`): one for all readers, so such a read allocates none (a fold and
 * its map for each of 100,000 logs was garbage the scan's slices paid for).
 * Safe to share: feed() runs to its end at once, and a reader whose read
 * ends elsewhere takes it as its own (keepFold).
 */
let scratch: AuditFold = expand(0)!;

/** The events of a reader that retains none: one shared, frozen array (two empty arrays per session were 6 MB at 100,000 sessions). */
const NONE: never[] = Object.freeze([]) as never[];
/** The diagnostics of a reader that has none yet: shared and frozen (an empty array each was 3 MB at 100,000 sessions). */
const NO_DIAGNOSTICS: Diagnostic[] = Object.freeze([]) as never[];

export class LogReader {
  header?: SessionHeader;
  /** Set when the file cannot be a session (no/foreign header). */
  declare refused?: string;
  facts: LogFacts = emptyFacts();
  /** NO_DIAGNOSTICS (shared) until the first one: most logs have none */
  diagnostics: Diagnostic[] = NO_DIAGNOSTICS;
  /** NONE (the prototype's) unless retaining */
  declare events: SessionEvent[];
  /** byte offset just after the line holding each retained event */
  declare eventEnds: number[];
  /** keeps parsed events (an opened session) or only folds them into facts (the index); false on the prototype */
  declare private retain: boolean;
  /** see LogReaderOptions.keepLine */
  declare private keepLine?: KeepLine;
  /** Byte offset after the last complete line consumed. */
  consumed = 0;
  /** Byte offset after the header line. */
  headerEnd = 0;
  /** Offset of the first line that was skipped or damaged; Infinity (the prototype's) when none. */
  declare firstAnomaly: number;
  /** Number of complete lines consumed (header included). */
  lines = 0;
  /** Start of an over-long line whose end has not been found yet (it is being skipped unread). */
  declare skipFrom?: number;
  /** While skipping: bytes up to this offset are known to hold no newline (0 on the prototype). */
  declare scanned: number;
  /** Set when a line ran past MAX_LINE_SCAN with no end: the rest of the file is not read (false on the prototype). */
  declare gaveUp: boolean;
  private nextSeq = 0;
  /**
   * The audit's structural checks folded over the events read
   * (event-audit.ts): undefined (the prototype's: no field of its own) in
   * the state nearly every log ends in, between turns with nothing found,
   * where the next turn's number is facts.turns + 1; UNKNOWN for a fold the
   * fact cache could not give back; else the fold.
   */
  declare private audit?: AuditFold | typeof UNKNOWN;

  constructor(
    readonly file: string,
    opts: LogReaderOptions,
  ) {
    if (opts.retain) {
      this.retain = true;
      if (opts.keepLine) this.keepLine = opts.keepLine;
      this.events = [];
      this.eventEnds = [];
    }
  }

  /**
   * A facts-only reader that has read what there is: its facts' seq lists
   * shared with other logs' when short, else trimmed to their length (a
   * pushed array keeps room for 16 more: 130 bytes a session at 100,000
   * sessions); no diagnostics list of its own when it has none. Later
   * appends make them its own again.
   */
  compact(): void {
    if (this.retain) return;
    compactSeqs(this.facts);
    if (this.diagnostics.length === 0) this.diagnostics = NO_DIAGNOSTICS;
  }

  /**
   * Everything the reader knows after a read, as plain JSON-safe data (no
   * events): what the fact cache (fact-cache.ts) stores so a later run can
   * rebuild this reader without reading the file, and go on following it
   * from `consumed` exactly as this one would. firstAnomaly's Infinity is -1.
   */
  snapshot(): ReaderSnapshot {
    const s: ReaderSnapshot = {
      header: this.header,
      facts: this.facts,
      diagnostics: this.diagnostics,
      consumed: this.consumed,
      headerEnd: this.headerEnd,
      firstAnomaly: this.firstAnomaly === Infinity ? -1 : this.firstAnomaly,
      lines: this.lines,
      nextSeq: this.nextSeq,
    };
    if (this.refused !== undefined) s.refused = this.refused;
    if (this.skipFrom !== undefined) {
      s.skipFrom = this.skipFrom;
      s.scanned = this.scanned;
    }
    if (this.gaveUp) s.gaveUp = true;
    if (this.unlisted) s.unlisted = this.unlisted;
    if (this.unknownTypes?.size) s.unknownTypes = [...this.unknownTypes];
    s.audit = auditToJson(this.audit ?? this.facts.turns + 1);
    return s;
  }

  /** A reader in the state `snapshot()` described (not retaining events). */
  static restore(file: string, s: ReaderSnapshot): LogReader {
    const r = new LogReader(file, { retain: false });
    r.header = s.header;
    if (s.header?.cwd !== undefined) s.header.cwd = sharedCwd(s.header.cwd);
    r.facts = packFacts(s.facts);
    // the fold as it was (a snapshot without one, or with one that does not read back: the audit reads the log when it needs it)
    const audit = s.audit === undefined ? UNKNOWN : auditFromJson(s.audit);
    if (audit === UNKNOWN) r.audit = UNKNOWN;
    else if (audit !== r.facts.turns + 1) r.keepFold(typeof audit === 'number' ? expand(audit)! : audit); // (the usual end state: nothing to keep)
    if (s.diagnostics.length > 0) r.diagnostics = s.diagnostics;
    r.consumed = s.consumed;
    r.headerEnd = s.headerEnd;
    if (s.firstAnomaly >= 0) r.firstAnomaly = s.firstAnomaly;
    r.lines = s.lines;
    r.nextSeq = s.nextSeq;
    if (s.refused !== undefined) r.refused = s.refused;
    if (s.skipFrom !== undefined) {
      r.skipFrom = s.skipFrom;
      r.scanned = s.scanned ?? 0;
    }
    if (s.gaveUp) r.gaveUp = true;
    if (s.unlisted) r.unlisted = s.unlisted;
    if (s.unknownTypes?.length) r.unknownTypes = new Set(s.unknownTypes);
    return r;
  }

  /**
   * A reader that keeps events, placed at byte `offset` of a log already read
   * once (a line start), where the last event read had seq `nextSeq - 1`: it
   * reads a byte range again and accepts and skips exactly the lines the first
   * read did (the offset index, turn-index.ts). Its diagnostics are not the
   * file's: that read said them.
   */
  static at(file: string, header: SessionHeader, offset: number, nextSeq: number): LogReader {
    const r = new LogReader(file, { retain: true });
    r.header = header;
    r.consumed = offset;
    r.headerEnd = offset;
    r.lines = 2; // past the header and the test-snapshot check of line 2
    r.nextSeq = nextSeq;
    r.audit = UNKNOWN; // no audit fold: the range is not the whole log
    return r;
  }

  /** The audit's structural findings of the events read so far (undefined: not known, from a fact cache entry without a fold that reads back). */
  structure(): readonly StructureFinding[] | undefined {
    const a = this.audit;
    return a === undefined ? NO_FINDINGS : a === UNKNOWN ? undefined : (a.found ?? NO_FINDINGS);
  }

  /** The fold to add this read's events to (undefined: not known); from the usual end state, the shared scratch fold. */
  private openFold(): AuditFold | undefined {
    const a = this.audit;
    if (a !== undefined) return a === UNKNOWN ? undefined : a;
    scratch.turn = null;
    scratch.step = false;
    scratch.expect = this.facts.turns + 1;
    scratch.pending = scratch.found = undefined;
    return scratch;
  }

  /** Keeps `fold` after a read: as nothing of its own when it is the usual end state (see `audit`). */
  private keepFold(fold: AuditFold): void {
    if (quietExpect(fold) === this.facts.turns + 1) {
      if (this.audit !== undefined) this.audit = undefined;
      return;
    }
    this.audit = fold;
    if (fold === scratch) scratch = expand(0)!; // it is this reader's now
  }

  /** How far this reader has got of `end` bytes (a load in steps shows it). */
  progress(end: number): LoadProgress {
    const skipping = this.skipFrom !== undefined;
    return { read: skipping ? Math.max(this.scanned, this.consumed) : this.consumed, end, skipFrom: this.skipFrom, line: this.lines + 1 };
  }

  /** The events retained so far, handed over and no longer held here (a read that streams its events: Session.eventBatches). */
  takeEvents(): SessionEvent[] {
    return this.takeRetained().events;
  }

  /** takeEvents with the byte offset just after the line that held each (a fork's seed scan: seed-prefix.ts). */
  takeRetained(): { events: SessionEvent[]; ends: number[] } {
    if (!this.retain) return { events: [], ends: [] };
    const out = { events: this.events, ends: this.eventEnds };
    this.events = [];
    this.eventEnds = [];
    return out;
  }

  /** Stops retaining events and frees the ones held (an unloaded session keeps only its facts). */
  release(): void {
    this.retain = false;
    this.keepLine = undefined;
    this.events = NONE;
    this.eventEnds = NONE;
    this.compact();
  }

  /**
   * Consumes every complete line of `buf`, which holds the file's bytes from
   * offset `this.consumed` on. Returns the number of bytes consumed.
   */
  feed(buf: Buffer): number {
    // Facts only: event lines may be scanned instead of parsed (envelope-scan.ts), which
    // reads raw bytes, so only when they are valid UTF-8 (one native check per chunk;
    // a chunk that fails is checked line by line in line()).
    const utf8 = (!this.retain || this.keepLine !== undefined) && isUtf8(buf.subarray(0, buf.lastIndexOf(10) + 1));
    const fold = this.openFold();
    let pos = 0;
    for (;;) {
      const nl = buf.indexOf(10, pos);
      if (nl < 0) break;
      this.line(buf, pos, nl, this.consumed + pos, this.consumed + nl + 1, utf8, fold);
      pos = nl + 1;
    }
    this.consumed += pos;
    if (fold) this.keepFold(fold);
    return pos;
  }

  /** Records a line that was over MAX_LINE_BYTES and skipped unread: bytes [absStart, absEnd). */
  skipLine(absStart: number, absEnd: number): void {
    this.skipFrom = undefined;
    const lineNo = ++this.lines;
    this.anomaly(absStart);
    this.diag('error', 'LINE_TOO_LONG', `line is ${absEnd - absStart - 1} bytes, over the ${MAX_LINE_BYTES}-byte limit: skipped`, lineNo);
    if (lineNo === 1) this.refused = 'header line too long';
    this.consumed = absEnd;
  }

  /** Starts skipping the over-long line that begins at `consumed`; `scanned` bytes hold no newline. */
  startSkip(scanned: number): void {
    this.skipFrom = this.consumed;
    this.scanned = scanned;
  }

  /** The line being skipped has no end in its first MAX_LINE_SCAN bytes: stop reading this file. */
  giveUp(): void {
    const from = this.skipFrom ?? this.consumed;
    const lineNo = this.lines + 1;
    this.gaveUp = true;
    this.anomaly(from);
    this.diag(
      'error',
      'LINE_TOO_LONG',
      `line runs over ${MAX_LINE_SCAN} bytes with no end (from byte ${from}): the rest of the file is not read`,
      lineNo,
    );
    if (lineNo === 1) this.refused = 'header line too long';
  }

  /** Adds a diagnostic found outside the lines (a seed-marker rule, a damaged compressed frame). */
  addDiagnostic(d: Diagnostic): void {
    if (this.diagnostics === NO_DIAGNOSTICS) this.diagnostics = [];
    this.diagnostics.push(d);
  }

  private diag(severity: Diagnostic['severity'], code: string, message: string, line?: number): void {
    if (this.diagnostics.length >= MAX_DIAGNOSTICS) {
      // a log of millions of bad lines (a compressed bomb makes one cheaply) must not hold a diagnostic per line
      if (this.unlisted++ === 0)
        this.addDiagnostic({ file: this.file, line, severity: 'error', code: 'TOO_MANY_DIAGNOSTICS', message: `over ${MAX_DIAGNOSTICS} problems in this file: the rest (from this line on) are not listed` });
      return;
    }
    this.addDiagnostic({ file: this.file, line, severity, code, message });
  }
  /** problems not listed past MAX_DIAGNOSTICS (0 on the prototype) */
  declare unlisted: number;

  private anomaly(offset: number): void {
    if (offset < this.firstAnomaly) this.firstAnomaly = offset;
  }

  /** `utf8Chunk`: feed()'s whole chunk is valid UTF-8 (checked only when not retaining events) */
  private line(buf: Buffer, start: number, end: number, absStart: number, absEnd: number, utf8Chunk: boolean, fold: AuditFold | undefined): void {
    const lineNo = ++this.lines;
    if (this.refused !== undefined) return;
    let e = end;
    if (e > start && buf[e - 1] === 13) e--; // CRLF
    const length = e - start;
    if (length > MAX_LINE_BYTES) {
      this.anomaly(absStart);
      this.diag('error', 'LINE_TOO_LONG', `line is ${length} bytes, over the ${MAX_LINE_BYTES}-byte limit: skipped`, lineNo);
      if (lineNo === 1) this.refused = 'header line too long';
      return;
    }
    if (lineNo > 1 && (!this.retain || this.keepLine !== undefined) && (utf8Chunk || isUtf8(buf.subarray(start, e)))) {
      // The index needs the facts only: most events without building their strings (same
      // facts and diagnostics; anything the scan is not sure of takes the full parse below).
      // With keepLine, the events it declines likewise (a line it keeps is parsed below).
      const ev = scanEnvelope(buf, start, e);
      if (ev && (!this.retain || !this.keepLine!(ev.type, buf, start, e)) && this.scannedRowPlain(ev.type)) return this.accept([ev], lineNo, absStart, absEnd, fold, false);
    }
    let text = buf.toString('utf8', start, e);
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.includes('\uFFFD') && !isUtf8(buf.subarray(start, e)))
      this.diag('warning', 'INVALID_UTF8', 'invalid UTF-8 bytes replaced by U+FFFD', lineNo);
    if (text.trim() === '') {
      if (lineNo === 1) return this.refuse('empty first line: no session header', lineNo);
      this.anomaly(absStart);
      this.diag('warning', 'BLANK_LINE', 'blank line ignored', lineNo);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.anomaly(absStart);
      const why = err instanceof Error ? err.message : String(err);
      if (lineNo === 1) return this.refuse(`header is not valid JSON: ${why}`, lineNo);
      return this.salvage(text, why, lineNo, absStart, absEnd, fold);
    }
    if (lineNo === 1) {
      const h = checkHeader(value);
      if (isHeaderProblem(h)) return this.refuse(h.message, lineNo, h.code);
      const mismatch = generationMismatch(generationOf(baseName(this.file)), h.version);
      if (mismatch) return this.refuse(mismatch, lineNo, 'BAD_HEADER');
      if (h.cwd !== undefined) h.cwd = sharedCwd(h.cwd);
      this.header = h;
      const foreign = foreignFormat(h as SessionHeader & Record<string, unknown>);
      if (foreign) this.diag('warning', 'FOREIGN_FORMAT', `${foreignFormatText(foreign)}: the harness's own formats end at v${NEWEST_FORMAT}; read by its shape (the envelope, the header core, both tool-result shapes), read-only`, lineNo);
      if (seedByMarker(h)) this.facts.seedMarker = h.isSeeded === true ? 'seeded' : 'unseeded';
      else if (h.seedLength !== undefined) this.facts.seedFrom = h.seedLength;
      if (usesRc8Rule(h, this.file)) {
        this.facts.rc8Rule = true;
        if (h.version === 0) this.rc8v0 = true;
      }
      this.headerEnd = absEnd;
      return;
    }
    if (lineNo === 2 && isSnapshotRow(value))
      return this.refuse('rows carry no "seq" or "time": a harness test snapshot (a projected log), not a stored session log', lineNo, 'NOT_A_STORED_LOG');
    const version = this.header?.version ?? 0;
    if (version >= 2 && version <= NEWEST_FORMAT) this.checkRow(version, value, lineNo);
    const rows = expandRow(value, version === 0);
    if (typeof rows === 'string') {
      this.anomaly(absStart);
      this.diag('error', 'BAD_EVENT', rows, lineNo);
      return;
    }
    if (this.rc8v0 && rows[0] !== value) this.checkPackedRc8(value as Record<string, unknown>, lineNo, absStart);
    if (this.rc8v0 && this.facts.rc8Envelope === undefined && rows.length === 1 && rows[0] === value) {
      const why = envelopeProblem(value as Record<string, unknown>);
      if (why !== undefined) this.facts.rc8Envelope = { seq: rows[0].seq, why };
    }
    this.accept(rows, lineNo, absStart, absEnd, fold);
  }

  /**
   * A damaged line may hold whole events welded to a torn one (a crash mid
   * append, then the next append). Recover every fragment that starts at
   * '{"type":' and parses; report the rest.
   */
  private salvage(text: string, why: string, lineNo: number, absStart: number, absEnd: number, fold: AuditFold | undefined): void {
    const cuts: number[] = [];
    for (let i = text.indexOf('{"type":'); i >= 0 && cuts.length < 64; i = text.indexOf('{"type":', i + 1)) cuts.push(i);
    const ends = [...cuts.slice(1), text.length];
    const recovered: SessionEvent[][] = [];
    let lost = cuts.length === 0 || cuts[0] > 0 ? 1 : 0;
    // Greedy left to right: from each start, the shortest span that parses as an event.
    for (let k = 0; k < cuts.length; ) {
      let next = -1;
      for (let j = k; j < ends.length; j++) {
        const rows = tryRow(text.slice(cuts[k], ends[j]));
        if (rows) {
          recovered.push(rows);
          next = j + 1;
          break;
        }
      }
      if (next < 0) {
        lost++;
        k++;
      } else k = next;
    }
    if (recovered.length === 0) {
      this.diag('error', 'MALFORMED_LINE', `not valid JSON: ${why}`, lineNo);
      return;
    }
    this.diag('error', 'MALFORMED_LINE', `damaged line (welded or torn): recovered ${recovered.length} event row(s), ${lost} fragment(s) unreadable`, lineNo);
    for (const rows of recovered) this.accept(rows, lineNo, absStart, absEnd, fold);
  }

  /**
   * Whether the row the scan just read needs no rule that only its parse can
   * check: rc.8's envelope (a v0 log under its rules) or, in a v2+ log, the
   * harness's row rules (row-rules.ts).
   */
  private scannedRowPlain(type: string): boolean {
    const version = this.header?.version ?? 0;
    if (version > NEWEST_FORMAT) return true; // a fork's format: no rule of the harness's applies
    if (version >= 2) return !scannedOddEnvelope() && !rowNeedsCheck(version, type, scannedSurfaceKeys() !== 0, (scannedSurfaceKeys() & SURFACE_OP) !== 0, knownType(version, type));
    return !(this.rc8v0 && scannedOddEnvelope());
  }

  /** v2+: the harness's rules for the row on line `lineNo` (row-rules.ts): each refused row is reported, the one it would name kept. */
  private checkRow(version: number, row: unknown, lineNo: number): void {
    const type = (row as { type?: unknown } | null)?.type;
    const refusal = rowRefusal(version, row, lineNo - 2, typeof type === 'string' && knownType(version, type));
    if (refusal === undefined) return;
    this.facts.rowRefusal = firstRefusal(this.facts.rowRefusal, refusal);
    this.diag('error', 'BAD_ROW', `the harness refuses this log: ${refusal.why}`, lineNo);
  }

  /**
   * rc.8 parses a packed row only as exactly {type, seq0, time0, data}
   * (validateRow, dsh-session's decodeStorageRecord): another key makes it an
   * unparsable committed line, damage like a torn one (its events are still shown).
   */
  private checkPackedRc8(row: Record<string, unknown>, lineNo: number, absStart: number): void {
    const extra = Object.keys(row).find((k) => k !== 'type' && k !== 'seq0' && k !== 'time0' && k !== 'data');
    if (extra === undefined) return;
    this.anomaly(absStart);
    this.diag('error', 'BAD_EVENT', `packed row ${String(row.type)} has the key ${JSON.stringify(extra.slice(0, 40))}: rc.8 reads only type, seq0, time0 and data, and calls the line unparsable`, lineNo);
  }

  /** v2+: an unknown event type without ignorable: true makes the harness refuse the log; said once per type. */
  private vocabulary(version: number, ev: SessionEvent, lineNo: number): void {
    const why = unknownEventReason(version, ev.type, ev.ignorable);
    if (why === undefined || this.unknownTypes?.has(ev.type) || (this.unknownTypes?.size ?? 0) >= 20) return;
    (this.unknownTypes ??= new Set()).add(ev.type);
    this.facts.unknownEventLine ??= lineNo;
    this.diag('error', 'UNKNOWN_EVENT', why, lineNo);
  }
  /** a v0 log under rc.8's rules (its header or its folder): foldRc8Event and the envelope check apply (rc8-rules.ts) */
  declare private rc8v0?: true;
  /** made on the first unknown type: most logs have none, and a Set costs ~150 bytes in each of 100,000 sessions */
  declare private unknownTypes?: Set<string>;

  private refuse(message: string, line: number, code: HeaderProblem['code'] | 'NOT_A_STORED_LOG' = 'NO_HEADER'): void {
    this.refused = message;
    this.diag('error', code, message, line);
  }

  /** `fold`: the audit's fold to add the events to (undefined: not known) */
  private accept(rows: SessionEvent[], lineNo: number, absStart: number, absEnd: number, fold: AuditFold | undefined, keep = this.retain): void {
    const first = rows[0].seq;
    if (first < this.nextSeq) {
      this.anomaly(absStart);
      this.diag('error', 'DUPLICATE_SEQ', `seq ${first} repeats (expected ${this.nextSeq}): line skipped`, lineNo);
      return;
    }
    if (first > this.nextSeq) {
      this.anomaly(absStart);
      if (this.facts.validLength === undefined) this.facts.validLength = this.facts.events;
      this.diag('error', 'SEQ_GAP', `seq gap: expected seq ${this.nextSeq}, got ${first}; events from here on are shown but cannot be forked`, lineNo);
    }
    // The harness refuses (corrupt committed region) a log whose damage precedes a turn/end.
    if (this.facts.damagedBeforeTurnEnd === undefined && this.firstAnomaly <= absStart && (first !== this.nextSeq || this.firstAnomaly < absStart) && rows.some((e) => e.type === 'turn/end'))
      this.facts.damagedBeforeTurnEnd = lineNo;
    const version = this.header?.version ?? 0;
    for (const ev of rows) {
      if (version >= 2 && version <= NEWEST_FORMAT) this.vocabulary(version, ev, lineNo);
      else if (this.rc8v0) foldRc8Event(this.facts, ev);
      foldEvent(this.facts, ev);
      if (fold) foldAudit(fold, ev);
      if (keep) {
        this.events.push(ev);
        this.eventEnds.push(absEnd);
      }
    }
    this.nextSeq = rows[rows.length - 1].seq + 1;
  }

}

// What nearly every reader of an index holds, once, on the prototype: a field
// is an own property only in a reader that sets it (retaining events, an
// anomaly, an over-long line, a flood of diagnostics). A facts-only reader was
// ~180 bytes with every field its own (Infinity a boxed number of its own too),
// ~60 bytes this way: 12 MB at 100,000 sessions.
Object.assign(LogReader.prototype, { retain: false, events: NONE, eventEnds: NONE, firstAnomaly: Infinity, scanned: 0, gaveUp: false, unlisted: 0 });

/**
 * One string per working folder: thousands of sessions of one project name
 * the same cwd (a copy each was ~40 bytes a session). Bounded: past
 * MAX_SHARED_CWDS folders, new ones keep their own copy.
 */
const cwds = new Map<string, string>();
const MAX_SHARED_CWDS = 10_000;
function sharedCwd(cwd: string): string {
  const known = cwds.get(cwd);
  if (known !== undefined) return known;
  if (cwds.size < MAX_SHARED_CWDS) cwds.set(cwd, cwd);
  return cwd;
}

/** A LogReader's state without its events (LogReader.snapshot, LogReader.restore). */
export interface ReaderSnapshot {
  header?: SessionHeader;
  refused?: string;
  facts: LogFacts;
  diagnostics: Diagnostic[];
  consumed: number;
  headerEnd: number;
  /** -1: none (Infinity in the reader) */
  firstAnomaly: number;
  lines: number;
  nextSeq: number;
  skipFrom?: number;
  scanned?: number;
  gaveUp?: true;
  unlisted?: number;
  unknownTypes?: string[];
  /** the audit's fold over the events read (event-audit.ts auditToJson) */
  audit?: unknown;
}

/** A row of the harness's projected test snapshots: an event with neither seq nor time (seq0 marks a packed row). */
function isSnapshotRow(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return typeof r.type === 'string' && r.type !== 'session' && 'data' in r && r.seq === undefined && r.time === undefined && r.seq0 === undefined;
}

const baseName = (file: string): string => file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);

function tryRow(frag: string): SessionEvent[] | undefined {
  try {
    const rows = expandRow(JSON.parse(frag));
    return typeof rows === 'string' ? undefined : rows;
  } catch {
    return undefined;
  }
}
