// Terminal safety: a session whose every file-derived string carries terminal
// attacks (OSC title change, clear screen, OSC 52 clipboard write, OSC 8
// hyperlink, BEL, C1 CSI, bidi override) is inert in the plain CLI output and
// in a real pseudo-terminal (CLI and TUI); --json stays exact JSON.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys, killAllPtys, spawnPty, type PtySession } from '../e2e/pty-harness.js';
import { cleanupTmp, hdr, REPO, tmpDir } from '../support/fixtures.js';

const CLI = path.join(REPO, 'dist', 'dsh-browse.mjs'); // the bundled bin users run
afterEach(killAllPtys);
afterAll(cleanupTmp);

const TITLE = '\x1b]0;pwned\x07';
const CLEAR = '\x1b[2J\x1b[H';
const CLIP = '\x1b]52;c;ZXZpbA==\x07';
const LINK = '\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07';
const H = `${TITLE}${CLEAR}${CLIP}${LINK}\x07\u009b31m\u202Eevil\u2066x\u2069\x7f\r`;
const h = (label: string) => `${label}:${H}:end`;

const ID = h('id');
const CHILD = h('child');
const SPAWN = h('spawn');
const CWD = '/w/' + h('cwd');
const PROMPT = h('prompt');

function hostileEvents(): object[] {
  const t = 1_700_000_000_000;
  const rows: Array<[string, unknown]> = [
    ['turn/start', { turn: 1, trigger: 'user' }],
    ['user/message', { content: [{ type: 'text', text: PROMPT }], source: 'user' }],
    ['step/start', { turn: 1, step: 1 }],
    ['assistant/message', { turn: 1, step: 1, content: [{ type: 'reasoning', text: h('reasoning') }, { type: 'text', text: h('model') }, { type: 'tool-call', id: h('cid'), name: h('tool'), arguments: h('args') }] }],
    ['tool/call', { turn: 1, step: 1, callId: h('cid'), name: h('tool'), arguments: h('args') }],
    ['tool/result', { turn: 1, step: 1, callId: h('cid'), content: [{ type: 'tool-result', toolCallId: h('cid'), content: [{ type: 'text', text: h('result') }], isError: true }], isError: true, error: h('toolerr') }],
    ['step/end', { turn: 1, step: 1 }],
    ['turn/end', { turn: 1, reason: { kind: 'error', step: 1, message: h('errmsg'), code: h('code') } }],
    [h('plugin/type'), { note: h('plugin') }],
    ['turn/start', { turn: 2, trigger: 'user' }],
    ['user/message', { content: [{ type: 'text', text: h('prompt2') }], source: 'user' }],
    ['turn/end', { turn: 2, reason: { kind: h('kind') } }],
  ];
  return rows.map(([type, data], seq) => ({ type, seq, time: t + seq, data }));
}

let root: string;
let parentFile: string;
let hostileName: string;
beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error('run `npm run build` first');
  root = tmpDir('dsh-term-');
  const events = hostileEvents();
  const lines = (header: object, evs: object[]) => [header, ...evs].map((o) => JSON.stringify(o)).join('\n') + '\n';
  parentFile = path.join(root, 'parent.jsonl');
  fs.writeFileSync(parentFile, lines(hdr(ID, { cwd: CWD, agentPreset: h('preset'), origin: h('origin') }), events));
  fs.writeFileSync(path.join(root, 'child.jsonl'), lines(hdr(CHILD, { cwd: CWD, parentSession: ID, seedLength: 8 }), events.slice(0, 8)));
  fs.writeFileSync(path.join(root, 'spawn.jsonl'), lines(hdr(SPAWN, { parentSession: h('missing-parent') }), []));
  // a cycle and a damaged line that quotes hostile bytes in its diagnostic
  fs.writeFileSync(path.join(root, 'cycle.jsonl'), lines(hdr(h('cyc'), { parentSession: h('cyc') }), []) + `{"type":"${H.replace(/[\x00-\x1f]/g, '')}", broken ${H}\n`);
  // an open turn whose last event has a hostile type (the list shows "open (<type>)")
  fs.writeFileSync(path.join(root, 'open.jsonl'), lines(hdr(h('open')), [...events.slice(0, 2), { type: h('last/type'), seq: 2, time: 1, data: {} }]));
  // a file name with the attack in it (the CLI prints paths)
  hostileName = path.join(root, `name${TITLE}${CLIP}\u202E.jsonl`);
  fs.writeFileSync(hostileName, lines(hdr(h('named')), events.slice(0, 8)));
});

