// A session's events loaded in steps (Session.load): the same state as a
// load at once however often it pauses; a normal log opens in one step even
// with no time to spare (only skipping an over-long line pauses an open); a
// log that grows while it loads is read on to its new end; and a state that
// gave up on (or is skipping) an over-long line keeps saying so once loaded.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pauseWhileSkipping } from '../../src/session/session.js';
import { feedAppended } from '../../src/storage/follow.js';
import { LogReader, MAX_LINE_BYTES } from '../../src/storage/log-reader.js';
import { openSessionFile, readLog } from '../../src/storage/session-file.js';
import { cleanupTmp, evs, hdr, logText, tmpDir, turnRows } from '../support/fixtures.js';

afterEach(cleanupTmp);

const turns = (n: number, from = 1) => Array.from({ length: n }, (_, i) => turnRows(from + i, { kind: 'completed' }, `prompt ${from + i} ${'x'.repeat(200)}`)).flat();
const always = () => true;

/** A log of `n` turns; with `longAt`, a sparse over-long line of `longBytes` zero bytes after that many turns. */
function writeBig(dir: string, n: number, longAt?: number, longBytes = MAX_LINE_BYTES + 4 * 1024 * 1024): string {
  const file = path.join(dir, 'big.jsonl');
  const all = evs(...turns(n));
  const cut = longAt === undefined ? all.length : longAt * 7;
  fs.writeFileSync(file, logText(hdr('big'), all.slice(0, cut)));
  if (longAt !== undefined) {
    const size = fs.statSync(file).size;
    const fd = fs.openSync(file, 'r+');
    // a hole of zero bytes (no newline), then its end and the rest of the log
    fs.writeSync(fd, '\n' + all.slice(cut).map((e) => JSON.stringify(e) + '\n').join(''), size + longBytes);
    fs.closeSync(fd);
  }
  return file;
}

const stateOf = (r: { events: unknown[]; diagnostics: unknown[]; consumed: number; facts: unknown }) => ({ events: r.events, diagnostics: r.diagnostics, consumed: r.consumed, facts: r.facts });

describe('Session.load in steps', () => {
  it('pausing at every chunk loads exactly what a load at once does', () => {
    const file = writeBig(tmpDir(), 2000); // ~1.5 MB: several chunks
    const { session } = openSessionFile(file);
    let steps = 1;
    while (!session!.load(always)) {
      expect(session!.loading!.read).toBeGreaterThan(0);
      steps++;
    }
    expect(steps).toBeGreaterThan(3);
    expect(session!.isLoaded).toBe(true);
    expect(stateOf(session!.log as LogReader)).toEqual(stateOf(readLog(file, true).reader));
  });

  it('opening a normal log takes one step even with no time to spare', () => {
    const file = writeBig(tmpDir(), 2000);
    const { session } = openSessionFile(file);
    expect(session!.load(pauseWhileSkipping(() => session!.loadJob, 0))).toBe(true);
    expect(session!.length).toBe(14000);
  });

  it('opening pauses only while skipping an over-long line, then goes on in steps to the same state', () => {
    const file = writeBig(tmpDir(), 40, 20);
    const { session } = openSessionFile(file);
    expect(session!.load(pauseWhileSkipping(() => session!.loadJob, 0))).toBe(false);
    const p = session!.loading!;
    expect(p.skipFrom).toBeGreaterThan(0);
    expect(p.line).toBe(20 * 7 + 2);
    expect(session!.events.length).toBe(280); // a sync reader finishes the load at once
    const d = session!.diagnostics.find((x) => x.code === 'LINE_TOO_LONG');
    expect(d).toMatchObject({ file, line: 20 * 7 + 2 });
    expect(stateOf(session!.log as LogReader)).toEqual(stateOf(readLog(file, true).reader));
  });

  it('a log that grows while it loads is read on to its new end', () => {
    const dir = tmpDir();
    const file = writeBig(dir, 400);
    const { session } = openSessionFile(file);
    expect(session!.load(always)).toBe(false);
    fs.appendFileSync(file, turns(3, 401).map((r, i) => JSON.stringify({ type: r[0], seq: 2800 + i, time: 1, data: r[1] }) + '\n').join(''));
    expect(feedAppended(file, session!.log as LogReader)).toBeGreaterThan(0); // the follower's part
    while (!session!.load(always));
    expect(session!.length).toBe(2821);
    expect(stateOf(session!.log as LogReader)).toEqual(stateOf(readLog(file, true).reader));
  });

  it('cancelLoad closes the file and the next load starts over', () => {
    const file = writeBig(tmpDir(), 2000);
    const { session } = openSessionFile(file);
    expect(session!.load(always)).toBe(false);
    session!.cancelLoad();
    expect(session!.loading).toBeUndefined();
    while (!session!.load(always));
    expect(session!.length).toBe(14000);
  });

  it('a state that gave up on an over-long line keeps its LINE_TOO_LONG once loaded', () => {
    const file = writeBig(tmpDir(), 3);
    const { session } = openSessionFile(file);
    (session!.log as LogReader).giveUp(); // as a scan does past MAX_LINE_SCAN (a multi-GB line with no end)
    const before = session!.diagnostics.map((d) => ({ ...d }));
    expect(before).toEqual([expect.objectContaining({ code: 'LINE_TOO_LONG', file, line: 23 })]);
    session!.ensureLoaded();
    expect(session!.diagnostics).toEqual(before);
    expect((session!.log as LogReader).gaveUp).toBe(true);
  });
});
