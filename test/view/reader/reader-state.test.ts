// The reader reducer on a 2,000-line diff, JSON, wide and hostile text.
import fc from 'fast-check';
import { runs } from '../../support/property.js';
import { describe, expect, it } from 'vitest';
import { columnBreaks, eventReaderContent, initialReaderState, readerDoc, readerReducer, readerWindow, rowOf, type ReaderAction, type ReaderState } from '../../../src/view/reader/reader-state.js';
import { displayWidth } from '../../../src/view/text/sanitize.js';

/** A unified diff of `n` lines in all: headers, hunks every 50 lines, adds, deletes, context. */
function bigDiff(n: number): string {
  const out = ['diff --git a/src/app.ts b/src/app.ts', 'index 1234567..89abcde 100644', '--- a/src/app.ts', '+++ b/src/app.ts'];
  let i = 0;
  while (out.length < n) {
    if (i % 50 === 0) out.push(`@@ -${i + 1},50 +${i + 1},50 @@ function block${i}() {`);
    else if (i % 7 === 0) out.push(`+  const added${i} = compute(${i}); // needle`);
    else if (i % 11 === 0) out.push(`-  const removed${i} = legacy(${i});`);
    else out.push(`   context line ${i}\twith a tab`);
    i++;
  }
  return out.join('\n') + '\n';
}

const run = (s: ReaderState, ...as: ReaderAction[]) => as.reduce(readerReducer, s);

describe('readerDoc', () => {
  it('a 2,000-line diff: every line kept, kinds for +, -, @@ and headers', () => {
    const doc = readerDoc(bigDiff(2000), 'diff');
    expect(doc.format).toBe('diff');
    expect(doc.lines).toHaveLength(2000);
    expect(doc.lines.slice(0, 5).map((l) => l.kind)).toEqual(['meta', 'meta', 'meta', 'meta', 'hunk']);
    expect(doc.lines.find((l) => l.text.startsWith('+  const added'))!.kind).toBe('add');
    expect(doc.lines.find((l) => l.text.startsWith('-  const removed'))!.kind).toBe('del');
    expect(doc.lines.find((l) => l.text.includes('context line'))!.kind).toBe('context');
    expect(doc.lines.every((l) => !l.text.includes('\t'))).toBe(true);
  });
  it('JSON is pretty-printed; text stays text; control characters are made visible', () => {
    const j = readerDoc('{"command":"ls -la","nested":{"a":[1,2]}}');
    expect(j.format).toBe('json');
    expect(j.lines.map((l) => l.text)).toEqual(['{', '  "command": "ls -la",', '  "nested": {', '    "a": [', '      1,', '      2', '    ]', '  }', '}']);
    const t = readerDoc('plain\n- a list item\n+ not a diff\x1b[31mred\x07');
    expect(t.format).toBe('text');
    expect(t.lines.map((l) => l.text).join('\n')).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(readerDoc('{not json').format).toBe('text');
  });
});

