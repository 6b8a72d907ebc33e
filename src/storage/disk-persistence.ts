// The SessionPersistence that writes children next to their parents.
import fs from 'node:fs';
import path from 'node:path';
import type { SessionEvent, SessionHeader } from '../session/events.js';
import { emptyFacts, foldEvent, isBoundary, prefixFacts, type LogFacts } from '../session/log-facts.js';
import { Session, type LogState } from '../session/session.js';
import type { SessionPersistence } from '../session/store.js';
import { writeNewSessionFile, type NewFileBody } from './atomic-writer.js';
import { encodeId } from './id-encoding.js';
import { childPath } from './layout.js';
import { readLog } from './session-file.js';

/** Header keys in the order the harness writes them. */
export function headerLine(h: SessionHeader): string {
  const { type, version, id, createdAt, cwd, parentSession, seedLength, ...rest } = h;
  const o: Record<string, unknown> = { type, version, id, createdAt };
  if (cwd !== undefined) o.cwd = cwd;
  if (parentSession !== undefined) o.parentSession = parentSession;
  if (seedLength !== undefined) o.seedLength = seedLength;
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) o[k] = v;
  return JSON.stringify(o);
}

/**
 * The parent's bytes for its first `n` events, when they can be copied
 * verbatim: every line up to the cut is clean and the cut ends a line.
 */
export function seedByteRange(parent: Session, n: number): { file: string; start: number; end: number } | undefined {
  if (!parent.file || n === 0) return undefined;
  const log = parent.ensureLoaded();
  const end = log.eventEnds[n - 1];
  if (end === undefined || end > log.firstAnomaly) return undefined;
  if (n < log.eventEnds.length && log.eventEnds[n] === end) return undefined; // cut inside a packed row
  return { file: parent.file, start: log.headerEnd, end };
}

function foldAll(events: readonly SessionEvent[], seedFrom?: number): LogFacts {
  const facts = emptyFacts();
  if (seedFrom !== undefined) facts.seedFrom = seedFrom;
  for (const e of events) foldEvent(facts, e);
  return facts;
}

export class DiskPersistence implements SessionPersistence {
  constructor(readonly root: string) {}

  target(id: string, parent?: Session): { dir: string; file: string } {
    if (parent?.file) return childPath(parent.file, id);
    return { dir: this.root, file: path.join(this.root, encodeId(id) + '.jsonl') };
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

  write(header: SessionHeader, seed: readonly SessionEvent[], parent?: Session): Session {
    const { dir, file } = this.target(header.id, parent);
    const body: NewFileBody = { header: headerLine(header) };
    const copy = parent ? seedByteRange(parent, seed.length) : undefined;
    if (copy) body.copy = copy;
    else body.lines = seed.map((e) => JSON.stringify(e));
    writeNewSessionFile(dir, file, header.id, body);
    const n = seed.length;
    const isPrefix = parent !== undefined && header.seedLength === n && (n === 0 || isBoundary(parent.facts, n - 1));
    const facts = isPrefix ? prefixFacts(parent.facts, seed, n, n) : foldAll(seed, header.seedLength);
    const size = fs.statSync(file).size;
    const log: LogState = { facts, events: [], eventEnds: [], headerEnd: 0, firstAnomaly: Infinity, consumed: size, diagnostics: [] };
    return new Session(header, file, log, (current) => readLog(file, true, current.consumed).reader);
  }
}
