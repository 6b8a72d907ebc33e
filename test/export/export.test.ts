// Export: goldens per format on a sample fork grandchild, escaping of hostile
// logs in every format, and the never-overwrite file write the TUI's x uses.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ExportJob, exportSession, exportToFile, type ExportFormat } from '../../src/export/export.js';
import { buildTranscript } from '../../src/export/transcript.js';
import { loadRootSync, type RootIndex } from '../../src/storage/load-root.js';
import { cleanupTmp, copyDir, evs, hdr, REAL_DIR, SAMPLE_DIR, tmpDir, turnRows, writeLog } from '../support/fixtures.js';
import { HOSTILE_ID, HOSTILE_PROMPT, PWN, writeHostile } from './hostile-log.js';

afterAll(cleanupTmp);

const GOLDEN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden');
const FORMATS: ExportFormat[] = ['md', 'html', 'json'];
const lookup = (index: RootIndex) => index.store.list();

/** Compares with the golden file; UPDATE_GOLDEN=1 rewrites it (then review the diff). */
function golden(name: string, text: string): void {
  const file = path.join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    fs.mkdirSync(GOLDEN, { recursive: true });
    fs.writeFileSync(file, text);
  }
  expect(fs.existsSync(file), `${file} missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(text).toBe(fs.readFileSync(file, 'utf8'));
}

describe('export: a log with a seq gap', () => {
  it('times a turn from its first event to its last, found by seq (not by index)', () => {
    // the sample has a damaged line: seq 6 is lost, so from there a seq is one more than its index
    const index = loadRootSync(SAMPLE_DIR, { cache: false });
    const s = index.store.getAll('migrate-eslint-flat-config')[0];
    const time = new Map(s.events.map((e) => [e.seq, e.time]));
    const turns = buildTranscript(s, lookup(index)).blocks.filter((b) => b.kind === 'turn');
    expect(turns.length).toBeGreaterThan(1);
    for (const t of turns) expect(t.ms).toBe(time.get(t.lastSeq)! - time.get(t.seq)!);
    expect(turns[0].ms).toBe(1561);
  });
});

describe('export: read from disk in batches, or from the events in memory', () => {
  it('is the same text either way, for every real and sample session and format', () => {
    let fromDisk = 0;
    for (const dir of [REAL_DIR, SAMPLE_DIR, path.join(REAL_DIR, '..', 'real-sessions-v2v4')]) {
      const streamed = loadRootSync(dir, { cache: false });
      const loaded = loadRootSync(dir, { cache: false });
      const byFile = new Map(loaded.store.list().map((s) => [s.file, s]));
      for (const s of streamed.store.list()) {
        const t = byFile.get(s.file)!;
        t.ensureLoaded();
        const wasLoaded = s.isLoaded; // an empty log is loaded from the start
        if (!wasLoaded) fromDisk++;
        for (const f of FORMATS) expect(exportSession(s, lookup(streamed), f), `${s.file} ${f}`).toBe(exportSession(t, lookup(loaded), f));
        expect(s.isLoaded).toBe(wasLoaded); // streaming never keeps the events
      }
    }
    expect(fromDisk).toBeGreaterThan(20);
  });
});

describe('export goldens (sample corpus)', () => {
  const dir = copyDir(SAMPLE_DIR, tmpDir());
  const index = loadRootSync(dir);
  const gh = index.store.getAll('fix-flaky-retry-test.issue-writeup.gh')[0];
  const normalise = (s: string) => s.split(dir).join('<DIR>').split(JSON.stringify(dir).slice(1, -1)).join('<DIR>');

  for (const f of FORMATS)
    it(`${f}: a fork of a fork, whole log`, () => {
      golden(`issue-writeup-gh.${f}`, normalise(exportSession(gh, lookup(index), f)));
    });

  it('md up to a boundary: stops there, says so, and ends the turn at that boundary', () => {
    const root = index.store.getAll('fix-flaky-retry-test')[0];
    const at = root.facts.boundaries[0];
    const md = normalise(exportSession(root, lookup(index), 'md', at));
    golden('root-at-first-boundary.md', md);
    expect(md).toContain(`seq 0–${at} (${at + 1} events)`);
    expect(md).toContain('## Turn 1');
    expect(md).not.toContain('## Turn 2');
    expect(md).toContain(`(seq ${at}) · fork boundary`);
  });

  it('the lineage line, usage split and seed marker of a fork grandchild', () => {
    const t = buildTranscript(gh, lookup(index));
    expect(t.lineage).toEqual([
      { id: 'fix-flaky-retry-test', kind: 'root' },
      { id: 'fix-flaky-retry-test.issue-writeup', kind: 'fork', seedLength: 44 },
      { id: 'fix-flaky-retry-test.issue-writeup.gh', kind: 'fork', seedLength: 57 },
    ]);
    expect(t.usage.inherited && t.usage.own).toBeTruthy();
    const seedAt = t.blocks.findIndex((b) => b.kind === 'seed-end');
    expect(seedAt).toBeGreaterThan(0);
    expect(t.blocks[seedAt]).toEqual({ kind: 'seed-end', seq: 57, parent: 'fix-flaky-retry-test.issue-writeup' });
    const orphan = buildTranscript(index.store.getAll('bisect-ci-timeout')[0], lookup(index));
    expect(orphan.lineage[0].kind).toBe('missing');
  });

  it('every session of both corpora exports in every format', () => {
    for (const d of [dir, REAL_DIR]) {
      const idx = loadRootSync(d);
      for (const s of idx.store.list())
        for (const f of FORMATS) {
          const text = exportSession(s, lookup(idx), f);
          expect(text.length).toBeGreaterThan(0);
          expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
          if (f === 'json') expect(JSON.parse(text).id).toBe(s.id);
        }
    }
  });
});

describe('hostile content is escaped for each format', () => {
  const dir = tmpDir();
  writeHostile(dir);
  const index = loadRootSync(dir);
  const s = index.store.list()[0];
  const out = (f: ExportFormat) => exportSession(s, lookup(index), f);

  it('the changes: a hostile path and text stay text in every format (a fenced diff, an escaped <details>, JSON)', () => {
    const md = out('md');
    const changes = md.slice(md.indexOf('\n## Changes'));
    expect(changes).toContain('1 file written or edited (+8 −0)');
    expect(changes).toMatch(/### A src\/\\<script\\>/); // the path escaped in the heading
    expect(changes).toMatch(/(`{3,})diff\n--- \/dev\/null\n[\s\S]*\+\\?<script>[\s\S]*\n\1\n/); // the diff inside a fence no line closes
    const html = out('html');
    const section = html.slice(html.indexOf('<section class="changes">'));
    expect(section).toContain('<details class="file"><summary><b>A</b> src/&lt;script&gt;');
    expect(section).toContain('<span class="add">+&lt;img src=x onerror=');
    const json = JSON.parse(out('json'));
    expect(json.changes.files.map((f: { path: string; added: number }) => [f.path, f.added])).toEqual([[`src/${PWN}.ts`, 8]]);
  });

  it('no control characters reach any output (it may be printed on a terminal)', () => {
    for (const f of FORMATS) expect(out(f)).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
  });

  it('html: the only tags are the exporter’s own; no script, no handler, no external resource', () => {
    const html = out('html');
    const tags = new Set([...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1].toLowerCase()));
    const allowed = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'header', 'h1', 'h2', 'dl', 'dt', 'dd', 'main', 'section', 'div', 'span', 'b', 'pre', 'details', 'summary', 'p', 'h3', 'ul', 'li', 'code', 'figure', 'figcaption', 'svg', 'g', 'rect', 'line', 'text']);
    for (const t of tags) expect(allowed.has(t), `unexpected tag <${t}>`).toBe(true);
    expect(html).not.toMatch(/<script|<img|<i>|<textarea/i);
    // inside real tags (text has every < escaped): no inline handler, no resource to fetch
    expect(html).not.toMatch(/<[a-zA-Z][^>]*\s(on[a-z]+|src|href|action)\s*=/i);
    expect(html).not.toMatch(/url\(|@import|https?:\/\//i);
    expect(html).toContain("&lt;script&gt;document.title=&#39;PWNED&#39;");
    expect(html).toContain('Content-Security-Policy');
    expect(html).toMatch(/default-src 'none'/);
  });

  it('md: markup is either inside a fence that no content can close, or backslash-escaped', () => {
    const md = out('md');
    // walk the fences: outside them no unescaped "<" (no HTML) and no unescaped "[" (no links)
    let fence: string | null = null;
    const inside: string[] = [];
    let cur: string[] = [];
    for (const line of md.split('\n')) {
      if (fence === null) {
        const m = /^(`{3,})/.exec(line);
        if (m) {
          fence = m[1];
          cur = [];
          continue;
        }
        expect(line, line).not.toMatch(/(^|[^\\])[<[]/);
      } else if (line === fence) {
        inside.push(cur.join('\n'));
        fence = null;
      } else {
        expect(line.startsWith(fence) && /^`+$/.test(line), `fence closed early: ${line}`).toBe(false);
        cur.push(line);
      }
    }
    expect(fence).toBeNull();
    // the prompt is one fenced block, intact except controls made visible
    const prompt = inside.find((b) => b.startsWith('<script>'));
    expect(prompt?.split('\n').length).toBe(HOSTILE_PROMPT.split('\n').length);
    expect(prompt).toContain('```');
    expect(prompt).toContain('␛[2J');
    expect(md).toContain(`# Session evil\\<script\\>document.title='PWNED3'\\</script\\>\\&"id"`);
  });

  it('json: parses back to the same text, with <, > and & as \\u escapes', () => {
    const j = out('json');
    expect(j).not.toMatch(/[<>&]/);
    const t = JSON.parse(j);
    expect(t.id).toBe(HOSTILE_ID);
    expect(t.blocks[0].items.find((i: any) => i.kind === 'message' && i.role === 'user').text).toBe(HOSTILE_PROMPT);
    expect(t.blocks[0].items.find((i: any) => i.kind === 'tool').result.text).toContain(PWN);
  });
});

