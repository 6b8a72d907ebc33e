// LogReader / readLog / loadRootSync on damaged and unusual files
// (docs/formats.md, "Session files" and "Files on disk").
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionForkError } from '../../src/session/errors.js';
import { LogReader } from '../../src/storage/log-reader.js';
import { allDiagnostics, loadRootSync } from '../../src/storage/load-root.js';
import { openSessionFile, readLog } from '../../src/storage/session-file.js';
import { cleanupTmp, evs, hdr, REAL_DIR, tmpDir, turnRows } from '../support/fixtures.js';

afterEach(cleanupTmp);

const H = JSON.stringify(hdr('s', { cwd: '/w' }));
const line = (o: object) => JSON.stringify(o);
const T1 = evs(...turnRows(1)); // seq 0..6
const T2 = evs(...turnRows(1), ...turnRows(2)); // seq 0..13

function file(content: string | Buffer, name = 's.jsonl'): string {
  const f = path.join(tmpDir(), name);
  fs.writeFileSync(f, content);
  return f;
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SessionForkError);
    return (e as SessionForkError).code;
  }
  throw new Error('expected a SessionForkError');
}

describe('torn tail', () => {
  it('a final line without "\\n" is pending, not an event and not an error', () => {
    const torn = line({ type: 'turn/start', seq: 7, time: 1, data: { turn: 2 } }).slice(0, 25);
    const f = file([H, ...T1.map(line)].join('\n') + '\n' + torn);
    const r = readLog(f, true);
    expect(r.reader.events).toHaveLength(7);
    expect(r.reader.diagnostics).toEqual([]);
    expect(r.pending).toBe(Buffer.byteLength(torn));
    expect(r.reader.facts.lastEventType).toBe('turn/end');
    const idx = loadRootSync(path.dirname(f));
    const s = idx.store.get('s')!;
    expect(s.state).toBe('at-boundary');
    expect(s.length).toBe(7);
    expect(idx.files.get(f)!.pending).toBe(Buffer.byteLength(torn));
    expect(allDiagnostics(idx)).toEqual([]);
  });

  it('a complete final event without "\\n" is pending too (append in progress)', () => {
    const f = file([H, ...T1.map(line)].join('\n'));
    const r = readLog(f, true);
    expect(r.reader.events).toHaveLength(6);
    expect(r.reader.facts.lastEventType).toBe('step/end');
    expect(r.pending).toBe(Buffer.byteLength(line(T1[6])));
    expect(r.reader.diagnostics).toEqual([]);
  });

  it('feeding a line in two pieces yields it once, when the newline arrives', () => {
    const reader = new LogReader('x.jsonl', { retain: true });
    const all = Buffer.from([H, ...T1.map(line)].join('\n') + '\n');
    const cut = all.length - 10;
    const used = reader.feed(all.subarray(0, cut));
    expect(reader.events).toHaveLength(6);
    reader.feed(all.subarray(used));
    expect(reader.events).toHaveLength(7);
    expect(reader.consumed).toBe(all.length);
    expect(reader.diagnostics).toEqual([]);
  });

  it('a header without "\\n" is not a session yet', () => {
    const f = file(H);
    const { session, diagnostics } = openSessionFile(f);
    expect(session).toBeUndefined();
    expect(diagnostics).toEqual([{ file: f, line: 1, severity: 'error', code: 'NO_HEADER', message: 'no complete header line yet' }]);
  });
});

