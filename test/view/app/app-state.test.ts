// The app reducer with no Ink: key sequences (split from raw bursts) and store
// changes between them -> state. Real session files on disk; store changes go
// through the live follower's own applyChange.
import { sessionsRows } from '../../../src/view/sessions/rows.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../../src/session/store.js';
import { applyChange } from '../../../src/storage/follow.js';
import { loadRootSync, type RootIndex } from '../../../src/storage/load-root.js';
import { reduce } from '../../../src/view/app/reducer.js';
import { indexOfKey, selectedSession, type AppAction, type AppState } from '../../../src/view/app/state.js';
import { initialAppState } from '../../../src/view/app/surfaces.js';
import { problemOf } from '../../../src/session/errors.js';
import { splitKeys } from '../../../src/view/app/keys.js';
import { filterQueryError } from '../../../src/view/sessions/session-filter.js';
import { MAX_FIELD_LENGTH } from '../../../src/view/text/text-field.js';
import { MAX_QUERY_LENGTH } from '../../../src/session/query.js';
import { snapshotWorld } from '../../../src/world/world.js';
import type { World } from '../../../src/view/app/world.js';
import { hasTarget } from '../../../src/view/app/target.js';
import { APP } from '../../../src/view/app/surfaces.js';

const target = APP.target;
import { partialSession } from '../../../src/storage/partial-listing.js';
import { lineageSessionCounts } from '../../../src/view/lineage-graph/lineage-layout.js';

const SAMPLES = path.resolve(__dirname, '../../../sample-sessions');
const NOW = 1795990000000;
const SIZE = { columns: 100, rows: 30 };

let dir: string;
let index: RootIndex;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-appstate-'));
  fs.cpSync(SAMPLES, dir, { recursive: true });
  index = loadRootSync(dir);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A driver: the reducer plus the two effects a test needs (fork, exit), as the controller runs them. */
function driver(idx: RootIndex = index, view: AppState['view'] = 'sessions') {
  let version = 0;
  let n = 0;
  let world: World = snapshotWorld(idx, ++version, NOW, () => `child-${++n}`);
  let state = reduce(initialAppState(SIZE, view), { type: 'world' }, world).state;
  let exited = false;
  const dispatch = (a: AppAction): void => {
    const out = reduce(state, a, world);
    state = out.state;
    for (const e of out.effects) {
      if (e.type === 'exit') exited = true;
      if (e.type === 'fork') {
        try {
          const child = idx.store.fork({ source: e.source, boundary: e.boundary, sessionId: e.childId });
          dispatch({ type: 'forked', child, source: e.source });
        } catch (err) {
          dispatch({ type: 'forkFailed', error: problemOf(err) });
        }
      }
    }
  };
  return {
    /** one raw chunk, as a terminal delivers it: split into presses, each applied to the latest state */
    keys(raw: string) {
      for (const press of splitKeys(raw)) dispatch({ type: 'key', press });
    },
    /** the store changed: a new snapshot */
    changed() {
      world = snapshotWorld(idx, ++version, NOW, () => `child-${++n}`);
      dispatch({ type: 'world' });
    },
    get state() {
      return state;
    },
    get world() {
      return world;
    },
    get exited() {
      return exited;
    },
    rows: () => sessionsRows(state, world).slice(),
    highlighted: () => sessionsRows(state, world).slice()[indexOfKey(sessionsRows(state, world).slice(), state.selection)]?.key,
  };
}

const fileOf = (id: string) => path.join(dir, `${id}.jsonl`);
const change = (file: string, kind: 'grown' | 'deleted' | 'new' | 'replaced') => {
  const st = kind === 'deleted' ? undefined : fs.statSync(file);
  applyChange(index, { file, kind, size: st?.size ?? 0, ino: st?.ino ?? 0, mtimeMs: st?.mtimeMs ?? 0 }, () => {});
};
const line = (o: unknown) => JSON.stringify(o) + '\n';

