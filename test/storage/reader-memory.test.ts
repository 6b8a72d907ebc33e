// What a facts-only reader holds (docs/performance.md, "Memory"): the state
// nearly every reader shares lives once (the prototype, a shared empty
// diagnostics list and usage), and a reader that needs its own gets it
// without touching the shared one.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyFacts, foldEvent } from '../../src/session/log-facts.js';
import { emptyUsage } from '../../src/session/usage.js';
import { LogReader } from '../../src/storage/log-reader.js';
import { readLog } from '../../src/storage/session-file.js';
import { cleanupTmp, evs, hdr, tmpDir, turnRows } from '../support/fixtures.js';

afterEach(cleanupTmp);

const line = (o: object) => JSON.stringify(o);
const log = (id: string, extra: string[] = []) => [line(hdr(id, { cwd: '/w' })), ...evs(...turnRows(1)).map(line), ...extra].join('\n') + '\n';

function file(content: string, name: string): string {
  const f = path.join(tmpDir(), name);
  fs.writeFileSync(f, content);
  return f;
}

/** the fields a reader of a clean log keeps on the prototype */
const PROTO_ONLY = ['retain', 'keepLine', 'events', 'eventEnds', 'firstAnomaly', 'skipFrom', 'scanned', 'gaveUp', 'unlisted', 'unknownTypes', 'refused'];
const USAGE_EVENT = { type: 'assistant/message', seq: 7, time: 8, data: { role: 'assistant', content: [], usage: { input_tokens: 5, output_tokens: 7 } } };

describe('a facts-only reader of a clean log', () => {
  it('holds none of the rare fields itself, and shares its empty diagnostics and usage with the others', () => {
    const a = readLog(file(log('a'), 'a.jsonl'), false).reader;
    const b = readLog(file(log('b'), 'b.jsonl'), false).reader;
    for (const r of [a, b]) {
      expect(Object.keys(r).filter((k) => PROTO_ONLY.includes(k))).toEqual([]);
      expect(r.firstAnomaly).toBe(Infinity);
      expect(r.gaveUp).toBe(false);
      expect(r.events).toEqual([]);
    }
    expect(a.diagnostics).toBe(b.diagnostics);
    expect(a.facts.usage).toBe(b.facts.usage);
    expect(a.facts.usage).toEqual(emptyUsage());
  });

  it('holds every common fact in the one literal: no field is added later for a plain log', () => {
    const r = readLog(file(log('a'), 'a.jsonl'), false).reader;
    expect(Object.keys(r.facts)).toEqual(Object.keys(emptyFacts()));
  });

  it('a retaining reader keeps its own events; releasing it empties them', () => {
    const r = readLog(file(log('a'), 'a.jsonl'), true).reader;
    expect(Object.keys(r)).toEqual(expect.arrayContaining(['retain', 'events', 'eventEnds']));
    expect(r.events).toHaveLength(7);
    r.release();
    expect(r.events).toEqual([]);
  });
});

describe('the shared state is never written', () => {
  it('a damaged line gives that reader its own diagnostics; the shared list stays empty', () => {
    const clean = readLog(file(log('a'), 'a.jsonl'), false).reader;
    const bad = readLog(file(log('b', ['{not json']), 'b.jsonl'), false).reader;
    expect(bad.diagnostics.map((d) => d.code)).toEqual(['MALFORMED_LINE']);
    expect(bad.firstAnomaly).toBeGreaterThan(0);
    expect(Object.keys(bad)).toContain('firstAnomaly');
    expect(clean.diagnostics).toEqual([]);
    expect(Object.isFrozen(clean.diagnostics)).toBe(true);
  });

  it('an appended usage event gives that reader its own usage; the shared one stays empty', () => {
    const f = file(log('a'), 'a.jsonl');
    const other = readLog(file(log('b'), 'b.jsonl'), false).reader;
    const r = readLog(f, false).reader;
    r.feed(Buffer.from(line(USAGE_EVENT) + '\n'));
    expect(r.facts.usage).toMatchObject({ input: 5, output: 7, messages: 1 });
    expect(other.facts.usage).toEqual(emptyUsage());
    expect(r.facts.usage).not.toBe(other.facts.usage);
  });

  it('a fold into fresh facts writes its own usage (the shared one is frozen: a write to it would throw)', () => {
    const f = emptyFacts();
    const g = emptyFacts();
    expect(f.usage).toBe(g.usage);
    foldEvent(f, USAGE_EVENT as never);
    expect(f.usage.messages).toBe(1);
    expect(g.usage).toEqual(emptyUsage());
  });

  it('seed-marker and compressed-frame diagnostics are added through the reader (never into the shared list)', () => {
    const r = new LogReader('x.jsonl', { retain: false });
    const shared = r.diagnostics;
    r.addDiagnostic({ file: 'x.jsonl', severity: 'error', code: 'ZSTD_CORRUPT', message: 'x' });
    expect(r.diagnostics).toHaveLength(1);
    expect(shared).toEqual([]);
    r.compact();
    expect(r.diagnostics).toHaveLength(1);
  });
});