const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, FORCE_COLOR: undefined, NO_COLOR: undefined } });

/** Anything a terminal could act on, except "\n". */
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f\u0080-\u009f]/;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

function expectInert(out: string, what: string): void {
  const bad = out.match(CONTROL) ?? out.match(BIDI);
  expect(bad, `${what}: ${JSON.stringify(bad?.[0])} at ${bad?.index}: ${JSON.stringify(out.slice(Math.max(0, (bad?.index ?? 0) - 40), (bad?.index ?? 0) + 20))}`).toBeNull();
  expect(out).not.toMatch(/\p{Cs}/u);
}

describe('plain CLI output (no TTY: no colour at all) holds no control bytes and no bidi controls', () => {
  const cmds: string[][] = [['list'], ['lineage'], ['audit'], ['tree', '--session', 'PARENT'], ['tree', '--session', 'CHILD'], ['tree', '--session', 'NAMED'], ['fork', '--session', 'PARENT', '--id', 'FRESH']];
  for (const c of cmds)
    it(c.join(' '), () => {
      const args = c.map((a) => (a === 'PARENT' ? parentFile : a === 'CHILD' ? path.join(root, 'child.jsonl') : a === 'NAMED' ? hostileName : a === 'FRESH' ? h('fresh') : a));
      const r = run(args[0], '--dir', root, ...args.slice(1));
      expect([0, 1]).toContain(r.status);
      expect(r.stdout.length).toBeGreaterThan(0);
      expectInert(r.stdout, 'stdout');
      expectInert(r.stderr, 'stderr');
      expect(r.stdout).not.toContain('\x1b[');
      // the attack is shown, inertly
      if (c[0] !== 'fork') expect(r.stdout).toMatch(/␛\]0;pwned␇|␛\]52|<U\+202E>/);
    });

  it('a refused fork prints the typed error, inert', () => {
    const r = run('fork', '--dir', root, '--session', parentFile, '--id', CHILD);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^SessionForkError SESSION_ALREADY_EXISTS: /);
    expectInert(r.stderr, 'stderr');
  });
});

describe('--json output is exact JSON that round-trips the hostile strings', () => {
  it('list, tree, lineage, audit', () => {
    const list = JSON.parse(run('list', '--dir', root, '--json').stdout);
    const p = list.sessions.find((s: any) => s.file === parentFile);
    expect(p).toMatchObject({ id: ID, cwd: CWD, title: PROMPT });
    expect(list.sessions.map((s: any) => s.file)).toContain(hostileName);
    expect(list.sessions.find((s: any) => s.id === CHILD)).toMatchObject({ parentSession: ID, seedLength: 8 });

    const tree = JSON.parse(run('tree', '--dir', root, '--session', parentFile, '--json').stdout);
    expect(tree.id).toBe(ID);
    const turn1 = tree.turns[0];
    expect(turn1.prompt).toBe(PROMPT);
    expect(turn1.reasonData.message).toBe(h('errmsg'));
    const step = turn1.children.find((n: any) => n.kind === 'step');
    const msg = step.children.find((n: any) => n.kind === 'message' && n.role === 'assistant');
    expect(msg.text).toBe(h('model'));
    expect(msg.reasoning).toBe(h('reasoning'));
    const tool = step.children.find((n: any) => n.kind === 'tool');
    expect(tool).toMatchObject({ callId: h('cid'), name: h('tool'), arguments: h('args') });
    expect(tool.result.text).toBe(h('result'));
    expect(tree.turns.find((n: any) => n.kind === 'event').type).toBe(h('plugin/type'));

    const lineage = JSON.parse(run('lineage', '--dir', root, '--json').stdout);
    expect(lineage.nodes.map((n: any) => n.id)).toEqual(expect.arrayContaining([ID, CHILD, SPAWN]));

    const audit = run('audit', '--dir', root, '--json');
    const findings = JSON.parse(audit.stdout).findings;
    expect(findings.some((f: any) => f.code === 'LINEAGE_CYCLE' && f.session === h('cyc'))).toBe(true);
    expect(findings.some((f: any) => f.code === 'ORPHAN_PARENT' && f.session === SPAWN)).toBe(true);
  });
});