describe('exportToFile: a new file, never an overwrite', () => {
  it('names the file after the id (and the cut), adds -2, -3 when taken, leaves existing files alone', () => {
    const src = copyDir(SAMPLE_DIR, tmpDir());
    const index = loadRootSync(src);
    const s = index.store.getAll('fix-flaky-retry-test/callers')[0];
    const out = tmpDir();
    const a = exportToFile(s, lookup(index), out, { format: 'md' });
    expect(path.basename(a.file)).toBe('fix-flaky-retry-test~002Fcallers.md');
    expect(fs.readFileSync(a.file, 'utf8')).toBe(exportSession(s, lookup(index), 'md'));
    expect(a.bytes).toBe(fs.statSync(a.file).size);
    const b = exportToFile(s, lookup(index), out, { format: 'md' });
    expect(path.basename(b.file)).toBe('fix-flaky-retry-test~002Fcallers-2.md');
    expect(fs.readFileSync(a.file, 'utf8')).toBe(fs.readFileSync(b.file, 'utf8'));
    // a cut, html by default
    const root = index.store.getAll('fix-flaky-retry-test')[0];
    const at = root.facts.boundaries[0];
    const c = exportToFile(root, lookup(index), out, { upTo: at });
    expect(path.basename(c.file)).toBe(`fix-flaky-retry-test.at-${at}.html`);
    expect(fs.readFileSync(c.file, 'utf8')).toContain(`seq 0–${at} (`);
    // a planted file and a planted symlink at the next names are left alone and skipped
    fs.writeFileSync(path.join(out, 'fix-flaky-retry-test.json'), 'KEEP');
    const victim = path.join(out, 'victim.txt');
    fs.writeFileSync(victim, 'VICTIM');
    fs.symlinkSync(victim, path.join(out, 'fix-flaky-retry-test-2.json'));
    const d = exportToFile(root, lookup(index), out, { format: 'json' });
    expect(path.basename(d.file)).toBe('fix-flaky-retry-test-3.json');
    expect(fs.readFileSync(path.join(out, 'fix-flaky-retry-test.json'), 'utf8')).toBe('KEEP');
    expect(fs.readFileSync(victim, 'utf8')).toBe('VICTIM');
    // no temp files left behind
    expect(fs.readdirSync(out).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('an unwritable folder throws and leaves nothing', () => {
    const src = copyDir(SAMPLE_DIR, tmpDir());
    const index = loadRootSync(src);
    const s = index.store.getAll('bump-vitest')[0];
    expect(() => exportToFile(s, lookup(index), path.join(src, 'no', 'such', 'dir'))).toThrow(/ENOENT/);
  });
});

describe('ExportJob: an export in steps (the app exports a large log in its slices)', () => {
  const bigLog = () => {
    const dir = tmpDir();
    const rows = Array.from({ length: 300 }, (_, i) => turnRows(i + 1, { kind: 'completed' }, `prompt ${i + 1} ${'z'.repeat(5000)}`)).flat();
    writeLog(path.join(dir, 'big.jsonl'), hdr('big'), evs(...rows));
    return { dir, out: tmpDir() };
  };

  for (const upTo of [undefined, 700]) {
    it(`paused as often as it can${upTo === undefined ? '' : ' (up to a seq: its usage read first)'}, it writes the file exportToFile writes`, () => {
      const { dir, out } = bigLog();
      const index = loadRootSync(dir);
      const s = index.store.get('big')!;
      const job = new ExportJob(s, index.store.list(), out, { format: 'md', upTo });
      let steps = 0;
      const progress: number[] = [];
      while (!job.run(() => true)) {
        steps++;
        progress.push(job.progress());
      }
      expect(steps).toBeGreaterThan(2);
      for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]);
      expect(job.progress()).toBe(1);
      const fresh = loadRootSync(dir);
      expect(fs.readFileSync(job.result!.file, 'utf8')).toBe(exportSession(fresh.store.get('big')!, fresh.store.list(), 'md', upTo));
      expect(path.basename(job.result!.file)).toBe(upTo === undefined ? 'big.md' : `big.at-${upTo}.md`);
      expect(fs.readdirSync(out)).toEqual([path.basename(job.result!.file)]);
      expect(s.isLoaded).toBe(false);
    });
  }

  it('closed before its end: no export file and no temp file', () => {
    const { dir, out } = bigLog();
    const index = loadRootSync(dir);
    const job = new ExportJob(index.store.get('big')!, index.store.list(), out, { format: 'md' });
    expect(job.run(() => true)).toBe(false);
    expect(fs.readdirSync(out).length).toBe(1); // the temp file, while it runs
    job.close();
    expect(fs.readdirSync(out)).toEqual([]);
  });
});
