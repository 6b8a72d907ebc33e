import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simulate } from '../../src/storage/simulate.js';
import { watchRoot } from '../../src/storage/watcher.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-sim-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Ev {
  type: string;
  seq: number;
  time: number;
  data: Record<string, unknown>;
}

function parseFile(file: string): { header: Record<string, unknown>; events: Ev[] } {
  const text = fs.readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  const lines = text.slice(0, -1).split('\n');
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { header: parsed[0], events: parsed.slice(1) as unknown as Ev[] };
}

describe('simulate', () => {
  it('writes a complete, valid v0 session; a concurrent reader never sees a bad complete line', async () => {
    const file0 = path.join(dir, 'watch-me.jsonl');
    let polls = 0;
    let pendingSeen = 0;
    let midCharSeen = 0;
    const problems: string[] = [];
    let maxEvents = 0;
    const poll = () => {
      let buf: Buffer;
      try {
        buf = fs.readFileSync(file0);
      } catch {
        return; // not created yet
      }
      polls++;
      const end = buf.lastIndexOf(0x0a);
      if (end < 0) {
        problems.push('file visible without a complete header line');
        return;
      }
      if (end < buf.length - 1) {
        pendingSeen++;
        // torn inside a multi-byte character: the tail ends on a continuation or lead byte
        const last = buf[buf.length - 1];
        if ((last & 0x80) !== 0) midCharSeen++;
      }
      const complete = buf.subarray(0, end).toString('utf8').split('\n');
      complete.forEach((l, i) => {
        try {
          JSON.parse(l);
        } catch {
          problems.push(`complete line ${i} is not JSON: ${l.slice(0, 80)}`);
        }
      });
      maxEvents = Math.max(maxEvents, complete.length - 1);
    };
    const timer = setInterval(poll, 1);
    const logs: string[] = [];
    let res;
    try {
      res = await simulate({ dir, id: 'watch-me', speed: 40, tornWrites: true, turns: 2, log: (m) => logs.push(m), cwd: '/home/dev/café' });
    } finally {
      clearInterval(timer);
    }
    poll();
    expect(problems).toEqual([]);
    expect(res.file).toBe(file0);
    expect(polls).toBeGreaterThan(10);
    expect(pendingSeen).toBeGreaterThan(0);
    expect(midCharSeen).toBeGreaterThan(0);
    expect(logs.length).toBeGreaterThan(3);

    const { header, events } = parseFile(res.file);
    expect(header).toMatchObject({ type: 'session', version: 0, id: 'watch-me', cwd: '/home/dev/café' });
    expect(typeof header.createdAt).toBe('number');
    expect(events.length).toBe(res.events);
    expect(maxEvents).toBe(res.events);
    events.forEach((e, i) => expect(e.seq).toBe(i));
    for (let i = 1; i < events.length; i++) expect(events[i].time).toBeGreaterThanOrEqual(events[i - 1].time);
    expect(events[0].type).toBe('turn/start');
    expect(events[events.length - 1]).toMatchObject({ type: 'turn/end', data: { turn: 2, reason: { kind: 'completed' } } });

    // structure: turns 1..2, steps numbered from 1, every tool/call answered in its turn
    const types = new Set(events.map((e) => e.type));
    for (const t of ['turn/start', 'user/message', 'step/start', 'assistant/chunk', 'assistant/message', 'tool/call', 'tool/result', 'step/end', 'turn/end']) {
      expect(types.has(t)).toBe(true);
    }
    let turn = 0;
    let step = 0;
    const open = new Set<string>();
    for (const e of events) {
      const d = e.data as { turn?: number; step?: number; callId?: string; arguments?: string };
      if (e.type === 'turn/start') {
        expect(d.turn).toBe(++turn);
        step = 0;
      } else if (e.type === 'step/start') {
        expect(d.step).toBe(++step);
      } else if (e.type === 'tool/call') {
        expect(() => JSON.parse(d.arguments!)).not.toThrow();
        open.add(d.callId!);
      } else if (e.type === 'tool/result') {
        expect(open.delete(d.callId!)).toBe(true);
      } else if (e.type === 'turn/end') {
        expect(open.size).toBe(0);
      }
    }
    expect(turn).toBe(2);
    // non-ASCII content made it through intact
    expect(fs.readFileSync(res.file, 'utf8')).toContain('café');
    expect(fs.readFileSync(res.file, 'utf8')).toContain('日本');
    // no temp file left behind
    expect(fs.readdirSync(dir)).toEqual(['watch-me.jsonl']);
  });

  it('encodes the id into the file name and refuses an existing file', async () => {
    const r = await simulate({ dir, id: 'a/b c~', speed: 1e6, turns: 1 });
    expect(path.basename(r.file)).toBe('a~002Fb~0020c~007E.jsonl');
    await expect(simulate({ dir, id: 'a/b c~', speed: 1e6, turns: 1 })).rejects.toThrow(/exists/);
    expect(fs.readdirSync(dir)).toEqual(['a~002Fb~0020c~007E.jsonl']);
  });

  it('default id is sim-<timestamp>; two runs get different files', async () => {
    const [a, b] = await Promise.all([simulate({ dir, speed: 1e6, turns: 1 }), simulate({ dir, speed: 1e6, turns: 1 })]);
    expect(path.basename(a.file)).toMatch(/^sim-\d{8}-\d{6}-\d{3}(-\d+)?\.jsonl$/);
    expect(a.file).not.toBe(b.file);
    expect(parseFile(a.file).header.id).toBe(path.basename(a.file, '.jsonl'));
  });

  it('abort closes the open turn as aborted and answers outstanding tool calls', async () => {
    const ac = new AbortController();
    const p = simulate({ dir, id: 'cancel-me', speed: 20, tornWrites: true, signal: ac.signal, turns: 3 });
    // abort once a tool call is in flight
    const file = path.join(dir, 'cancel-me.jsonl');
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        try {
          const text = fs.readFileSync(file, 'utf8');
          const lines = text.split('\n').filter(Boolean);
          if (lines.length > 1 && JSON.parse(lines[lines.length - 1]).type === 'tool/call') {
            clearInterval(t);
            resolve();
          }
        } catch {
          /* not yet */
        }
      }, 1);
    });
    ac.abort();
    const r = await p;
    const { events } = parseFile(r.file);
    events.forEach((e, i) => expect(e.seq).toBe(i));
    const last3 = events.slice(-3).map((e) => e.type);
    expect(last3).toEqual(['tool/result', 'step/end', 'turn/end']);
    expect(events[events.length - 1].data).toMatchObject({ reason: { kind: 'aborted', reason: 'session/cancel' } });
    expect(events[events.length - 3].data).toMatchObject({ isError: true });
  });

  it('human pace: speed 1 spaces events 50 ms or more apart on average', async () => {
    const ac = new AbortController();
    const t0 = Date.now();
    const file = path.join(dir, 'slow.jsonl');
    // Abort once 3 events are written, as the session's watcher reports them
    // (not after a fixed time, which a loaded machine may fill with fewer).
    const written = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        w.close();
        reject(new Error('simulate wrote fewer than 3 events in 20 s'));
      }, 20_000);
      const w = watchRoot(dir, {
        onChanges: () => {
          let n = 0;
          try {
            n = fs.readFileSync(file, 'utf8').split('\n').length - 2; // complete lines, minus the header
          } catch {
            return;
          }
          if (n < 3) return;
          clearTimeout(timer);
          w.close();
          resolve();
        },
      });
    });
    const p = simulate({ dir, id: 'slow', speed: 1, signal: ac.signal, turns: 1 });
    await written;
    ac.abort();
    const r = await p;
    const { events } = parseFile(r.file);
    const span = Date.now() - t0;
    // at least the first events, and not a burst: fewer than one event per 10 ms
    // (3 paced events take 100 ms or more; the abort adds only the 2 or 3 that close the turn)
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.length).toBeLessThan(span / 10);
  });
});