describe('the one selection is the highlighted row', () => {
  it('a filter typed and kept moves the selection to the row it shows; f, Enter and Tab act on it', () => {
    const d = driver();
    expect(d.state.selection).toBe(d.rows()[0].key);
    d.keys('/bump\r'); // one chunk: filter, keep
    expect(d.state.filterEditing).toBe(false);
    expect(d.state.filter.text).toBe('bump');
    expect(d.state.selection).toBe(fileOf('bump-vitest'));
    expect(d.highlighted()).toBe(d.state.selection);
    d.keys('f');
    expect(d.state.dialog).toMatchObject({ kind: 'confirm', sourceKey: fileOf('bump-vitest'), cut: 28, seedLength: 29 });
    d.keys('\x1b\t'); // Esc then Tab, in one read
    expect(d.state.dialog).toBeUndefined();
    expect(d.state.view).toBe('turns');
    expect(d.state.selection).toBe(fileOf('bump-vitest'));
  });

  it('a filter that matches nothing selects nothing: f refuses with a message, Tab shows no session', () => {
    const d = driver();
    d.keys('/zzzz-no-such\r');
    expect(d.rows()).toHaveLength(0);
    expect(d.state.selection).toBeUndefined();
    d.keys('f');
    expect(d.state.dialog).toBeUndefined();
    expect(d.state.status?.text).toMatch(/no session selected/);
    d.keys('\x1b'); // clears the filter: the first row is highlighted and selected again
    expect(d.state.selection).toBe(d.rows()[0].key);
  });

  it('bursts: jjj moves three rows; Down f forks the row after the move; ten Backspaces delete ten characters', () => {
    const d = driver();
    const rows = d.rows();
    d.keys('jjj');
    expect(d.state.selection).toBe(rows[3].key);
    d.keys('\x1b[Bf');
    expect(d.state.dialog?.sourceKey).toBe(rows[4].key);
    d.keys('\x1b');
    d.keys('/abcdefghijklm' + '\x7f'.repeat(10));
    expect(d.state.filter.text).toBe('abc');
    d.keys('\x15'); // Ctrl-U
    expect(d.state.filter.text).toBe('');
  });

  it('a paste into the filter stays text (its newline is not Enter); outside a text field a paste does nothing', () => {
    const d = driver();
    d.keys('\x1b[200~jjjjf\x1b[201~');
    expect(d.state.selection).toBe(d.rows()[0].key);
    expect(d.state.dialog).toBeUndefined();
    d.keys('/\x1b[200~bump\r\x1b[201~');
    expect(d.state.filterEditing).toBe(true);
    expect(d.state.filter.text).toBe('bump');
  });

  it('a paste of several lines into the filter is one line: each line break (CR, LF, CRLF) is one space, none at the ends', () => {
    for (const br of ['\n', '\r', '\r\n']) {
      const d = driver();
      d.keys(`/\x1b[200~bump${br}vitest${br}\x1b[201~`);
      expect(d.state.filter.text).toBe('bump vitest');
      expect(d.state.filterEditing).toBe(true);
    }
  });

  it('Alt-B / Alt-F (ESC b / ESC f) move the filter caret by word, Alt-D and Alt-Backspace delete a word; none closes the filter', () => {
    const d = driver();
    d.keys('/tool:bash is:error');
    d.keys('\x1bb'); // Alt-B: to the start of "error"
    expect(d.state.filterEditing).toBe(true);
    expect(d.state.filter).toEqual({ text: 'tool:bash is:error', caret: 13 });
    d.keys('\x1bb'); // then of "is"
    expect(d.state.filter.caret).toBe(10);
    d.keys('\x1bf'); // Alt-F: to the end of "is"
    expect(d.state.filter.caret).toBe(12);
    d.keys('\x1b[1;3D'); // Alt-Left is Alt-B too
    expect(d.state.filter.caret).toBe(10);
    d.keys('\x1bd'); // Alt-D: deletes "is"
    expect(d.state.filter).toEqual({ text: 'tool:bash :error', caret: 10 });
    d.keys('\x1b\x7f'); // Alt-Backspace: deletes "bash " (the word before the caret and the space after it)
    expect(d.state.filter).toEqual({ text: 'tool::error', caret: 5 });
    expect(d.state.filterEditing).toBe(true);
    d.keys('\x1bx'); // an Alt key the field does not use changes nothing
    expect(d.state.filter.text).toBe('tool::error');
    expect(d.state.filterEditing).toBe(true);
  });

  it('a query past the limits: the filter holds at most MAX_FIELD_LENGTH characters and says why it matches nothing; the Turns search says the same line as find', () => {
    const d = driver();
    d.keys('/\x1b[200~' + 'w '.repeat(50_000) + '\x1b[201~'); // a 100,000-character paste
    expect(d.state.filter.text).toHaveLength(MAX_FIELD_LENGTH);
    expect(MAX_FIELD_LENGTH).toBeGreaterThan(MAX_QUERY_LENGTH);
    const limit = `query error at column 1001: query too long: ${MAX_FIELD_LENGTH} characters; a query holds at most 1000 characters`;
    expect(filterQueryError(d.state.filter.text)).toBe(limit);
    expect(d.rows()).toHaveLength(0); // filtered as plain text, as any text that does not parse
    d.keys('xyz'); // the field is full: keys are taken and change nothing
    expect(d.state.filter.text).toHaveLength(MAX_FIELD_LENGTH);
    d.keys('\x7f'.repeat(MAX_FIELD_LENGTH - 1000)); // back to 1,000 characters: 500 terms, the next limit
    expect(filterQueryError(d.state.filter.text)).toBe('query error at column 65: too many terms: a query holds at most 32 terms (this is term 33)');
    d.keys('\x7f'.repeat(1000 - 64)); // 32 terms: a query again
    expect(filterQueryError(d.state.filter.text)).toBeUndefined();
    d.keys('\x1b\r'); // clear the filter, open the first session
    expect(d.state.view).toBe('turns');
    d.keys('/\x1b[200~' + 'A'.repeat(100_000) + '\x1b[201~\r');
    expect(d.state.status).toMatchObject({ text: limit, tone: 'error' });
    expect(d.state.turnSearch?.editing).toBe(true); // the search stays open to fix
    const terms = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    d.keys('\x15' + terms + '\r'); // Ctrl-U, 40 terms
    expect(d.state.status?.text).toBe(`query error at column ${terms.indexOf('w32') + 1}: too many terms: a query holds at most 32 terms (this is term 33)`);
  });

  it('a live reorder keeps the selection on its session (the highlight follows it)', () => {
    const d = driver();
    d.keys('G'); // the oldest session
    const key = d.state.selection!;
    const file = key;
    // the oldest becomes the most recent: a new completed turn
    const s = index.store.byFile(file)!;
    const t = NOW;
    fs.appendFileSync(file, [line({ type: 'turn/start', seq: s.length, time: t, data: { turn: 99, trigger: 'user' } }), line({ type: 'turn/end', seq: s.length + 1, time: t, data: { turn: 99, reason: { kind: 'completed' } } })].join(''));
    change(file, 'grown');
    d.changed();
    expect(d.state.selection).toBe(key);
    expect(d.rows()[0].key).toBe(key);
    expect(d.highlighted()).toBe(key);
  });
});

