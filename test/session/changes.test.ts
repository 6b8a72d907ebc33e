// Changes derived from a log: every tool shape, failed and unanswered calls,
// replace_all, creation, a file edited in two turns, shell exits, unknown
// effects, a fork's inherited edits; a property that the derived diffs,
// applied in order, rebuild the texts the harness recorded; and goldens for
// every real log with write or edit calls.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyPatch, structuredPatch } from 'diff';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { callEffect, hunkCounts, shellExit } from '../../src/session/call-effect.js';
import { changesJson, changesOf, sessionChanges, type Changes } from '../../src/session/changes.js';
import type { SessionEvent } from '../../src/session/events.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, copyDir, hdr, REPO, SAMPLE_DIR, tmpDir, writeLog } from '../support/fixtures.js';
import { PROPERTY_TIMEOUT, runs } from '../support/property.js';

afterAll(cleanupTmp);

const GOLDEN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden', 'changes');

/** The harness's hunks of a change (diff.ts computeHunkDiffs: jsdiff's structuredPatch, three lines of context). */
function harnessHunks(file: string, before: string, after: string) {
  const patch = structuredPatch('', '', before, after, undefined, undefined, { context: 3 });
  return patch.hunks.map((h) => {
    const o: string[] = [];
    const n: string[] = [];
    for (const line of h.lines) {
      if (line.startsWith('\\')) continue;
      if (line[0] === '-') o.push(line.slice(1));
      else if (line[0] === '+') n.push(line.slice(1));
      else {
        o.push(line.slice(1));
        n.push(line.slice(1));
      }
    }
    return { path: file, oldText: o.length > 0 ? o.join('\n') : null, newText: n.join('\n') };
  });
}