describe('readerReducer', () => {
  const doc = readerDoc(bigDiff(2000));
  it('scrolls by line and page, clamps at top and bottom', () => {
    const s = initialReaderState(doc, 80, 20);
    expect(readerWindow(s).rows).toHaveLength(20);
    expect(run(s, { type: 'scroll', by: 3 }).top).toBe(3);
    expect(run(s, { type: 'scroll', by: -3 }).top).toBe(0);
    expect(run(s, { type: 'page', by: 1 }).top).toBe(19);
    expect(run(s, { type: 'page', by: 1 }, { type: 'page', by: -1 }).top).toBe(0);
    const end = run(s, { type: 'bottom' });
    expect(end.top).toBe(end.rows.length - 20);
    expect(readerWindow(end).rows.at(-1)!.line).toBe(1999);
    expect(readerWindow(end).position).toMatch(/of 2000 lines · 100%/);
    expect(run(end, { type: 'scroll', by: 5 }).top).toBe(end.top);
    expect(run(end, { type: 'top' }).top).toBe(0);
  });
  it('wrap on: every row fits the width and the rows join back to the line; wrap off: one row per line, scroll right', () => {
    const long = readerDoc('x'.repeat(50) + '\n' + '漢字'.repeat(30) + '\nshort');
    const s = initialReaderState(long, 20, 10);
    const w = readerWindow(s);
    for (const r of w.rows) expect(displayWidth(r.text)).toBeLessThanOrEqual(20);
    expect(w.rows.filter((r) => r.line === 0).map((r) => r.text).join('')).toBe('x'.repeat(50));
    expect(w.rows.filter((r) => r.line === 1).map((r) => r.text).join('')).toBe('漢字'.repeat(30));
    expect(w.rows.filter((r) => r.continuation)).toHaveLength(2 + 5);
    const off = run(s, { type: 'toggleWrap' });
    expect(readerWindow(off).rows.map((r) => r.line)).toEqual([0, 1, 2]);
    expect(readerWindow(off).rows[1].text).toBe('漢字'.repeat(5));
    const right = run(off, { type: 'right', by: 3 });
    expect(readerWindow(right).rows[0].text).toBe('x'.repeat(20));
    expect(readerWindow(right).rows[1].text.startsWith('漢')).toBe(true); // column 3 is the right half of 字: the row starts at the next whole glyph
    expect(run(right, { type: 'left', by: 10 }).left).toBe(0);
  });
  it('a visible current match stays visible through resize and wrap toggles', () => {
    const d = readerDoc(Array.from({ length: 200 }, (_, i) => (i === 150 ? 'z'.repeat(70) + ' needle' : `line ${i} ` + 'y'.repeat(60))).join('\n'));
    let s = run(initialReaderState(d, 80, 10), { type: 'search', query: 'needle' });
    for (const a of [{ type: 'resize', width: 20, height: 5 }, { type: 'toggleWrap' }, { type: 'resize', width: 30, height: 3 }, { type: 'toggleWrap' }] as ReaderAction[]) {
      s = readerReducer(s, a);
      expect(readerWindow(s).rows.some((r) => r.highlights.some((h) => h.current)), a.type).toBe(true);
    }
  });
  it('toggling wrap and resizing keep the same line at the top', () => {
    const s = run(initialReaderState(readerDoc(Array.from({ length: 300 }, (_, i) => `line ${i} ` + 'y'.repeat(i % 90)).join('\n')), 30, 10), { type: 'scroll', by: 400 });
    const lineAtTop = s.rows[s.top].line;
    const off = run(s, { type: 'toggleWrap' });
    expect(off.rows[off.top].line).toBe(lineAtTop);
    const resized = run(s, { type: 'resize', width: 100, height: 40 });
    expect(resized.rows[resized.top].line).toBe(lineAtTop);
  });
  it('/ search with n/N: match positions, wrap-around, the current match always visible', () => {
    let s = initialReaderState(doc, 60, 15);
    s = run(s, { type: 'searchStart' }, { type: 'searchInput', text: 'NEEDLE' }, { type: 'searchCommit' });
    expect(s.prompt).toBeNull();
    const total = doc.lines.filter((l) => l.text.includes('needle')).length;
    expect(s.search!.matches).toHaveLength(total);
    expect(total).toBeGreaterThan(200);
    const visible = (st: ReaderState) => {
      const m = st.search!.matches[st.search!.current];
      const w = readerWindow(st);
      const row = w.rows.find((r) => r.line === m.line && r.highlights.some((h) => h.current));
      expect(row, `match ${st.search!.current} on line ${m.line} not shown`).toBeDefined();
      expect(row!.text.slice(row!.highlights.find((h) => h.current)!.start, row!.highlights.find((h) => h.current)!.end).toLowerCase()).toBe('needle');
    };
    visible(s);
    for (let i = 0; i < 30; i++) {
      s = readerReducer(s, { type: 'next' });
      visible(s);
    }
    expect(s.search!.current).toBe(30);
    s = run(s, { type: 'bottom' }, { type: 'next' }, { type: 'prev' });
    visible(s);
    // wrap-around from the last to the first
    s = { ...s, search: { ...s.search!, current: total - 1 } };
    s = readerReducer(s, { type: 'next' });
    expect(s.search!.current).toBe(0);
    visible(s);
    s = readerReducer(s, { type: 'prev' });
    expect(s.search!.current).toBe(total - 1);
    expect(readerWindow(s).searchStatus).toBe(`match ${total}/${total} "NEEDLE"`);
    // a search after scrolling starts from where the reader is
    const mid = run(initialReaderState(doc, 60, 15), { type: 'scroll', by: 1000 }, { type: 'search', query: 'needle' });
    expect(mid.search!.matches[mid.search!.current].line).toBeGreaterThanOrEqual(1000);
    expect(readerWindow(run(mid, { type: 'search', query: 'zzz-nowhere' })).searchStatus).toBe('no match for "zzz-nowhere"');
    expect(run(mid, { type: 'searchStart' }, { type: 'searchCancel' }).search).toEqual(mid.search);
  });
  it('search without wrap scrolls right to a match beyond the width', () => {
    const d = readerDoc(['a'.repeat(300) + 'TARGET', 'b'].join('\n'));
    const s = run(initialReaderState(d, 40, 5, false), { type: 'search', query: 'target' });
    const row = readerWindow(s).rows[0];
    expect(row.highlights).toEqual([{ start: expect.any(Number), end: expect.any(Number), current: true }]);
    expect(row.text.slice(row.highlights[0].start, row.highlights[0].end)).toBe('TARGET');
  });
  it('a wide character in a one-column window without wrap is shown, and a search finds it (a property counterexample)', () => {
    const d = readerDoc(bigDiff(300) + '漢字'.repeat(100));
    const s = run(initialReaderState(d, 50, 12), { type: 'toggleWrap' }, { type: 'resize', width: 1, height: 1 }, { type: 'search', query: '字' });
    expect(readerWindow(s).rows.some((r) => r.highlights.some((h) => h.current))).toBe(true);
  });
  it('property: any action sequence keeps top in range and the window within height and width', () => {
    const d = readerDoc(bigDiff(300) + '漢字'.repeat(100));
    const action = fc.oneof(
      fc.record({ type: fc.constant('scroll' as const), by: fc.integer({ min: -50, max: 50 }) }),
      fc.record({ type: fc.constant('page' as const), by: fc.integer({ min: -3, max: 3 }) }),
      fc.constantFrom<ReaderAction>({ type: 'top' }, { type: 'bottom' }, { type: 'toggleWrap' }, { type: 'next' }, { type: 'prev' }, { type: 'left' }, { type: 'right' }, { type: 'search', query: 'added' }, { type: 'search', query: '字' }),
      fc.record({ type: fc.constant('resize' as const), width: fc.integer({ min: 1, max: 200 }), height: fc.integer({ min: 1, max: 60 }) }),
    );
    fc.assert(
      fc.property(fc.array(action, { maxLength: 25 }), (as) => {
        const s = run(initialReaderState(d, 50, 12), ...as);
        expect(s.top).toBeGreaterThanOrEqual(0);
        expect(s.top).toBeLessThanOrEqual(Math.max(0, s.rows.length - s.height));
        const w = readerWindow(s);
        expect(w.rows.length).toBeLessThanOrEqual(s.height);
        for (const r of w.rows) expect(displayWidth(r.text)).toBeLessThanOrEqual(Math.max(s.width, 2));
        const last = as.at(-1)?.type;
        if (s.search && s.search.current >= 0 && (last === 'search' || last === 'next' || last === 'prev')) expect(w.rows.some((r) => r.highlights.some((h) => h.current))).toBe(true);
      }),
      { numRuns: runs(300) },
    );
  });
  it('rowOf and columnBreaks agree', () => {
    const s = initialReaderState(readerDoc('a'.repeat(95) + '\nb'), 10, 5);
    expect(columnBreaks('a'.repeat(95), 10)).toHaveLength(10);
    expect(rowOf(s, 0, 94)).toBe(9);
    expect(rowOf(s, 1, 0)).toBe(10);
  });
});

describe('eventReaderContent', () => {
  it('tool calls show their arguments, results their text, messages reasoning and text (both eras)', () => {
    expect(eventReaderContent({ type: 'tool/call', seq: 3, time: 0, data: { name: 'bash', arguments: '{"command":"ls"}' } })).toEqual({ title: 'tool/call · seq 3 · bash', content: '{"command":"ls"}' });
    expect(eventReaderContent({ type: 'tool/result', seq: 4, time: 0, data: { message: { content: [{ type: 'tool-result', toolCallId: 'k', content: [{ type: 'text', text: 'out' }] }] } } }).content).toBe('out');
    expect(eventReaderContent({ type: 'assistant/message', seq: 5, time: 0, data: { message: { content: [{ type: 'reasoning', text: 'think' }, { type: 'text', text: 'say' }] } } }).content).toBe('── reasoning ──\nthink\n── text ──\nsay');
    expect(eventReaderContent({ type: 'todo/write', seq: 6, time: 0, data: { todos: [] } }).content).toBe('{\n  "todos": []\n}');
  });
});
