// The SessionPersistence that writes children next to their parents.
import fs from 'node:fs';
import path from 'node:path';
import type { SessionEvent, SessionHeader } from '../session/events.js';
import { emptyFacts, foldEvent, isBoundary, prefixFacts, type LogFacts } from '../session/log-facts.js';
import { Session, type LogState } from '../session/session.js';
import type { SeedPrefix, SessionPersistence } from '../session/store.js';
import { scanPrefix, type PrefixScan } from './seed-prefix.js';
import { writeNewSessionFile, type ByteRange, type NewFileBody } from './atomic-writer.js';
import { SessionForkError } from '../session/errors.js';
import { usesRc8Rule } from '../session/era.js';
import { encodeId } from './id-encoding.js';
import { generationOf } from '../session/generation-name.js';
import { seedByMarker } from '../session/formats.js';
import { childPath, invalidIdReason, layoutOf, rc8RootOf, type ChildTarget } from './layout.js';
import { ownLogLoader } from './session-file.js';
import { isCompressedLog, zstdSeed, zstdText } from './zstd-log.js';

/** The first session files of each encoding in an rc.8 root, when it holds both (rc.8 refuses such a root). */
export function mixedEncoding(root: string): { odd: string; oddSuffix: string; other: string; otherSuffix: string } | undefined {
  let plain: string | undefined;
  let zstd: string | undefined;
  const list = (d: string): fs.Dirent[] => {
    try {
      return fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return [];
    }
  };
  for (const project of list(root)) {
    if (!project.isDirectory()) continue;
    for (const s of list(path.join(root, project.name))) {
      if (!s.isDirectory()) continue;
      for (const f of list(path.join(root, project.name, s.name))) {
        const p = path.join(root, project.name, s.name, f.name);
        // every generation name counts (session.jsonl, session.v4.jsonl.zstd, ...): a root has one encoding
        if (generationOf(f.name) === undefined) continue;
        if (f.name.endsWith('.zstd')) zstd ??= p;
        else plain ??= p;
      }
      if (plain && zstd) return { odd: plain, oddSuffix: '.jsonl', other: zstd, otherSuffix: '.jsonl.zstd' };
    }
  }
  return undefined;
}

/**
 * Header keys in the order the harness writes them: the RFC era's
 * type, version, id, createdAt, cwd?, parentSession?, seedLength?; rc.8 goes on
 * with origin?, delegationDepth, agentPreset?; v2-v4 put isSeeded where
 * seedLength was. Absent keys are left out.
 */
export function headerLine(h: SessionHeader): string {
  const { type, version, id, createdAt, cwd, parentSession, seedLength, isSeeded, origin, delegationDepth, agentPreset, ...rest } = h;
  const o: Record<string, unknown> = { type, version, id, createdAt };
  if (cwd !== undefined) o.cwd = cwd;
  if (parentSession !== undefined) o.parentSession = parentSession;
  if (seedLength !== undefined) o.seedLength = seedLength;
  // v2+ (the v1-to-v2 codec's encodeHeader, kept by v3 and v4): isSeeded between parentSession and origin
  if (isSeeded !== undefined) o.isSeeded = isSeeded;
  if (origin !== undefined) o.origin = origin;
  if (delegationDepth !== undefined) o.delegationDepth = delegationDepth;
  if (agentPreset !== undefined) o.agentPreset = agentPreset;
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) o[k] = v;
  return JSON.stringify(o);
}

/** The parent's seed bytes in the body: the range of its file, or a compressed parent's frames and text (zstdSeed). */
function copySeed(body: NewFileBody, range: ByteRange): void {
  if (isCompressedLog(range.file))
    body.copyText = (sink, frame) => (frame ? zstdSeed(range.file, range.start, range.end, sink, frame) : zstdText(range.file, range.start, range.end, sink));
  else body.copy = range;
}

/** The first `n` events of `parent` as lines, read as they are written (a fork whose seed cannot be copied byte for byte). */
function* prefixLines(parent: Session, n: number): Generator<string> {
  for (const batch of parent.eventBatches(n)) for (const e of batch) yield JSON.stringify(e);
}

function* concatLines(a: Iterable<string>, b: Iterable<string>): Generator<string> {
  yield* a;
  yield* b;
}

function foldAll(events: readonly SessionEvent[], seedFrom?: number): LogFacts {
  const facts = emptyFacts();
  if (seedFrom !== undefined) facts.seedFrom = seedFrom;
  for (const e of events) foldEvent(facts, e);
  return facts;
}