describe('short seq lists are shared between logs', () => {
  it('two one-turn logs of the same length share their turn starts and boundaries; an append gives one its own', () => {
    const fa = file(log('a'), 'a.jsonl');
    const a = readLog(fa, false).reader;
    const b = readLog(file(log('b'), 'b.jsonl'), false).reader;
    a.compact();
    b.compact();
    expect(a.facts.turnStarts).toEqual([0]);
    expect(a.facts.turnStarts).toBe(b.facts.turnStarts);
    expect(a.facts.boundaries).toBe(b.facts.boundaries);
    const turn2 = evs(...turnRows(1), ...turnRows(2)).slice(7).map(line).join('\n') + '\n';
    a.feed(Buffer.from(turn2));
    expect(a.facts.turnStarts).toEqual([0, 7]);
    expect(a.facts.boundaries).toEqual([6, 13]);
    expect(b.facts.turnStarts).toEqual([0]);
    expect(b.facts.boundaries).toEqual([6]);
    // the same facts as a reader that read it all at once
    fs.appendFileSync(fa, turn2);
    expect(a.facts).toEqual(readLog(fa, false).reader.facts);
  });

  it('a longer list is the log\'s own, trimmed', () => {
    const rows = [1, 2, 3, 4, 5, 6].flatMap((n) => turnRows(n));
    const f = file([line(hdr('long', { cwd: '/w' })), ...evs(...rows).map(line)].join('\n') + '\n', 'long.jsonl');
    const a = readLog(f, false).reader;
    const b = readLog(f, false).reader;
    a.compact();
    b.compact();
    expect(a.facts.turnStarts).toHaveLength(6);
    expect(a.facts.turnStarts).not.toBe(b.facts.turnStarts);
    expect(Object.isFrozen(a.facts.turnStarts)).toBe(false);
  });
});

describe('a reader restored from its snapshot (the fact cache)', () => {
  it('shares like a read one: no own rare fields, the shared diagnostics and usage, the facts in the one shape', () => {
    const read = readLog(file(log('a'), 'a.jsonl'), false).reader;
    const snap = JSON.parse(JSON.stringify(read.snapshot())) as ReturnType<LogReader['snapshot']>;
    const r = LogReader.restore(read.file, snap);
    expect(Object.keys(r).filter((k) => PROTO_ONLY.includes(k))).toEqual([]);
    expect(r.diagnostics).toBe(read.diagnostics);
    expect(r.facts.usage).toBe(read.facts.usage);
    expect(Object.keys(r.facts)).toEqual(Object.keys(read.facts));
    read.compact();
    expect(r.facts.turnStarts).toBe(read.facts.turnStarts);
    expect(r.snapshot()).toEqual(read.snapshot());
  });

  it('keeps what differs: an anomaly, diagnostics, a usage', () => {
    const read = readLog(file(log('a', ['{not json', line(USAGE_EVENT)]), 'a.jsonl'), false).reader;
    const snap = JSON.parse(JSON.stringify(read.snapshot())) as ReturnType<LogReader['snapshot']>;
    const r = LogReader.restore(read.file, snap);
    expect(r.firstAnomaly).toBe(read.firstAnomaly);
    expect(r.diagnostics).toEqual(read.diagnostics);
    expect(r.facts.usage).toEqual(read.facts.usage);
    expect(r.facts.usage.messages).toBe(1);
    expect(r.snapshot()).toEqual(read.snapshot());
  });
});