describe('damaged lines', () => {
  it('a malformed line mid-file is reported with file and line; the rest loads', () => {
    const lines = [H, ...T2.slice(0, 3).map(line), '{"type":"assistant/chunk","seq":', ...T2.slice(3).map(line)];
    const f = file(lines.join('\n') + '\n');
    const r = readLog(f, true);
    expect(r.reader.events.map((e) => e.seq)).toEqual(T2.map((e) => e.seq));
    expect(r.reader.diagnostics).toHaveLength(1);
    expect(r.reader.diagnostics[0]).toMatchObject({ file: f, line: 5, severity: 'error', code: 'MALFORMED_LINE' });
    expect(r.reader.diagnostics[0].message).toMatch(/JSON/);
    const s = loadRootSync(path.dirname(f)).store.get('s')!;
    expect(s.length).toBe(14);
    expect(s.facts.turns).toBe(2);
    expect(s.diagnostics[0].line).toBe(5);
  });

  it('a line that is JSON but not an event is reported (BAD_EVENT) with its line', () => {
    const f = file([H, line(T1[0]), '[1,2]', '{"type":"x","seq":"1"}', ...T1.slice(1).map(line)].join('\n') + '\n');
    const r = readLog(f, true);
    expect(r.reader.events).toHaveLength(7);
    expect(r.reader.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['BAD_EVENT', 3],
      ['BAD_EVENT', 4],
    ]);
  });

  it('blank lines are ignored with a warning', () => {
    const f = file([H, line(T1[0]), '', '   ', ...T1.slice(1).map(line)].join('\n') + '\n');
    const r = readLog(f, true);
    expect(r.reader.events).toHaveLength(7);
    expect(r.reader.diagnostics.map((d) => [d.code, d.severity, d.line])).toEqual([
      ['BLANK_LINE', 'warning', 3],
      ['BLANK_LINE', 'warning', 4],
    ]);
  });

  it('welded line: a torn event welded to the next complete one is salvaged', () => {
    const torn = line(T1[3]).slice(0, 40);
    const lines = [H, ...T1.slice(0, 3).map(line), torn + line(T1[3]), ...T1.slice(4).map(line)];
    const f = file(lines.join('\n') + '\n');
    const r = readLog(f, true);
    expect(r.reader.events).toEqual(T1);
    expect(r.reader.diagnostics).toHaveLength(1);
    expect(r.reader.diagnostics[0]).toMatchObject({ file: f, line: 5, code: 'MALFORMED_LINE' });
    expect(r.reader.diagnostics[0].message).toBe('damaged line (welded or torn): recovered 1 event row(s), 1 fragment(s) unreadable');
    expect(r.reader.facts.validLength).toBeUndefined();
    expect(r.reader.facts.boundaries).toEqual([6]);
  });

  it('welded line: two complete events on one line are both recovered', () => {
    const lines = [H, ...T1.slice(0, 3).map(line), line(T1[3]) + line(T1[4]), ...T1.slice(5).map(line)];
    const r = readLog(file(lines.join('\n') + '\n'), true);
    expect(r.reader.events).toEqual(T1);
    expect(r.reader.diagnostics[0].message).toBe('damaged line (welded or torn): recovered 2 event row(s), 0 fragment(s) unreadable');
  });

  it('a NUL run line is reported, the rest loads', () => {
    const lines = [H, ...T1.slice(0, 2).map(line), '\u0000'.repeat(64), ...T1.slice(2).map(line)];
    const r = readLog(file(lines.join('\n') + '\n'), true);
    expect(r.reader.events).toHaveLength(7);
    expect(r.reader.diagnostics.map((d) => [d.code, d.line])).toEqual([['MALFORMED_LINE', 4]]);
  });
});