// ---- a real pseudo-terminal -------------------------------------------------

const MARKER = 'EARLIER-OUTPUT-MARKER';

function expectNoAttackReached(s: PtySession): void {
  const raw = s.rawOutput();
  expect(s.titles()).toEqual([]);
  expect(s.title()).toBe('');
  expect(raw).not.toContain('\x1b]52');
  expect(raw).not.toContain('\x1b]0;');
  expect(raw).not.toContain('\x1b]8;');
  expect(raw).not.toContain('\u009b');
  expect(raw).not.toMatch(BIDI);
  expect(raw).not.toContain('pwned\x07');
}

describe('in a real pty', () => {
  for (const cmd of [['list'], ['lineage'], ['audit'], ['tree', '--session', 'PARENT']])
    it(`dsh-browse ${cmd[0]}: no title change, no clipboard write, earlier output not cleared; only our colour codes`, async () => {
      const args = cmd.map((a) => (a === 'PARENT' ? parentFile : a));
      const quoted = [CLI, args[0], '--dir', root, ...args.slice(1)].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
      const s = spawnPty('/bin/sh', ['-c', `printf '%s\\n' ${MARKER}; exec '${process.execPath}' ${quoted}`], { cols: 220, rows: 60 });
      await s.exited;
      await s.flush();
      expectNoAttackReached(s);
      const raw = s.rawOutput();
      // every escape sequence is an SGR colour code of ours
      const escapes = raw.match(/\x1b[^m]{0,12}m?|\x1b./g) ?? [];
      for (const e of escapes) expect(e).toMatch(/^\x1b\[[0-9;]*m$/);
      expect(raw).toMatch(/\x1b\[\d+m/); // colour is on in a TTY
      expect(s.screen()).toContain(MARKER); // nothing cleared the screen
      expect(raw).not.toContain('\x1b[2J');
    });

  it('the TUI: open the hostile session, look at its turns and every other surface, quit', async (ctx) => {
    const s = spawnPty(process.execPath, [CLI, root], { cols: 160, rows: 40 });
    try {
      await s.waitFor((screen) => /Sessions/.test(screen) || /not built/.test(screen), 15_000);
    } catch (e) {
      if (s.hasExited()) return ctx.skip(`the TUI did not start: ${s.screen().trim().slice(0, 200)}`);
      throw e;
    }
    if (/not built/.test(s.screen())) return ctx.skip('the TUI is not built yet');
    expectNoAttackReached(s);
    // Each key waits for the surface it leads to (no sleeps): a loaded machine only makes this slower.
    const footer = (scr: string) => scr.split('\n').filter((l) => l.trim()).at(-1) ?? '';
    const selectedTurn = (scr: string) => scr.split('\n').findIndex((l) => l.startsWith('›'));
    const hasDetail = (scr: string) => scr.includes('── detail ─');
    const selectedRow = (scr: string) => scr.split('\n').findIndex((l) => l.startsWith('▶'));
    const step = async (key: string, pred: (screen: string) => boolean, what: string) => {
      s.write(key);
      await s.waitFor(Object.defineProperty(pred, 'name', { value: what }), 15_000);
      expectNoAttackReached(s);
    };
    /** Sessions: from the top row down to the row `re` matches (the CLI tests above may have added a session). */
    const selectSession = async (re: RegExp, what: string) => {
      await step('g', (scr) => selectedRow(scr) === 4, 'the first session selected'); // below the title, tabs, summary and header
      while (!re.test(s.lines()[selectedRow(s.screen())])) {
        const before = selectedRow(s.screen());
        expect(before, `no row for ${what}`).toBeLessThan(s.lines().length - 3);
        await step(keys.down, (scr) => selectedRow(scr) > before, `the session below row ${before}`);
      }
    };
    // the Sessions list, the hostile ids on screen, inert
    // and the first scan over (the title says live): a list still filling in moves rows under the cursor
    await s.waitFor((scr) => /\d+ sessions · order: recent/.test(scr) && /^▶ /m.test(scr) && /␛\]0;pwned␇/.test(scr) && / live\b/.test(scr.split('\n')[0]), 15_000);
    await selectSession(/^▶ boundary +id:␛\]0;pwned␇/, 'the hostile session');
    await step(keys.enter, (scr) => /^› 0 ▸ turn 1 +error/m.test(scr), 'Turns of the hostile session');
    await step('e', (scr) => /^› 0 ▾ turn 1/m.test(scr), 'every turn expanded');
    for (let i = 0; i < 5; i++) {
      const before = selectedTurn(s.screen());
      await step(keys.down, (scr) => selectedTurn(scr) > before, `the cursor below row ${before}`);
    }
    const detail = hasDetail(s.screen());
    await step('d', (scr) => hasDetail(scr) !== detail, 'the detail pane toggled');
    // every other surface that shows file text: the reader, Lineage, Problems, the action menu, Compare
    await step('o', (scr) => / of \d+ lines? · \d+% · wrap/.test(scr) && /Space page/.test(footer(scr)), 'the reader');
    await step(keys.esc, (scr) => /b boundary +t history/.test(footer(scr)), 'back in Turns');
    await step('\t', (scr) => /\d+ sessions · \d+ edges · 1 orphan · 1 cycle!/.test(scr), 'Lineage');
    await step('\t', (scr) => /\d+ problems · \d+ errors/.test(scr), 'Problems');
    await step('j', (scr) => /^▶ [EW] /m.test(scr), 'a problem highlighted');
    await step('a', (scr) => /Enter run +Esc close/.test(footer(scr)), 'the action menu');
    await step(keys.esc, (scr) => /^↑↓ move +Enter open/.test(footer(scr)), 'the menu closed');
    await step('\t', (scr) => /\d+ sessions · order: recent/.test(scr), 'Sessions');
    await selectSession(/^▶ boundary +id:/, 'the parent');
    await step('m', (scr) => /^marked id:/.test(footer(scr)), 'the parent marked');
    await selectSession(/^▶ boundary +◆ child:/, 'its fork');
    await step('c', (scr) => /common ancestor id:/.test(scr) && /side: left \(id:/.test(scr), 'Compare');
    await step(keys.right, (scr) => /side: right \(child:/.test(scr), 'the right side');
    await step(keys.up, (scr) => /^▶ ≡ 1 shared turn/m.test(scr), 'the shared turns'); // T2 has no turn on the right
    await step(keys.enter, (scr) => /^child:.*\[at boundary\] +inherited from id:/m.test(scr) && /^› .*── fork here · seq 7 ──/m.test(scr), "the fork's turns at the fork point");
    await step(keys.esc, (scr) => /side: right \(child:/.test(scr), 'back in Compare');
    await step(keys.esc, (scr) => /\d+ sessions · order: recent/.test(scr) && !/side: right/.test(scr), 'Compare closed');
    s.write('q');
    const exit = await Promise.race([s.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 15_000).unref())]);
    expect(exit, 'q quits').not.toBe('timeout');
    await s.flush();
    expectNoAttackReached(s);
    expect(s.hasExited()).toBe(true);
    expect(s.screen()).not.toContain('pwned\x07');
  }, 120_000); // some thirty screens, each with its own 15 s deadline
});
