// The HTML export opened in a real headless Chromium (the system package; the
// setup installs it when missing and we are root, else the tests are skipped
// with the reason). Checks that it renders offline, its timelines and charts
// as SVG (in the DOM, and in a screenshot's pixels), and that a log holding
// <script> (and an onerror handler, in text and in tool names the timeline
// draws) runs nothing — with a control page proving the same check does see
// a script that runs.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportSession } from '../../src/export/export.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { ensureChromium, dumpDom, screenshot } from '../support/chromium.js';
import { decodePng, PNG_SIGNATURE } from '../support/png.js';
import { cleanupTmp, copyDir, SAMPLE_DIR, tmpDir } from '../support/fixtures.js';
import { writeHostile } from '../export/hostile-log.js';

afterAll(cleanupTmp);

let chromium: ReturnType<typeof ensureChromium> = { skip: 'setup did not run' };
beforeAll(() => {
  chromium = ensureChromium();
  if ('skip' in chromium) console.warn(`[html-chromium] SKIPPED: ${chromium.skip}`);
  else if (chromium.installedMs !== undefined) console.warn(`[html-chromium] installed chromium in ${chromium.installedMs} ms`);
}, 900_000);

function bin(ctx: { skip: (note?: string) => void }): string {
  if ('skip' in chromium) {
    ctx.skip(chromium.skip);
    return '';
  }
  return chromium.bin;
}