describe('deleted and unreadable sessions', () => {
  it('a deleted selected session stays listed as deleted until the user moves away; f is refused with the typed error', () => {
    const d = driver();
    d.keys('/bump\r\x1b'); // select bump-vitest, then clear the filter: it stays selected
    const key = fileOf('bump-vitest');
    expect(d.state.selection).toBe(key);
    const at = indexOfKey(d.rows(), key);
    fs.unlinkSync(key);
    change(key, 'deleted');
    d.changed();
    expect(d.state.selection).toBe(key);
    expect(d.state.ghost).toBe(true);
    expect(d.rows()[at]).toMatchObject({ key, badge: 'file deleted', gone: true });
    expect(d.rows().filter((r) => r.gone)).toHaveLength(1); // the header counts it apart (sessionsCountText)
    d.keys('f');
    expect(d.state.dialog).toMatchObject({ kind: 'refused', error: { code: 'SESSION_NOT_FOUND' } });
    d.keys('\x1b');
    d.keys('\t\t'); // Lineage has no row for it: the selection moves to the highlighted lineage row
    expect(d.state.view).toBe('lineage');
    expect(d.state.selection).not.toBe(key);
    expect(d.world.lineage().rows.some((r) => r.key === d.state.selection)).toBe(true);
    d.keys('f');
    expect(d.state.dialog?.sourceKey).toBe(d.state.selection);
  });

  it('moving away from a deleted session drops it from the list', () => {
    const d = driver();
    d.keys('/bump\r\x1b');
    const key = fileOf('bump-vitest');
    fs.unlinkSync(key);
    change(key, 'deleted');
    d.changed();
    const n = d.rows().length;
    d.keys('j');
    expect(d.state.ghost).toBe(false);
    expect(d.rows()).toHaveLength(n - 1);
    expect(d.rows().some((r) => r.key === key)).toBe(false);
  });

  it('a never-opened session whose file vanished opens in Turns as unreadable instead of crashing', () => {
    const d = driver();
    d.keys('/review\r');
    const key = fileOf('review-pr-482');
    expect(d.state.selection).toBe(key);
    expect(index.store.byFile(key)!.isLoaded).toBe(false);
    fs.unlinkSync(key); // the follower has not noticed yet
    d.keys('\t');
    expect(d.state.view).toBe('turns');
    const data = d.world.turns(selectedSession(d.state, d.world)!);
    expect(data.ok).toBe(false);
    d.keys('jjGf');
    expect(d.state.dialog?.kind).toBe('refused');
  });
});