describe('seq checks', () => {
  // seq 0..6 (turn 1), then a gap, then turn 2 at seq 9..15
  const gapped = () => {
    const t2 = evs(...turnRows(1), ...turnRows(2)).slice(7).map((e) => ({ ...e, seq: e.seq + 2 }));
    return [H, ...T1.map(line), ...t2.map(line)].join('\n') + '\n';
  };

  it('a seq gap is reported, events after it are still shown', () => {
    const f = file(gapped());
    const r = readLog(f, true);
    expect(r.reader.events).toHaveLength(14);
    expect(r.reader.events.slice(7).map((e) => e.seq)).toEqual([9, 10, 11, 12, 13, 14, 15]);
    expect(r.reader.diagnostics).toHaveLength(1);
    expect(r.reader.diagnostics[0]).toMatchObject({ file: f, line: 9, code: 'SEQ_GAP', severity: 'error' });
    expect(r.reader.diagnostics[0].message).toContain('expected seq 7, got 9');
    expect(r.reader.facts.validLength).toBe(7);
    expect(r.reader.facts.boundaries).toEqual([6]);
    expect(r.reader.facts.turns).toBe(2);
  });

  it('a fork before the gap is allowed', () => {
    const f = file(gapped());
    const idx = loadRootSync(path.dirname(f));
    const child = idx.store.fork({ source: 's', boundary: 6, sessionId: 'before-gap' });
    expect(child.seedLength).toBe(7);
  });

  it('a fork past the gap is refused with INVALID_BOUNDARY (explicit boundary at the last seq)', () => {
    const f = file(gapped());
    const idx = loadRootSync(path.dirname(f));
    expect(codeOf(() => idx.store.fork({ source: 's', boundary: 15 }))).toBe('INVALID_BOUNDARY');
    expect(fs.readdirSync(path.dirname(f))).toEqual(['s.jsonl']);
  });

  it('a fork past the gap is refused with INVALID_BOUNDARY (a turn/end after the gap, inside [0, length-1])', () => {
    const f = file(gapped());
    const idx = loadRootSync(path.dirname(f));
    const s = idx.store.get('s')!;
    // the event at index 13 (seq 15) is a turn/end; index 13 is in range for a 14-event log
    expect(s.events[13].type).toBe('turn/end');
    expect(codeOf(() => idx.store.fork({ source: 's', boundary: 13 }))).toBe('INVALID_BOUNDARY');
  });

  it('a fork of the whole gapped log is refused with INVALID_BOUNDARY, not OPEN_TURN (its last event is a turn/end)', () => {
    const f = file(gapped());
    const idx = loadRootSync(path.dirname(f));
    expect(idx.store.get('s')!.facts.lastEventType).toBe('turn/end');
    expect(codeOf(() => idx.store.fork({ source: 's' }))).toBe('INVALID_BOUNDARY');
    expect(fs.readdirSync(path.dirname(f))).toEqual(['s.jsonl']);
  });

  it('a duplicate seq is skipped and reported', () => {
    const lines = [H, ...T1.slice(0, 4).map(line), line({ ...T1[3], data: { dup: true } }), ...T1.slice(4).map(line)];
    const f = file(lines.join('\n') + '\n');
    const r = readLog(f, true);
    expect(r.reader.events).toEqual(T1);
    expect(r.reader.diagnostics.map((d) => [d.code, d.line])).toEqual([['DUPLICATE_SEQ', 6]]);
    expect(r.reader.diagnostics[0].message).toContain('seq 3 repeats');
    expect(r.reader.facts.validLength).toBeUndefined();
  });
});

