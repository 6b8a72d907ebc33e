// Shared helpers for the core tests: real files in real temp dirs, no mocks.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { SessionForkError } from '../../src/session/errors.js';
import type { SessionEvent, SessionHeader } from '../../src/session/events.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The real harness logs the tests read, carried in the repository (see test/fixtures/README.md). */
export const REAL_DIR = path.join(REPO, 'test', 'fixtures', 'real-sessions');
export const SAMPLE_DIR = path.join(REPO, 'sample-sessions');

const made: string[] = [];
export function tmpDir(prefix = 'dsh-test-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}
export function cleanupTmp(): void {
  for (const d of made.splice(0)) {
    try {
      makeWritable(d);
      fs.rmSync(d, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
}
function makeWritable(d: string): void {
  try {
    fs.chmodSync(d, 0o755);
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) makeWritable(path.join(d, e.name));
  } catch {
    /* ignore */
  }
}

export function hdr(id: string, extra: Partial<SessionHeader> = {}): SessionHeader {
  return { type: 'session', version: 0, id, createdAt: 1_700_000_000_000, ...extra } as SessionHeader;
}

/** Builds events with seq = index and increasing time from a list of [type, data]. */
export function evs(...rows: Array<[string, unknown?]>): SessionEvent[] {
  return rows.map(([type, data], i) => ({ type, seq: i, time: 1_700_000_000_000 + i * 10, data: data ?? {} }));
}

/** One completed turn (turn n) with a user prompt and an assistant answer. */
export function turnRows(n: number, reason: unknown = { kind: 'completed' }, prompt = `prompt ${n}`): Array<[string, unknown?]> {
  return [
    ['turn/start', { turn: n, trigger: 'user' }],
    ['user/message', { content: [{ type: 'text', text: prompt }], source: 'user' }],
    ['step/start', { turn: n, step: 1 }],
    ['assistant/chunk', { turn: n, step: 1, chunk: { type: 'text-delta', text: 'ok' } }],
    ['assistant/message', { turn: n, step: 1, content: [{ type: 'text', text: `answer ${n}` }] }],
    ['step/end', { turn: n, step: 1 }],
    ['turn/end', { turn: n, reason }],
  ];
}

export function logText(header: object | null, events: readonly object[]): string {
  return [JSON.stringify(header), ...events.map((e) => JSON.stringify(e))].join('\n') + '\n';
}

export function writeLog(file: string, header: object | null, events: readonly object[]): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, logText(header, events));
  return file;
}

export const sha256 = (file: string): string => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Every regular file under dir (recursive, dot files included), relative path -> sha256. */
export function hashTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.set(path.relative(dir, p), sha256(p));
    }
  };
  walk(dir);
  return out;
}

/** Every path (files and folders) under dir, relative, sorted. */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      out.push(path.relative(dir, p) + (e.isDirectory() ? '/' : ''));
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

export function copyDir(src: string, dst: string): string {
  fs.cpSync(src, dst, { recursive: true });
  return dst;
}

/** Plain JSON reading of a session file, independent of our reader (complete lines only). */
export function plainRead(file: string): { header: any; rows: any[] } {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  lines.pop(); // after the last "\n" (or a torn tail)
  return { header: JSON.parse(lines[0]), rows: lines.slice(1).map((l) => JSON.parse(l)) };
}

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs fn and returns the SessionForkError it throws (fails when it throws nothing or something else). */
export function forkError(fn: () => unknown): SessionForkError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected a SessionForkError, got ${String(caught)}`).toBeInstanceOf(SessionForkError);
  const e = caught as SessionForkError;
  expect(e.name).toBe('SessionForkError');
  expect(e.toJSON()).toEqual({ name: 'SessionForkError', code: e.code, message: e.message });
  return e;
}

/**
 * A copy of sample-sessions whose files are a day old: past the fact cache's
 * racy window (a file changed within seconds of a run is never cached), so a
 * second run reads them from the cache.
 */
export function agedSampleRoot(): string {
  const root = tmpDir();
  fs.cpSync(SAMPLE_DIR, root, { recursive: true });
  const old = new Date(Date.now() - 86_400_000);
  // folders too, after their contents: the fact cache keeps a folder's listing only when its mtime
  // is 2 s older than the run (a run started within 2 s of the copy listed it again and rewrote the cache)
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else fs.utimesSync(p, old, old);
    }
    fs.utimesSync(d, old, old);
  };
  walk(root);
  return root;
}
