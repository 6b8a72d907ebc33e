// A copied resume command runs nothing else when pasted.
// The id and cwd come from a log; a control character in pasted text is a
// keystroke (ESC[201~ ends a bracketed paste, Ctrl-C drops the line, CR runs
// what follows). The test pastes what `y` put on the clipboard (OSC 52) and
// what `fork` printed into a real interactive bash in a pseudo-terminal with
// bracketed paste on, presses Enter, and checks that exactly the stub `dsh`
// ran, with the session's id and in its cwd, and that no payload ran.
import { execFileSync, execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isPrintable, resumeCommand, shellQuote } from '../../src/session/resume-command.js';
import { killAllPtys, settled, spawnPty, type PtySession } from '../e2e/pty-harness.js';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/dsh-browse.mjs');
const hasBash = (() => {
  try {
    execFileSync('bash', ['-c', 'true']);
    return true;
  } catch {
    return false;
  }
})();

let base: string;
let pwn: string;
const payloads = (pwnFile: string): string[] => [
  `proj\x1b[201~\x03 touch ${pwnFile}\r`, // end the paste, drop the line, run the rest
  `a\nb\n touch ${pwnFile}\n`,
  `$(touch ${pwnFile})`,
  `\`touch ${pwnFile}\``,
  `'; touch ${pwnFile}; echo '`,
  `\u009b201~\u0003touch ${pwnFile}\u000d`, // C1 CSI
  `x\x7f\x08\x08\x08\x15touch ${pwnFile}\r`, // DEL, backspaces, Ctrl-U
  `\u202etxt.exe\u2066abc\u2069\u200f`, // bidi
  `!! !-1 \\n \\x41 $'q'`,
  `\x1b]52;c;dG91Y2ggL3RtcC9QV04=\x07 \x1b[2J\x1b[?2004l`, // OSC 52, clear screen, bracketed paste off
  `\ttab\x16\x0a\x0d`, // tab, Ctrl-V (quoted insert), LF, CR
  `snow ☃ \u2028 ß 👨\u200d👩\u200d👧 \u00a0nbsp`,
];