/** A v3-shaped log built call by call: each call a turn's step with its result (meta and error as given). */
class LogBuilder {
  events: SessionEvent[] = [];
  private turn = 0;
  private n = 0;
  private push(type: string, data: unknown) {
    this.events.push({ type, seq: this.events.length, time: 1_700_000_000_000 + this.events.length, data });
  }
  startTurn(): this {
    this.turn++;
    this.push('turn/start', { turn: this.turn });
    return this;
  }
  call(name: string, args: unknown, result?: { text?: string; isError?: boolean; meta?: unknown } | null): string {
    const id = `call-${++this.n}`;
    this.push('tool/call', { turn: this.turn, step: 1, callId: id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
    if (result !== null) {
      const r = result ?? {};
      this.push('tool/result', {
        turn: this.turn,
        step: 1,
        message: { role: 'user', content: [{ type: 'tool-result', toolCallId: id, content: [{ type: 'text', text: r.text ?? 'ok' }], isError: r.isError ?? false }], source: { kind: 'tool', callId: id } },
        ...(r.meta !== undefined ? { meta: r.meta } : {}),
      });
    }
    return id;
  }
  endTurn(): this {
    this.push('turn/end', { turn: this.turn, reason: { kind: 'completed' } });
    return this;
  }
  changes(opts: { cwd?: string; inheritedBefore?: number; diffsKept?: number } = {}): Changes {
    return changesOf([this.events], opts);
  }
}

describe('what one call did (callEffect)', () => {
  it('edit: meta.diffs (what was applied) wins over the arguments', () => {
    const fx = callEffect('edit', JSON.stringify({ file_path: 'a.ts', old_string: 'x', new_string: 'y' }), { isError: false, text: '', meta: { diffs: [{ path: 'a.ts', oldText: 'p\nx\nq', newText: 'p\ny\nq' }] } });
    expect(fx).toMatchObject({ kind: 'edit', path: 'a.ts', basis: 'applied', hunks: [{ oldText: 'p\nx\nq', newText: 'p\ny\nq' }] });
  });
  it('malformed meta falls back to the arguments, as the harness does', () => {
    const fx = callEffect('edit', JSON.stringify({ file_path: 'a.ts', old_string: 'x', new_string: 'y' }), { isError: false, text: '', meta: { diffs: [{ path: 1 }] } });
    expect(fx).toMatchObject({ kind: 'edit', basis: 'arguments', hunks: [{ oldText: 'x', newText: 'y' }] });
  });
  it('an absolute path under the cwd is shown relative; outside it as written', () => {
    expect(callEffect('write', { file_path: '/home/u/p/src/a.ts', content: '' }, undefined, '/home/u/p')).toMatchObject({ path: 'src/a.ts' });
    expect(callEffect('write', { file_path: '/etc/hosts', content: '' }, undefined, '/home/u/p')).toMatchObject({ path: '/etc/hosts' });
  });
  it('str_replace_editor: create, str_replace and insert edit; view does nothing; another command is unknown', () => {
    expect(callEffect('str_replace_editor', { command: 'create', path: 'n.md', file_text: 'a\nb\n' }, { isError: false, text: '' })).toMatchObject({ kind: 'edit', created: true, content: 'a\nb\n' });
    expect(callEffect('str_replace_editor', { command: 'str_replace', path: 'n.md', old_str: 'a', new_str: 'c' }, { isError: false, text: '' })).toMatchObject({ kind: 'edit', replace: { old: 'a', new: 'c', all: false } });
    expect(callEffect('str_replace_editor', { command: 'insert', path: 'n.md', insert_line: 1, new_str: 'z' }, { isError: false, text: '' })).toMatchObject({ kind: 'edit', insert: { line: 1, text: 'z' } });
    expect(callEffect('str_replace_editor', { command: 'view', path: 'n.md' }, { isError: false, text: '' })).toEqual({ kind: 'none' });
    expect(callEffect('str_replace_editor', { command: 'undo_edit', path: 'n.md' }, { isError: false, text: '' })).toEqual({ kind: 'unknown', path: 'n.md' });
  });
  it('a tool that only reads changes nothing; an unknown tool that names a path is an unknown effect', () => {
    expect(callEffect('read', { file_path: 'a.ts' }, { isError: false, text: '' })).toEqual({ kind: 'none' });
    expect(callEffect('write_remote', { path: 'deploy/x' }, { isError: false, text: '' })).toEqual({ kind: 'unknown', path: 'deploy/x' });
    expect(callEffect('todo_write', { todos: [] }, { isError: false, text: '' })).toEqual({ kind: 'none' });
  });
  it('shell exits: the trailing marker, else 0; kills, timeouts and background moves have no code', () => {
    expect(shellExit('out\n[exit code: 2]')).toEqual({ exitCode: 2 });
    expect(shellExit('out\n')).toEqual({ exitCode: 0 });
    expect(shellExit('[exit code: 1] in the middle\nmore')).toEqual({ exitCode: 0 });
    expect(shellExit('x\n[killed by signal: SIGKILL]')).toEqual({ end: 'killed by SIGKILL' });
    // a marker that is no signal's name is no marker: the log's text never reaches the exit shown
    expect(shellExit('x\n[killed by signal: \x1b[2J]')).toEqual({ exitCode: 0 });
    expect(shellExit('x\n[timed out after 120000ms]')).toEqual({ end: 'timed out' });
    expect(shellExit('x\n[still running after 30000ms; moved to background job j1]\nThe command keeps running')).toEqual({ end: 'moved to the background' });
  });
  it('a hunk counts only its changed lines, context between two changes included', () => {
    expect(hunkCounts({ oldText: 'a\nb\nc\nX\nd\ne\nY\nf\ng\nh', newText: 'a\nb\nc\nX2\nd\ne\nY2\nf\ng\nh' })).toEqual({ added: 2, removed: 2 });
    expect(hunkCounts({ oldText: null, newText: 'one\ntwo\n' })).toEqual({ added: 2, removed: 0 });
  });
});

describe('changes of a log', () => {
  it('covers create, an edit with line numbers, replace_all, a failed edit, an unanswered one, a file edited in two turns', () => {
    const b = new LogBuilder();
    b.startTurn();
    const text = 'line 1\nfoo\nline 3\nfoo\nline 5\n';
    b.call('write', { file_path: 'src/a.ts', content: text }, { meta: { operation: 'create', diffs: harnessHunks('src/a.ts', '', text) } });
    b.call('edit', { file_path: 'src/a.ts', old_string: 'line 3', new_string: 'LINE 3' }, { meta: { diffs: harnessHunks('src/a.ts', text, text.replace('line 3', 'LINE 3')) } });
    b.call('edit', { file_path: 'src/a.ts', old_string: 'nope', new_string: 'x' }, { isError: true, text: 'old_string not found' });
    b.call('bash', { command: 'npm test' }, { text: 'FAIL\n[exit code: 1]' });
    b.endTurn().startTurn();
    const t2 = text.replace('line 3', 'LINE 3');
    b.call('edit', { file_path: 'src/a.ts', old_string: 'foo', new_string: 'bar', replace_all: true }, { meta: { diffs: harnessHunks('src/a.ts', t2, t2.split('foo').join('bar')) } });
    b.call('edit', { file_path: 'src/b.ts', old_string: 'k', new_string: 'v' }, null);
    b.endTurn();
    const c = b.changes();
    const a = c.files.find((f) => f.path === 'src/a.ts')!;
    expect(a.created).toBe(true);
    expect(a.edits.map((e) => [e.turn, e.tool, e.failed, e.created])).toEqual([
      [1, 'write', false, true],
      [1, 'edit', false, false],
      [1, 'edit', true, false],
      [2, 'edit', false, false],
    ]);
    // the write: 5 lines; LINE 3: one; replace_all: two places; the failed edit is not counted
    expect([a.added, a.removed]).toEqual([5 + 1 + 2, 1 + 2]);
    expect(a.edits[0].diff).toContain('--- /dev/null');
    expect(a.edits[1].diff).toContain('@@ -1,5 +1,5 @@');
    expect(a.edits[2].diff).toContain('failed: not applied');
    // the shell command forgot the text: the replace_all after it is shown as applied, without line numbers
    expect(a.edits[3].diff).toContain('@@ -?');
    expect(c.commands).toEqual([{ seq: 7, turn: 1, tool: 'bash', command: 'npm test', exitCode: 1, failed: false, pending: false, inherited: false }]);
    const bFile = c.files.find((f) => f.path === 'src/b.ts')!;
    expect(bFile.edits[0].pending).toBe(true);
    expect([bFile.added, bFile.removed]).toEqual([0, 0]);
  });

  it('replays edits on a known text with line numbers when the log has no meta (rc.8)', () => {
    const b = new LogBuilder().startTurn();
    b.call('write', { file_path: 'x.txt', content: 'a\nb\nc\nd\ne\nf\ng\nh\n' });
    b.call('edit', { file_path: 'x.txt', old_string: 'g', new_string: 'G' });
    b.call('str_replace_editor', { command: 'insert', path: 'x.txt', insert_line: 0, new_str: 'top' });
    const f = b.changes().files[0];
    expect(f.edits[1].diff).toContain('@@ -4,5 +4,5 @@');
    expect(f.edits[2].diff).toContain('@@ -1,3 +1,4 @@');
    expect(f.text).toBe('top\na\nb\nc\nd\ne\nf\nG\nh\n');
  });

  it('a replay that disagrees with what was applied is dropped: the applied hunks are shown', () => {
    const b = new LogBuilder().startTurn();
    b.call('write', { file_path: 'x.txt', content: 'one\ntwo\n' }, { meta: { operation: 'create', diffs: harnessHunks('x.txt', '', 'one\ntwo\n') } });
    // the file changed outside the log: the harness applied to a different text
    b.call('edit', { file_path: 'x.txt', old_string: 'two', new_string: '2' }, { meta: { diffs: [{ path: 'x.txt', oldText: 'zero\ntwo', newText: 'zero\n2' }] } });
    const f = b.changes().files[0];
    expect(f.edits[1].diff).toContain('@@ -?,2 +?,2 @@\n zero\n-two\n+2\n');
    expect(f.text).toBeUndefined();
  });

  it('past the bound on diff text, an edit keeps its counts and says its diff was not kept', () => {
    const b = new LogBuilder().startTurn();
    for (let i = 0; i < 5; i++) b.call('edit', { file_path: `f${i}`, old_string: `a${i}`, new_string: `b${i}\nc${i}` });
    const all = b.changes();
    const kept = all.files[0].edits[0].diff.length + all.files[1].edits[0].diff.length;
    const c = b.changes({ diffsKept: kept });
    expect(c.files.map((f) => f.edits[0].diff.includes('diff not kept'))).toEqual([false, false, true, true, true]);
    expect(c.files.map((f) => [f.added, f.removed])).toEqual(all.files.map((f) => [f.added, f.removed]));
  });

  it('calls run_code made are read from their dispatch events', () => {
    const events: SessionEvent[] = [
      { type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } },
      { type: 'tool/ptc-dispatch', seq: 1, time: 2, data: { rootCallId: 'r', parentCallId: 'r', subCallId: 'r:ptc:1', name: 'write', arguments: { file_path: 'gen.txt', content: 'hi\n' }, isError: false, content: [{ type: 'text', text: 'ok' }] } },
    ];
    const c = changesOf([events]);
    expect(c.files.map((f) => [f.path, f.added, f.edits[0].callId])).toEqual([['gen.txt', 1, 'r:ptc:1']]);
  });

  it('edits before the cut are inherited and never counted as the branch own', () => {
    const b = new LogBuilder().startTurn();
    b.call('write', { file_path: 'a', content: 'x\n' });
    b.endTurn();
    const cut = b.events.length;
    b.startTurn();
    b.call('write', { file_path: 'b', content: 'y\n' });
    const c = b.changes({ inheritedBefore: cut });
    expect(c.files.map((f) => [f.path, f.edits[0].inherited, f.added])).toEqual([
      ['a', true, 0],
      ['b', false, 1],
    ]);
  });
});

describe('property: the derived diffs rebuild the texts the harness recorded', () => {
  const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'eps', '', '  x', '}');
  const lines = fc.array(word, { minLength: 1, maxLength: 30 });
  it(
    'applying each edit in order to the text it starts from gives the text after it',
    () => {
      fc.assert(
        fc.property(lines, fc.array(fc.tuple(fc.nat(), fc.nat(), lines, fc.boolean()), { maxLength: 8 }), (start, ops) => {
          const b = new LogBuilder().startTurn();
          let text = start.join('\n') + '\n';
          b.call('write', { file_path: 'f.txt', content: text }, { meta: { operation: 'create', diffs: harnessHunks('f.txt', '', text) } });
          const texts = [text];
          for (const [at, len, nu, all] of ops) {
            const ls = text.split('\n');
            const from = at % ls.length;
            const old = ls.slice(from, from + 1 + (len % 3)).join('\n');
            if (old.length === 0) continue;
            const count = text.split(old).length - 1;
            const replacement = nu.join('\n');
            if (replacement === old || (count > 1 && !all)) continue;
            const next = all ? text.split(old).join(replacement) : text.replace(old, () => replacement);
            b.call('edit', { file_path: 'f.txt', old_string: old, new_string: replacement, replace_all: all }, { meta: { diffs: harnessHunks('f.txt', text, next) } });
            text = next;
            texts.push(text);
          }
          const f = b.changes().files[0];
          let cur = '';
          f.edits.forEach((e, i) => {
            expect(e.diff).not.toContain('@@ -?');
            const out = applyPatch(cur, e.diff);
            expect(out).toBe(texts[i]);
            cur = out as string;
          });
          expect(f.text).toBe(text);
          // each edit's counts are its recorded hunks' counts
          const recorded = texts.slice(1).map((t, i) => harnessHunks('f.txt', texts[i], t).reduce((n, h) => n + hunkCounts(h).added, 0));
          expect(f.edits.slice(1).map((e) => e.added)).toEqual(recorded);
        }),
        { numRuns: runs(150) },
      );
    },
    PROPERTY_TIMEOUT,
  );
});