describe('encodings and headers', () => {
  it('CRLF line ends and a UTF-8 BOM load cleanly', () => {
    const text = '\ufeff' + [H, ...T1.map(line)].join('\r\n') + '\r\n';
    const f = file(Buffer.from(text, 'utf8'));
    expect(fs.readFileSync(f)[0]).toBe(0xef);
    const r = readLog(f, true);
    expect(r.reader.header).toMatchObject({ id: 's', cwd: '/w' });
    expect(r.reader.events).toEqual(T1);
    expect(r.reader.diagnostics).toEqual([]);
    expect(r.pending).toBe(0);
    expect(loadRootSync(path.dirname(f)).store.get('s')!.state).toBe('at-boundary');
  });

  it.each([
    ['null header', 'null', 'NO_HEADER', /null/],
    ['array header', '[]', 'NO_HEADER', /array/],
    ['missing header (an event first)', line(T1[0]), 'NO_HEADER', /not a session header/],
    ['garbage header', '{not json', 'NO_HEADER', /not valid JSON/],
    ['version 5 (newer than v4)', line({ type: 'session', version: 5, id: 's', createdAt: 1 }), 'UNSUPPORTED_VERSION', /uses log format v5, but this browser reads only v0-v4: the log was written by a newer harness/],
    ['a v3 header without isSeeded', line({ type: 'session', version: 3, id: 's', createdAt: 1, delegationDepth: 0 }), 'BAD_HEADER', /released v3 header lacks required field isSeeded/],
    ['a v4 header with an extra key', line({ type: 'session', version: 4, id: 's', createdAt: 1, isSeeded: false, delegationDepth: 0, sandboxMode: 'x' }), 'BAD_HEADER', /format v4 header has unexpected field "sandboxMode"/],
    ['a v2 header with seedLength', line({ type: 'session', version: 2, id: 's', createdAt: 1, delegationDepth: 0, seedLength: 3 }), 'BAD_HEADER', /lacks required field isSeeded \(v2 and later mark a fork by isSeeded/],
    ['a v4 header with a relative cwd', line({ type: 'session', version: 4, id: 's', createdAt: 1, cwd: 'rel', isSeeded: false, delegationDepth: 0 }), 'BAD_HEADER', /cwd must be an absolute path/],
    ['a v1 header without delegationDepth', line({ type: 'session', version: 1, id: 's', createdAt: 1 }), 'BAD_HEADER', /v1 header has no non-negative integer "delegationDepth"/],
    ["pi's look-alike header", line({ type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/x' }), 'NOT_DSH_SESSION', /^not a dsh session/],
    ['version missing', line({ type: 'session', id: 's', createdAt: 1 }), 'UNSUPPORTED_VERSION', /version/],
    ['no id', line({ type: 'session', version: 0, createdAt: 1 }), 'NO_HEADER', /id/],
    ['cwd null', line({ type: 'session', version: 0, id: 's', createdAt: 1, cwd: null }), 'NO_HEADER', /cwd/],
  ])('%s is refused with a clear diagnostic; other files still load', (_label, first, code, msg) => {
    const dir = tmpDir();
    const bad = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(bad, [first, ...T1.map(line)].join('\n') + '\n');
    fs.writeFileSync(path.join(dir, 'good.jsonl'), [H, ...T1.map(line)].join('\n') + '\n');
    const idx = loadRootSync(dir);
    expect(idx.store.size).toBe(1);
    expect(idx.store.get('s')!.file).toBe(path.join(dir, 'good.jsonl'));
    const diags = allDiagnostics(idx);
    expect(diags).toHaveLength(1);
    expect(diags[0]).toMatchObject({ file: bad, line: 1, severity: 'error', code });
    expect(diags[0].message).toMatch(msg);
    expect(idx.files.get(bad)!.refused).toEqual(diags);
  });

  it('an empty file is refused with "empty file"', () => {
    const f = file('');
    const { session, diagnostics } = openSessionFile(f);
    expect(session).toBeUndefined();
    expect(diagnostics).toEqual([{ file: f, line: 1, severity: 'error', code: 'NO_HEADER', message: 'empty file: no session header' }]);
  });

  it('a header-only file is an empty, forkable session', () => {
    const f = file(H + '\n');
    const { session, diagnostics } = openSessionFile(f);
    expect(diagnostics).toEqual([]);
    expect(session!.length).toBe(0);
    expect(session!.state).toBe('empty');
  });

  it('unknown header keys are kept', () => {
    const f = file(line({ type: 'session', version: 0, id: 's', createdAt: 5, origin: 'subagent', delegationDepth: 1, agentPreset: { a: 1 }, future: 'x' }) + '\n');
    const { session } = openSessionFile(f);
    expect(session!.header).toMatchObject({ origin: 'subagent', delegationDepth: 1, agentPreset: { a: 1 }, future: 'x' });
  });
});

describe('packed rows (rc8)', () => {
  it('expand to consecutive seqs with times from time0 + dt', () => {
    const rows = [
      H,
      line({ type: 'turn/start', seq: 0, time: 100, data: { turn: 1 } }),
      line({ type: 'step/start', seq: 1, time: 101, data: { turn: 1, step: 1 } }),
      line({ type: 'text-chunks', seq0: 2, time0: 1000, data: { turn: 1, step: 1, index: 0, dt: [5, 7], texts: ['a', 'b', 'c'] } }),
      line({ type: 'reasoning-chunks', seq0: 5, time0: 2000, data: { turn: 1, step: 1, index: 1, dt: [1], texts: ['x', 'y'] } }),
      line({ type: 'tool-call-chunks', seq0: 7, time0: 3000, data: { turn: 1, step: 1, index: 2, id: 'call_1', name: 'bash', dt: [2], args: ['{"a"', ':1}'] } }),
      line({ type: 'step/end', seq: 9, time: 3100, data: { turn: 1, step: 1 } }),
      line({ type: 'turn/end', seq: 10, time: 3200, data: { turn: 1, reason: { kind: 'completed' } } }),
    ];
    const r = readLog(file(rows.join('\n') + '\n'), true);
    expect(r.reader.diagnostics).toEqual([]);
    const ev = r.reader.events;
    expect(ev.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(ev.slice(2, 9).map((e) => e.type)).toEqual(Array(7).fill('assistant/chunk'));
    expect(ev.slice(2, 5).map((e) => e.time)).toEqual([1000, 1005, 1012]);
    expect(ev.slice(2, 5).map((e) => e.data.chunk)).toEqual([
      { type: 'text-delta', index: 0, text: 'a' },
      { type: 'text-delta', index: 0, text: 'b' },
      { type: 'text-delta', index: 0, text: 'c' },
    ]);
    expect(ev.slice(5, 7).map((e) => [e.time, e.data.chunk.type, e.data.chunk.text])).toEqual([
      [2000, 'reasoning-delta', 'x'],
      [2001, 'reasoning-delta', 'y'],
    ]);
    expect(ev.slice(7, 9).map((e) => [e.time, e.data.chunk])).toEqual([
      [3000, { type: 'tool-call-delta', index: 2, id: 'call_1', name: 'bash', argumentsDelta: '{"a"' }],
      [3002, { type: 'tool-call-delta', index: 2, id: 'call_1', name: 'bash', argumentsDelta: ':1}' }],
    ]);
    expect(ev[3].data).toMatchObject({ turn: 1, step: 1 });
    expect(r.reader.facts.events).toBe(11);
    expect(r.reader.facts.boundaries).toEqual([10]);
  });

  it('a packed row that skips seqs is a gap; one that overlaps is a duplicate', () => {
    const rows = [
      H,
      line({ type: 'turn/start', seq: 0, time: 100, data: { turn: 1 } }),
      line({ type: 'text-chunks', seq0: 1, time0: 1, data: { turn: 1, step: 1, index: 0, dt: [], texts: ['a', 'b'] } }),
      line({ type: 'text-chunks', seq0: 2, time0: 1, data: { turn: 1, step: 1, index: 0, dt: [], texts: ['c'] } }),
      line({ type: 'text-chunks', seq0: 5, time0: 1, data: { turn: 1, step: 1, index: 0, dt: [], texts: ['d'] } }),
    ];
    const r = readLog(file(rows.join('\n') + '\n'), true);
    expect(r.reader.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['DUPLICATE_SEQ', 4],
      ['SEQ_GAP', 5],
    ]);
    expect(r.reader.events.map((e) => e.seq)).toEqual([0, 1, 2, 5]);
  });

  it('a packed row with no parts is a bad row, alone or in a damaged line (was a crash: the whole file unread)', () => {
    const empty = line({ type: 'text-chunks', seq0: 1, time0: 1, data: { turn: 1, step: 1, index: 0, dt: [], texts: [] } });
    const rows = [H, line({ type: 'turn/start', seq: 0, time: 100, data: { turn: 1 } }), empty, empty + '{"type":"step/sta', line({ type: 'step/start', seq: 1, time: 101, data: {} })];
    for (const retain of [true, false]) {
      const r = readLog(file(rows.join('\n') + '\n'), retain);
      expect(r.reader.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
        ['BAD_EVENT', 3, 'packed row text-chunks has an empty array of parts'],
        ['MALFORMED_LINE', 4, expect.stringContaining('not valid JSON')],
      ]);
      expect(r.reader.facts.events).toBe(2);
    }
  });

  it('the real rc8 packed-chunks file expands to one event per seq', () => {
    const f = path.join(REAL_DIR, 'toninfo-deepseek-harness__rc8__packed-chunks__session.jsonl');
    const lines = fs.readFileSync(f, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l));
    let expected = 0;
    for (const l of lines) expected += l.seq0 !== undefined ? (l.data.texts ?? l.data.args).length : 1;
    const r = readLog(f, true);
    expect(r.reader.diagnostics).toEqual([]);
    expect(r.reader.events).toHaveLength(expected);
    expect(r.reader.events.map((e) => e.seq)).toEqual([...Array(expected).keys()]);
    const packed = lines.find((l) => l.type === 'text-chunks');
    const at = r.reader.events[packed.seq0];
    expect(at.time).toBe(packed.time0);
    expect(at.data.chunk.text).toBe(packed.data.texts[0]);
  });
});