describe('the fork dialog pins what it shows', () => {
  function growWithTurn(file: string, open: boolean) {
    const s = index.store.byFile(file)!;
    const turn = s.facts.turns + 1;
    let seq = s.length;
    const ev = (type: string, data: unknown) => line({ type, seq: seq++, time: NOW, data });
    let text = ev('turn/start', { turn, trigger: 'user' }) + ev('user/message', { content: [{ type: 'text', text: 'more' }], source: 'user' });
    if (!open) text += ev('turn/end', { turn, reason: { kind: 'completed' } });
    fs.appendFileSync(file, text);
    change(file, 'grown');
  }

  it('the session grows by a whole turn while the dialog is open: Enter forks the seq shown', () => {
    const d = driver();
    d.keys('/bump\rf');
    expect(d.state.dialog).toMatchObject({ kind: 'confirm', cut: 28, seedLength: 29 });
    growWithTurn(fileOf('bump-vitest'), false);
    d.changed();
    expect(d.state.dialog).toMatchObject({ kind: 'confirm', cut: 28, seedLength: 29 });
    d.keys('\r');
    const child = index.store.byFile(path.join(dir, 'child-1.jsonl'))!;
    expect(child.seedLength).toBe(29);
    expect(d.state.status?.text).toMatch(/forked bump-vitest -> child-1/);
  });

  it('the session is mid-turn by the time Enter is pressed: still the boundary shown, never OPEN_TURN', () => {
    const d = driver();
    d.keys('/bump\rf');
    growWithTurn(fileOf('bump-vitest'), true);
    d.changed();
    d.keys('\r');
    expect(index.store.byFile(path.join(dir, 'child-1.jsonl'))!.seedLength).toBe(29);
  });

  it('a replaced file gets SESSION_NOT_LIVE and nothing is written; the dialog moves to the live instance at the same seq', () => {
    const d = driver();
    d.keys('/bump\rf');
    const file = fileOf('bump-vitest');
    fs.writeFileSync(file + '.new', fs.readFileSync(file));
    fs.renameSync(file + '.new', file);
    change(file, 'replaced');
    d.changed();
    const names = fs.readdirSync(dir).sort();
    d.keys('\r');
    expect(fs.readdirSync(dir).sort()).toEqual(names);
    expect(d.state.dialog).toMatchObject({ kind: 'confirm', cut: 28, error: { code: 'SESSION_NOT_LIVE' } });
    expect(d.state.dialog?.kind === 'confirm' && d.state.dialog.source).toBe(index.store.byFile(file));
    d.keys('\r');
    expect(index.store.byFile(path.join(dir, 'child-1.jsonl'))!.seedLength).toBe(29);
  });

  it('an empty session pinned at seedLength 0 that grows meanwhile: the store refuses, nothing written', () => {
    const d = driver();
    const file = fileOf('5e0b7c1d-2a94-4f3e-8d61-9b7a0c4e2f18');
    d.keys('/5e0b\rf');
    expect(d.state.dialog).toMatchObject({ kind: 'confirm', seedLength: 0 });
    growWithTurn(file, false);
    d.changed();
    d.keys('\r');
    expect(d.state.dialog).toMatchObject({ kind: 'confirm', error: { code: 'INVALID_BOUNDARY' } });
    expect(fs.existsSync(path.join(dir, 'child-1.jsonl'))).toBe(false);
  });

  it('the child id field edits like readline; control keys never insert letters', () => {
    const d = driver();
    d.keys('/bump\rf');
    d.keys('\x15abc-def ghi'); // Ctrl-U, then type
    const id = () => (d.state.dialog?.kind === 'confirm' ? d.state.dialog.childId : undefined);
    expect(id()).toEqual({ text: 'abc-def ghi', caret: 11 });
    d.keys('\x17'); // Ctrl-W: the word before the caret
    expect(id()?.text).toBe('abc-def ');
    d.keys('\x01X\x05Y'); // Ctrl-A, X, Ctrl-E, Y
    expect(id()?.text).toBe('Xabc-def Y');
    d.keys('\x1b[D\x1b[D\x0b'); // Left Left Ctrl-K
    expect(id()?.text).toBe('Xabc-def');
    d.keys('\x1b[H\x1b[3~'); // Home Delete
    expect(id()?.text).toBe('abc-def');
    d.keys('\x07\x02\x0f'); // Ctrl-G, Ctrl-B (moves), Ctrl-O: nothing inserted
    expect(id()?.text).toBe('abc-def');
  });
});

