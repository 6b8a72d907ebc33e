import { afterEach, describe, expect, it } from 'vitest';
import { childEnv, keys, killAllPtys, spawnPty } from './pty-harness.js';

const node = process.execPath;

function nodeScript(code: string, opts: Parameters<typeof spawnPty>[2] = {}) {
  return spawnPty(node, ['-e', code], opts);
}

afterEach(() => {
  killAllPtys();
});

describe('pty harness', () => {
  it('loads the node-pty prebuilt binary and runs a program in a real tty', async () => {
    const s = nodeScript(
      'console.log("hello from the pty"); console.log("isTTY=" + process.stdout.isTTY + " size=" + process.stdout.columns + "x" + process.stdout.rows)',
      { cols: 90, rows: 20 },
    );
    await s.waitFor('hello from the pty');
    await s.waitFor('isTTY=true size=90x20');
    expect(await s.exited).toEqual({ exitCode: 0 });
    expect(s.screen().split('\n')).toHaveLength(20);
    expect(s.lines()[0]).toBe('hello from the pty');
    expect(s.rawOutput()).toContain('hello from the pty\r\n');
  });

  it('shows the visible screen after cursor movement and clearing, not the raw stream', async () => {
    const s = nodeScript('process.stdout.write("old text\\x1b[2J\\x1b[H" + "new\\x1b[5Ctext\\x1b[3;1Hthird row   ")');
    await s.exited;
    await s.flush();
    const lines = s.lines();
    expect(lines[0]).toBe('new     text');
    expect(lines[1]).toBe('');
    expect(lines[2]).toBe('third row'); // trailing spaces trimmed
    expect(s.screen()).not.toContain('old text');
    expect(s.rawOutput()).toContain('old text');
  });

  it('delivers typed keys to a program reading raw stdin', async () => {
    const s = nodeScript(
      [
        'process.stdin.setRawMode(true);',
        'process.stdout.write("ready\\n");',
        'process.stdin.on("data", d => {',
        '  const k = d.toString("latin1");',
        '  if (k === "\\x03") { process.stdout.write("bye\\n"); process.exit(0); }',
        '  process.stdout.write("got " + JSON.stringify(k) + "\\n");',
        '});',
      ].join('\n'),
    );
    await s.waitFor('ready');
    s.write('x');
    await s.waitFor('got "x"');
    s.write(keys.down);
    await s.waitFor('got "\\u001b[B"');
    s.write(keys.enter);
    await s.waitFor('got "\\r"');
    s.write(keys.ctrlC);
    await s.waitFor('bye');
    expect((await s.exited).exitCode).toBe(0);
  });

  it('detects a terminal title change (OSC 0)', async () => {
    const s = nodeScript('process.stdout.write("\\x1b]0;pwned\\x07visible\\n")');
    await s.waitFor('visible');
    await s.exited;
    expect(s.title()).toBe('pwned');
    expect(s.titles()).toEqual(['pwned']);
    expect(s.screen()).not.toContain('pwned'); // the sequence was consumed, not printed
  });

  it('reports no title when the program sets none', async () => {
    const s = nodeScript('console.log("plain")');
    await s.waitFor('plain');
    await s.exited;
    expect(s.title()).toBe('');
    expect(s.titles()).toEqual([]);
  });

  it('removes CI markers from the child env even when the runner has CI=true', async () => {
    const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION, FORCE_COLOR: process.env.FORCE_COLOR };
    process.env.CI = 'true';
    process.env.CONTINUOUS_INTEGRATION = '1';
    process.env.FORCE_COLOR = '3';
    try {
      const env = childEnv();
      expect(env.CI).toBeUndefined();
      expect(env.TERM).toBe('xterm-256color');
      const s = nodeScript(
        'console.log("ENV " + JSON.stringify({ci: process.env.CI ?? null, cont: process.env.CONTINUOUS_INTEGRATION ?? null, fc: process.env.FORCE_COLOR ?? null, term: process.env.TERM, vitest: process.env.VITEST ?? null}))',
      );
      const screen = await s.waitFor('ENV ');
      expect(screen).toContain('ENV {"ci":null,"cont":null,"fc":null,"term":"xterm-256color","vitest":null}');
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it("is-in-ci (what Ink uses) says false in the child", async () => {
    process.env.CI ??= 'true'; // harmless if the runner already set it
    const s = nodeScript('import("is-in-ci").then(m => console.log("inCi=" + m.default))', { cwd: process.cwd() });
    await s.waitFor(/inCi=(true|false)/);
    expect(s.screen()).toContain('inCi=false');
  });

  it('lets a test opt back into CI explicitly', async () => {
    const s = nodeScript('console.log("CI=" + process.env.CI)', { env: { CI: 'true' } });
    await s.waitFor('CI=true');
  });

  it('waitFor accepts a RegExp or a function and times out with the screen in the message', async () => {
    const s = nodeScript('console.log("alpha 42"); setTimeout(() => {}, 10000)');
    await s.waitFor(/alpha \d+/);
    await s.waitFor((screen) => screen.startsWith('alpha'));
    const err = await s.waitFor('never shown', 300).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toContain('"never shown"');
    expect(err!.message).toContain('alpha 42');
    expect(err!.message).toContain('still running');
    s.kill();
    const exit = await s.exited;
    expect(exit.signal).toBeDefined();
  });

  it('waitFor fails fast, with the final screen, once the program has exited without a match', async () => {
    const s = nodeScript('console.log("crashed: boom"); process.exit(3)');
    const started = Date.now();
    // a deadline far beyond the bound below: waitFor must give up when the program exits, not at the deadline
    const err = await s.waitFor('main menu', 120_000).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(err?.message).toContain('exited');
    expect(err?.message).toContain('crashed: boom');
    expect(await s.exited).toEqual({ exitCode: 3 });
  });

  it('resizes the pty so the child sees SIGWINCH and the new size', async () => {
    const s = nodeScript(
      'console.log("start " + process.stdout.columns); process.stdout.on("resize", () => console.log("resized " + process.stdout.columns + "x" + process.stdout.rows)); setTimeout(() => {}, 10000)',
      { cols: 80, rows: 24 },
    );
    await s.waitFor('start 80');
    s.resize(60, 15);
    await s.waitFor('resized 60x15');
    expect(s.lines()).toHaveLength(15);
  });

  it('runs an Ink app interactively (not in CI mode): frames redraw in place as keys arrive', async () => {
    process.env.CI ??= 'true';
    const app = [
      'import React from "react";',
      'import { render, Text, useInput, useApp } from "ink";',
      'const h = React.createElement;',
      'function App() {',
      '  const [n, setN] = React.useState(0);',
      '  const { exit } = useApp();',
      '  useInput((input, key) => { if (key.upArrow) setN(x => x + 1); if (input === "q") exit(); });',
      // the count shows once useInput's effects (raw mode on) have run: a key typed
      // before that meets a line-mode terminal (echoed, Enter turned into \n)
      '  const [live, setLive] = React.useState(false);',
      '  React.useEffect(() => setLive(true), []);',
      '  return h(Text, null, live ? "count: " + n : "starting");',
      '}',
      'render(h(App));',
    ].join("\n");
    const s = spawnPty(node, ['--input-type=module', '-e', app], { cols: 40, rows: 10 });
    await s.waitFor('count: 0');
    s.write(keys.up);
    await s.waitFor('count: 1');
    s.write(keys.up);
    await s.waitFor('count: 2');
    // redrawn in place: one line showing the count, not a growing log
    expect(s.lines().filter((l) => l.includes('count:'))).toEqual(['count: 2']);
    s.write('q');
    expect((await s.exited).exitCode).toBe(0);
    expect(s.title()).toBe('');
  });
});