export class DiskPersistence implements SessionPersistence {
  constructor(readonly root: string) {}

  target(id: string, parent?: Session): ChildTarget {
    if (parent?.file) return childPath(parent.file, id, parent.cwd, isCompressedLog(parent.file), parent.header.version);
    return { dir: this.root, file: path.join(this.root, encodeId(id) + '.jsonl'), harness: false };
  }

  invalidId(id: string, parent?: Session): string | undefined {
    if (id.length === 0) return invalidIdReason(id);
    return invalidIdReason(id, this.target(id, parent));
  }

  /** rc.8 refuses a root whose sessions use both encodings: so do we, before writing into one. */
  placementError(_id: string, parent?: Session): SessionForkError | null {
    if (!parent?.file || layoutOf(parent.file) !== 'rc8-harness') return null;
    const mixed = mixedEncoding(rc8RootOf(parent.file));
    if (!mixed) return null;
    return new SessionForkError(
      'MIXED_ENCODING',
      `session artifact ${JSON.stringify(mixed.odd)} uses ${mixed.oddSuffix}, but ${JSON.stringify(mixed.other)} uses ${mixed.otherSuffix}: the harness refuses a root with mixed encodings; use a separate root or re-encode one of them (nothing written)`,
      { file: mixed.odd },
    );
  }

  exists(id: string, parent?: Session): boolean {
    const { file } = this.target(id, parent);
    try {
      fs.lstatSync(file);
      return true;
    } catch {
      return false;
    }
  }

  scanPrefix(parent: Session, n: number, seedFrom: number | undefined): PrefixScan {
    return scanPrefix(parent, n, seedFrom);
  }

  write(header: SessionHeader, seed: readonly SessionEvent[], parent?: Session, inherited?: number, prefix?: SeedPrefix): Session {
    const { dir, file } = this.target(header.id, parent);
    const zstd = isCompressedLog(file);
    const body: NewFileBody = { header: headerLine(header), zstd };
    const marker = seedByMarker(header) ? (header.isSeeded ? 'seeded' : 'unseeded') : undefined;
    // The inherited events are copied as the parent wrote them; what the child adds (the end-seed marker) follows.
    let facts: LogFacts;
    if (prefix && parent) {
      // a fork: `seed` is what follows the parent's first prefix.length events (scanned by scanPrefix, not held)
      const p = prefix as PrefixScan;
      const n = p.length;
      if (p.range) copySeed(body, p.range);
      const own = seed.map((e) => JSON.stringify(e));
      // a damaged prefix is written again from its events, read once more as it is written
      body.lines = p.range || n === 0 ? own : concatLines(prefixLines(parent, n), own);
      facts = { ...p.facts };
      if (marker) facts.seedMarker = marker;
      for (const e of seed) foldEvent(facts, e);
    } else {
      const cut = inherited ?? header.seedLength;
      const n = cut !== undefined && cut <= seed.length ? cut : seed.length;
      const copy = parent && n <= parent.length ? scanPrefix(parent, n, marker ? undefined : n) : undefined;
      const copied = copy?.range !== undefined;
      if (copied) copySeed(body, copy!.range!);
      const own = seed.slice(copied ? n : 0);
      if (own.length > 0) body.lines = own.map((e) => JSON.stringify(e));
      const isPrefix = parent !== undefined && cut === n && (n === 0 || isBoundary(parent.facts, n - 1));
      if (isPrefix) {
        // v2+: the prefix has no cut of its own yet; the child's marker (its first own event) sets it
        facts = prefixFacts(parent.facts, seed, n, marker ? undefined : n);
        if (marker) facts.seedMarker = marker;
        for (const e of seed.slice(n)) foldEvent(facts, e);
      } else {
        facts = foldAll(seed, header.seedLength);
        if (parent?.facts.rc8Rule || usesRc8Rule(header, file)) {
          facts = emptyFacts();
          facts.rc8Rule = true;
          if (header.seedLength !== undefined) facts.seedFrom = header.seedLength;
          if (marker) facts.seedMarker = marker;
          for (const e of seed) foldEvent(facts, e);
        }
      }
    }
    const size = writeNewSessionFile(dir, file, header.id, body);
    if (usesRc8Rule(header, file)) facts.rc8Rule = true;
    const log: LogState = { facts, events: [], eventEnds: [], headerEnd: 0, firstAnomaly: Infinity, consumed: size, diagnostics: [] };
    return new Session(header, file, log, ownLogLoader);
  }
}