describe('shellQuote / resumeCommand (pure)', () => {
  it('the copied text is printable for every payload, as cwd and as id', () => {
    for (const p of [...payloads('/tmp/PWN'), '\ud800lone', '\u0085nel', 'plain']) {
      for (const rc of [resumeCommand({ id: 'ok', cwd: `/w/${p}` }), resumeCommand({ id: p, cwd: '/w' })]) {
        expect(isPrintable(rc.shell)).toBe(true);
        expect(rc.shell).not.toMatch(/[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u);
        expect(rc.refusal).toBeUndefined();
      }
    }
    expect(shellQuote('abc-1')).toBe('abc-1');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('a\x1bb')).toBe(`$'a\\x1bb'`);
    expect(shellQuote('\u202e!\\\'')).toBe(`$'\\xe2\\x80\\xae\\x21\\\\\\''`);
  });

  it('a NUL in the id or cwd: no command at all, and the reason', () => {
    expect(resumeCommand({ id: 'a\0b', cwd: '/w' }).refusal).toMatch(/its id holds a NUL character/);
    expect(resumeCommand({ id: 'a', cwd: '/w\0' }).refusal).toMatch(/its cwd holds a NUL character/);
  });

  it.skipIf(!hasBash)('bash rebuilds the exact bytes of any string from its quoted word (property)', () => {
    const strings = fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(...payloads('/tmp/PWN'))), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(strings, (xs) => {
        const words = xs.map((x) => x.replace(/\0/g, '')); // NUL: refused above
        const script = words.map((w) => `printf '%s\\0' ${shellQuote(w)}`).join('\n');
        expect(isPrintable(script.replace(/\n/g, ' '))).toBe(true);
        const out = execFileSync('bash', ['-c', script]);
        const expected = Buffer.concat(words.map((w) => Buffer.concat([Buffer.from(w, 'utf8'), Buffer.alloc(1)])));
        expect(out.equals(expected)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });
});

// ---- pasted into bash in a pty ------------------------------------------------

let root: string;
let stubDir: string;
let record: string;
const t0 = 1795990000000;
const line = (o: unknown) => JSON.stringify(o) + '\n';
const sessions: Array<{ id: string; cwd: string; file: string }> = [];

import { cwdFolder } from '../../src/storage/layout.js';
import { encodeSegment } from '../../src/storage/id-encoding.js';

beforeAll(() => {
  if (!fs.existsSync(BIN)) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-paste-'));
  pwn = path.join(base, 'PWN');
  root = path.join(base, 'root');
  stubDir = path.join(base, 'bin');
  record = path.join(base, 'record.jsonl');
  fs.mkdirSync(root);
  fs.mkdirSync(stubDir);
  const safe = path.join(base, 'safe dir');
  fs.mkdirSync(safe);
  payloads(pwn).forEach((p, i) => {
    const cwd = path.join(base, 'cwds', `${i}-${p}`); // a real directory of that name (a '/' inside makes subdirectories)
    fs.mkdirSync(cwd, { recursive: true });
    sessions.push({ id: `cwd-${i}`, cwd, file: '' }, { id: `id-${i}-${p}`, cwd: safe, file: '' });
  });
  sessions.forEach((s, k) => {
    // the RFC-era harness layout (<root>/cwd-<hash>/<encoded id>.jsonl): where dsh --resume finds it, so y and R offer it
    const bucket = path.join(root, cwdFolder(s.cwd));
    fs.mkdirSync(bucket, { recursive: true });
    s.file = path.join(bucket, `${encodeSegment(s.id)}.jsonl`);
    const t = t0 + k * 60_000;
    fs.writeFileSync(
      s.file,
      line({ type: 'session', version: 0, id: s.id, createdAt: t, cwd: s.cwd }) +
        line({ type: 'turn/start', seq: 0, time: t, data: { turn: 1, trigger: 'user' } }) +
        line({ type: 'user/message', seq: 1, time: t, data: { content: [{ type: 'text', text: `hello ${k}` }], source: 'user' } }) +
        line({ type: 'turn/end', seq: 2, time: t, data: { turn: 1, reason: { kind: 'completed' } } }),
    );
  });
  // the stub harness records its argv and working directory, one JSON line per run
  fs.writeFileSync(
    path.join(stubDir, 'dsh'),
    `#!${process.execPath}\nrequire('fs').appendFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd() }) + '\\n');\n`,
    { mode: 0o755 },
  );
});
afterEach(() => killAllPtys());
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const runs = (): Array<{ argv: string[]; cwd: string }> => (fs.existsSync(record) ? fs.readFileSync(record, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

async function until<T>(what: string, f: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** An interactive bash with bracketed paste on; pastes `text` as a terminal would, then presses Enter. */
async function pasteAndRun(bash: PtySession, text: string): Promise<{ argv: string[]; cwd: string }> {
  const before = runs().length;
  bash.write(`\x1b[200~${text}\x1b[201~`);
  await settled(bash, 100);
  expect(fs.existsSync(pwn), `pasting ${JSON.stringify(text)} ran a command`).toBe(false);
  bash.write('\r');
  const all = await until(`the pasted command to run dsh (pasted: ${JSON.stringify(text)})`, () => (runs().length > before ? runs() : undefined));
  expect(all.length).toBe(before + 1);
  return all[before];
}

async function startBash(): Promise<PtySession> {
  const bash = spawnPty('bash', ['--norc', '--noprofile', '-i'], { cols: 200, rows: 40, cwd: base, env: { PATH: `${stubDir}:/usr/bin:/bin`, HOME: base, PS1: 'READY$ ', HISTFILE: '/dev/null', INPUTRC: '/dev/null' } });
  await bash.waitFor('READY$');
  bash.write(`bind 'set enable-bracketed-paste on'\r`);
  await settled(bash, 100);
  return bash;
}

describe.skipIf(!hasBash)('pasting into bash in a pseudo-terminal (bracketed paste on)', () => {
  it('y: every copied command runs only dsh --resume=<id> in the session cwd, for hostile cwds and ids', async () => {
    const tui = spawnPty(process.execPath, [BIN, root], { cols: 120, rows: 40, env: { PATH: '/usr/bin:/bin' } });
    await tui.waitFor('hello', 15_000);
    await settled(tui);
    const clips = new Set<string>();
    const osc = () => [...tui.rawOutput().matchAll(/\x1b\]52;c;([A-Za-z0-9+/=]*)\x07/g)].map((m) => Buffer.from(m[1], 'base64').toString('utf8'));
    for (let k = 0; k < sessions.length; k++) {
      const n = osc().length;
      tui.write('y');
      const got = await until('the OSC 52 copy', () => (osc().length > n ? osc() : undefined));
      clips.add(got[got.length - 1]);
      tui.write('j');
      await settled(tui, 50);
    }
    tui.write('q');
    await tui.exited;
    expect(clips.size).toBe(sessions.length);
    const bash = await startBash();
    const seen: Array<{ argv: string[]; cwd: string }> = [];
    for (const clip of [...clips].sort()) {
      seen.push(await pasteAndRun(bash, clip));
      expect(fs.existsSync(pwn)).toBe(false);
    }
    for (const clip of clips) expect(isPrintable(clip)).toBe(true);
    const key = (r: { argv: string[]; cwd: string }) => JSON.stringify([r.argv, r.cwd]);
    expect(seen.map(key).sort()).toEqual(sessions.map((s) => key({ argv: [`--resume=${s.id}`], cwd: s.cwd })).sort());
    expect(fs.existsSync(pwn)).toBe(false);
  }, 120_000);

  it('fork: the printed "continue it in the harness" command runs only dsh, in the hostile cwd', async () => {
    const bash = await startBash();
    const cwdSessions = sessions.filter((s) => s.id.startsWith('cwd-'));
    for (const s of cwdSessions) {
      const out = execFileSync(process.execPath, [BIN, 'fork', '--dir', root, '--session', s.file], { encoding: 'utf8' });
      const m = /^continue it in the harness: (.*)$/m.exec(out);
      expect(m).not.toBeNull();
      const child = /-> (\S+) \(format/.exec(out)![1];
      expect(await pasteAndRun(bash, m![1])).toEqual({ argv: [`--resume=${child}`], cwd: s.cwd });
      expect(isPrintable(m![1])).toBe(true);
      expect(fs.existsSync(pwn)).toBe(false);
    }
  }, 120_000);
});