describe('HTML export in headless Chromium', () => {
  it('control: the DOM check sees a script that does run', (ctx) => {
    const b = bin(ctx);
    const dir = tmpDir();
    const page = path.join(dir, 'control.html');
    fs.writeFileSync(page, `<!doctype html><html><head><title>orig</title></head><body><p>x</p><script>document.title='PWNED';document.documentElement.setAttribute('data-pwned','1')</script></body></html>`);
    const dom = dumpDom(b, page, path.join(dir, 'profile'));
    expect(dom).toContain('data-pwned="1"');
    expect(dom).toContain('<title>PWNED</title>');
  });

  it('a log containing <script> and an onerror handler runs nothing; the text shows as text', (ctx) => {
    const b = bin(ctx);
    const dir = tmpDir();
    writeHostile(dir);
    const index = loadRootSync(dir);
    const s = index.store.list()[0];
    const page = path.join(dir, 'hostile.html');
    fs.writeFileSync(page, exportSession(s, index.store.list(), 'html'));
    const dom = dumpDom(b, page, path.join(dir, 'profile'));
    expect(dom).not.toMatch(/\sdata-pwned="/); // the attribute a script would have set
    expect(dom).not.toContain('PWNED</title>');
    expect(dom).not.toContain('<title>PWNED2');
    expect(dom).toMatch(/<title>dsh session evil&lt;script&gt;document.title='PWNED3'&lt;\/script&gt;&amp;"id"<\/title>/);
    expect(dom).not.toMatch(/<script|<img/i); // parsed: no such elements exist
    // the prompt is rendered as text inside its <pre>
    expect(dom).toContain('&lt;script&gt;document.title=\'PWNED\'');
    expect(dom).toContain('&lt;img src=x onerror=');
    // the changes: the hostile path and text are text in their <details> block
    expect(dom).toContain('<section class="changes">');
    expect(dom).toMatch(/<details class="file"><summary><b>A<\/b> src\/&lt;script&gt;document\.title='PWNED'/);
    // the timeline draws the hostile tool's name: its <title> and label are text, the <svg> whole after it
    const svg = dom.slice(dom.indexOf('<svg class="tl"'), dom.indexOf('</svg>'));
    expect(svg).toContain(`<title>sh"&gt;&lt;/text&gt;&lt;/title&gt;&lt;/svg&gt;&lt;img src=x onerror="document.documentElement.setAttribute('data-pwned','4')"&gt;&lt;script&gt;document.title='PWNED4'`);
    expect(svg).toMatch(/<text x="12" y="\d+">sh"&gt;&lt;\/text&gt;/);
    expect(svg).toContain('<text class="d" x="900"'); // the row's duration: the name ended nothing
    expect(dom).not.toContain('<title>PWNED4');
  });

  it("a session's timelines and per-turn charts render as SVG, and a screenshot shows them drawn", (ctx) => {
    const b = bin(ctx);
    const dir = copyDir(SAMPLE_DIR, tmpDir());
    const index = loadRootSync(dir);
    const s = index.store.getAll('fix-flaky-retry-test')[0];
    const out = tmpDir();
    const page = path.join(out, 'timelines.html');
    fs.writeFileSync(page, exportSession(s, index.store.list(), 'html'));
    const dom = dumpDom(b, page, path.join(out, 'profile'));
    // a timeline per turn, each an <svg> with a bar per span, placed in its turn's section
    const turns = dom.split('<section class="turn"').slice(1);
    expect(turns.length).toBe(s.facts.turns);
    for (const t of turns) {
      const svg = /<svg class="tl"[^>]*>([\s\S]*?)<\/svg>/.exec(t.slice(0, t.indexOf('</section>')));
      expect(svg).not.toBeNull();
      expect((svg![1].match(/<rect class="(m|t|s)[ "]/g) ?? []).length).toBeGreaterThan(5);
      expect(svg![1]).toMatch(/<title>model [^<]+ · seq \d+<\/title>/);
    }
    // the per-turn charts: a bar a turn
    const series = dom.slice(dom.indexOf('<section class="series">'));
    expect((series.match(/<title>turn \d+: \d+ tokens<\/title>/g) ?? []).length).toBe(s.facts.turns);
    expect(dom).not.toMatch(/<script/i);

    const png = path.join(out, 'timelines.png');
    screenshot(b, page, png, path.join(out, 'profile'), 1200, 2000);
    const bytes = fs.readFileSync(png);
    expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(bytes.length).toBeGreaterThan(50_000);
    // the pixels hold the bars: the model's blue and the tools' orange from the page's <style> (a blank or unstyled page has neither)
    const img = decodePng(bytes);
    expect([img.width, img.height]).toEqual([1200, 2000]);
    const near = (c: [number, number, number], [r, g, b_]: [number, number, number]) => Math.abs(c[0] - r) + Math.abs(c[1] - g) + Math.abs(c[2] - b_) <= 12;
    let model = 0;
    let tool = 0;
    const colours = new Set<number>();
    for (let y = 0; y < img.height; y += 2)
      for (let x = 0; x < img.width; x += 2) {
        const c = img.rgb(x, y);
        colours.add((c[0] << 16) | (c[1] << 8) | c[2]);
        if (near(c, [0x3f, 0x6f, 0xd1])) model++;
        else if (near(c, [0xe3, 0x9a, 0x3b])) tool++;
      }
    expect(model).toBeGreaterThan(200);
    expect(tool).toBeGreaterThan(50);
    expect(colours.size).toBeGreaterThan(20);
  });

  it("a real session's changes render: each file in a <details> block with its diffs, the commands listed", (ctx) => {
    const b = bin(ctx);
    const dir = copyDir(SAMPLE_DIR, tmpDir());
    const index = loadRootSync(dir);
    const s = index.store.getAll('fix-flaky-retry-test')[0];
    const page = path.join(tmpDir(), 'root.html');
    fs.writeFileSync(page, exportSession(s, index.store.list(), 'html'));
    const dom = dumpDom(b, page, path.join(path.dirname(page), 'profile'));
    const changes = dom.slice(dom.indexOf('<section class="changes">'));
    expect((changes.match(/<details class="file">/g) ?? []).length).toBe(2);
    expect(changes).toContain('<b>M</b> src/lib/retry-queue.ts <span class="add">+1</span> <span class="del">−1</span>');
    expect(changes).toContain('<span class="add">+const jitter = (this.opts.random ?? Math.random)() * base;</span>');
    expect(changes).toContain('<code>npm test</code> (exit 0)');
    expect(dom).not.toMatch(/<script/i);
  });

  it('a real sample fork renders offline: turns, folded tool calls, end reasons, lineage', (ctx) => {
    const b = bin(ctx);
    const dir = copyDir(SAMPLE_DIR, tmpDir());
    const index = loadRootSync(dir);
    const s = index.store.getAll('fix-flaky-retry-test.spy-random')[0];
    const page = path.join(tmpDir(), 'spy.html');
    fs.writeFileSync(page, exportSession(s, index.store.list(), 'html'));
    const dom = dumpDom(b, page, path.join(path.dirname(page), 'profile'));
    expect(dom).toContain('<title>dsh session fix-flaky-retry-test.spy-random</title>');
    const sections = dom.match(/<section class="turn"/g) ?? [];
    expect(sections.length).toBe(s.facts.turns);
    expect((dom.match(/<details class="tool/g) ?? []).length).toBeGreaterThan(0);
    expect(dom).toContain('fix-flaky-retry-test → <b>fix-flaky-retry-test.spy-random</b>');
    expect(dom).toContain('end: <b>aborted</b>');
    expect(dom).toContain('end of the seed inherited from fix-flaky-retry-test');
  });
});