/** Every real log with a write, edit or str_replace_editor call (the repository's fixtures and samples). */
function realLogsWithEdits(): string[] {
  const roots = [path.join(REPO, 'test', 'fixtures'), SAMPLE_DIR];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl') && /"type":"tool\/call".*"name":"(edit|write|str_replace_editor)"/.test(fs.readFileSync(p, 'utf8'))) out.push(p);
    }
  };
  for (const r of roots) walk(r);
  return out.sort();
}

describe('goldens: the changes of every real log with write or edit calls', () => {
  const logs = realLogsWithEdits();
  it('finds the v0 rc.8-layout samples and the v2/v3 workspace', () => {
    const rel = logs.map((f) => path.relative(REPO, f));
    expect(rel).toContain('sample-sessions/fix-flaky-retry-test.jsonl');
    expect(rel.some((f) => f.endsWith('preview-showcase/session.v3.jsonl'))).toBe(true);
  });
  for (const file of logs) {
    const rel = path.relative(REPO, file);
    it(rel, () => {
      // the log alone in a root: a folder's older generation is then its live session
      const dir = tmpDir();
      fs.copyFileSync(file, path.join(dir, path.basename(file)));
      const index = loadRootSync(dir);
      const s = index.store.list()[0];
      expect(s, rel).toBeDefined();
      const json = JSON.stringify(changesJson(sessionChanges(s)), null, 2) + '\n';
      const name = rel.replace(/[/\\]/g, '__').replace(/\.jsonl$/, '.json');
      const golden = path.join(GOLDEN, name);
      if (process.env.UPDATE_GOLDEN === '1') {
        fs.mkdirSync(GOLDEN, { recursive: true });
        fs.writeFileSync(golden, json);
      }
      expect(fs.existsSync(golden), `${golden} missing: run with UPDATE_GOLDEN=1`).toBe(true);
      expect(json).toBe(fs.readFileSync(golden, 'utf8'));
    });
  }
});

describe('a fork child in the sample corpus', () => {
  it('sets the parent edits apart as inherited', () => {
    const dir = copyDir(SAMPLE_DIR, tmpDir());
    const index = loadRootSync(dir);
    const child = index.store.getAll('fix-flaky-retry-test.spy-random')[0];
    const c = sessionChanges(child);
    expect(c.files.length).toBeGreaterThan(0);
    expect(c.commands.some((x) => x.inherited)).toBe(true);
    for (const f of c.files) for (const e of f.edits) expect(e.inherited).toBe(e.seq < child.seedLength!);
  });
  it('writes no session file', () => {
    const dir = tmpDir();
    writeLog(path.join(dir, 's.jsonl'), hdr('s'), []);
    const before = fs.readdirSync(dir);
    sessionChanges(loadRootSync(dir).store.list()[0]);
    expect(fs.readdirSync(dir)).toEqual(before);
  });
});