describe('Turns state per session', () => {
  it('is kept across help, Tab away and back, and other sessions', () => {
    const d = driver();
    d.keys('/fix-flaky-retry-test\r');
    const key = d.state.selection!;
    d.keys('\r'); // open in Turns
    d.keys('ljj');
    const t = d.state.turns.get(key)!;
    d.keys('?\x1b\t\t\t\t'); // Lineage, Problems, Sessions, Turns
    expect(d.state.view).toBe('turns');
    expect(d.state.turns.get(key)).toBe(t);
    d.keys('\x1b\x1b\x1b'); // back to Sessions, clear the filter
    d.keys('j\rjj');
    expect(d.state.turns.get(key)).toBe(t);
    d.keys('\x1b/fix-flaky-retry-test\rg');
    for (let i = 0; i < 5 && d.state.selection !== key; i++) d.keys('j');
    d.keys('\r');
    expect(d.state.view).toBe('turns');
    expect(d.state.selection).toBe(key);
    expect(d.state.turns.get(key)).toBe(t);
  });
});

describe('duplicate ids', () => {
  function twins() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-twins-'));
    const header = (extra: object = {}) => line({ type: 'session', version: 0, id: 'twin-W7', createdAt: NOW, ...extra });
    const turn = (text: string, from = 0) =>
      line({ type: 'turn/start', seq: from, time: NOW, data: { turn: 1, trigger: 'user' } }) +
      line({ type: 'user/message', seq: from + 1, time: NOW, data: { content: [{ type: 'text', text }], source: 'user' } }) +
      line({ type: 'turn/end', seq: from + 2, time: NOW, data: { turn: 1, reason: { kind: 'completed' } } });
    fs.writeFileSync(path.join(root, 'twin-a.jsonl'), header() + turn('first twin'));
    fs.writeFileSync(path.join(root, 'twin-b.jsonl'), line({ type: 'session', version: 0, id: 'twin-W7', createdAt: NOW + 1 }) + turn('second twin'));
    return root;
  }

  it('a fork of the second twin is drawn under it; a harness-written child resolves by its seed; a spawn is ambiguous', () => {
    const root = twins();
    try {
      const idx = loadRootSync(root);
      const twinB = path.join(root, 'twin-b.jsonl');
      const child = idx.store.fork({ source: idx.store.byFile(twinB)!, sessionId: 'kid' });
      expect(child.forkedFrom).toBe(twinB);
      // a child written by someone else: its seed equals twin-b's
      const seedB = fs.readFileSync(twinB, 'utf8').split('\n').slice(1).join('\n');
      fs.writeFileSync(path.join(root, 'other.jsonl'), line({ type: 'session', version: 0, id: 'other', createdAt: NOW + 5, parentSession: 'twin-W7', seedLength: 3 }) + seedB);
      fs.writeFileSync(path.join(root, 'spawned.jsonl'), line({ type: 'session', version: 0, id: 'spawned', createdAt: NOW + 6, parentSession: 'twin-W7' }));
      const fresh = loadRootSync(root); // a new process: no in-memory record of the fork
      const d = driver(fresh, 'lineage');
      const layout = d.world.lineage();
      const edge = (id: string) => layout.edges.find((e) => e.child === id)!;
      expect(edge('kid').parentKey).toBe(twinB); // by seed: twin-a's first turn says "first twin"
      expect(edge('other').parentKey).toBe(twinB);
      expect(edge('spawned').parentKey).toBeUndefined();
      expect(layout.ambiguous).toEqual([path.join(root, 'spawned.jsonl')]);
      expect(layout.rows.map((r) => r.text).join('\n')).toContain('ambiguous parent twin-W7');
      // both twins say DUPLICATE_ID in the Sessions list and the Lineage labels
      expect(d.world.rows('', 'recent').slice().filter((r) => r.title.startsWith('⚠ DUPLICATE_ID')).map((r) => r.id).sort()).toEqual(['twin-W7', 'twin-W7']);
      expect(layout.rows.filter((r) => r.text.includes('twin-W7 (DUPLICATE_ID)'))).toHaveLength(2);
      // in-process: the child records its parent's file
      const live = driver(idx, 'lineage').world.lineage();
      expect(live.edges.find((e) => e.child === 'kid')!.parentKey).toBe(twinB);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('keys', () => {
  it('q and Ctrl-C quit, even inside a burst and inside the filter', () => {
    const a = driver();
    a.keys('jjq');
    expect(a.exited).toBe(true);
    const b = driver();
    b.keys('/abc\x03');
    expect(b.exited).toBe(true);
    const c = driver();
    c.keys('/abq');
    expect(c.exited).toBe(false);
    expect(c.state.filter.text).toBe('abq');
  });

  it('resizes re-window the list around the selection', () => {
    const d = driver();
    d.keys('G');
    d.keys('');
    const r = reduce(d.state, { type: 'resize', size: { columns: 60, rows: 8 } }, d.world).state;
    const rows = sessionsRows(r, d.world).slice();
    const i = indexOfKey(rows, r.selection);
    expect(i).toBe(rows.length - 1);
    expect(r.sessions.top).toBeLessThanOrEqual(i);
    expect(r.sessions.top + 4).toBeGreaterThan(i); // the list has 8 - 4 - 2 = 2 rows: the selection is inside
  });
});

// SessionStore.keyOf is the selection's key space everywhere
it('selection keys are store keys', () => {
  const d = driver();
  expect(index.store.byFile(d.state.selection!)).toBeDefined();
  expect(SessionStore.keyOf(index.store.byFile(d.state.selection!)!)).toBe(d.state.selection);
});

describe('lineage collapse', () => {
  it('h hides the selected node subtree (the row says how many), l shows it again; the selection stays', () => {
    const d = driver(index, 'lineage');
    const root = fileOf('fix-flaky-retry-test');
    for (let i = 0; i < 20 && d.state.selection !== root; i++) d.keys('j');
    expect(d.state.selection).toBe(root);
    const before = d.world.lineage(d.state.lineage.collapsed).rows.length;
    d.keys('h');
    const rows = d.world.lineage(d.state.lineage.collapsed).rows;
    expect(rows.length).toBe(before - 4); // its two forks, their child and the spawned subagent
    expect(rows.find((r) => r.key === root)).toMatchObject({ collapsed: true, hidden: 4 });
    const all = d.world.lineage().rows.filter((r) => r.key !== null).length;
    expect(lineageSessionCounts(d.world.lineage(d.state.lineage.collapsed))).toEqual({ sessions: all, hidden: 4 });
    expect(d.state.selection).toBe(root);
    d.keys('l');
    expect(d.world.lineage(d.state.lineage.collapsed).rows.length).toBe(before);
  });
});

describe('a session listed before its log is read (a large log in the first scan)', () => {
  it('shows its counts as not known, and every action says why it waits', () => {
    // a sample log listed from its head and tail, as the scan lists a large log
    const file = index.store.list().find((s) => s.facts.turns > 1)!.file!;
    const partial = partialSession(file)!;
    expect(partial.partial).toBe(true);
    index.store.add(partial);
    const d = driver();
    d.keys('/');
    d.keys(partial.id);
    d.keys('\r');
    const t = target(d.state, d.world);
    expect(hasTarget(t)).toBe(false);
    expect((t as { none: string }).none).toMatch(/still being read/);
    const row = sessionsRows(d.state, d.world).find((r) => r.key === file)!;
    expect([row.turns, row.events, row.tokens, row.forkable]).toEqual(['…', '…', '…', false]);
    // f, Enter, x: refused with the reason, nothing forked or opened
    const sessions = index.store.list().length;
    d.keys('f');
    d.keys('\r');
    expect(d.state.view).toBe('sessions');
    expect(index.store.list().length).toBe(sessions);
  });
});
