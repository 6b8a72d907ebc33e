import React from 'react';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ReaderView, readerRowSegments } from '../../../components/reader/reader-view.js';
import { ThemeProvider } from '../../../components/app/theme.js';
import { initialReaderState, readerDoc, readerReducer, readerWindow, type ReaderAction, type ReaderState } from '../../../src/view/reader/reader-state.js';
import { displayWidth } from '../../../src/view/text/sanitize.js';

let unmounts: Array<() => void> = [];
afterEach(() => {
  unmounts.forEach((u) => u());
  unmounts = [];
});
const show = (state: ReaderState, width: number, color = false) => {
  const r = render(
    <ThemeProvider color={color}>
      <ReaderView state={state} width={width} />
    </ThemeProvider>,
  );
  unmounts.push(r.unmount);
  return r.lastFrame() ?? '';
};
const diff = ['diff --git a/x b/x', '--- a/x', '+++ b/x', ...Array.from({ length: 2000 }, (_, i) => (i % 40 === 0 ? `@@ -${i},40 +${i},40 @@` : i % 3 === 0 ? `+added ${i}` : i % 5 === 0 ? `-removed ${i}` : ` same ${i}`))].join('\n');
const run = (s: ReaderState, ...as: ReaderAction[]) => as.reduce(readerReducer, s);

describe('ReaderView', () => {
  it('renders exactly the window: title, height rows, status; no line wider than the width', () => {
    const s = initialReaderState(readerDoc(diff, 'tool/result · seq 12'), 60, 10);
    const lines = show(s, 60).split('\n');
    expect(lines).toHaveLength(12);
    expect(lines[0]).toBe('tool/result · seq 12');
    expect(lines[1]).toBe('diff --git a/x b/x');
    expect(lines[11]).toMatch(/^1–10 of 2003 lines · 0% · wrap$/);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(60);
  });
  it('colours +, - and @@ lines', () => {
    const s = run(initialReaderState(readerDoc(diff), 60, 8), { type: 'scroll', by: 3 });
    const frame = show(s, 60, true);
    expect(frame.split('\n').slice(1, 7)).toEqual(['@@ -0,40 +0,40 @@', ' same 1', ' same 2', '+added 3', ' same 4', '-removed 5']);
    const rows = readerWindow(s).rows;
    expect(readerRowSegments(rows[0])).toEqual([{ text: '@@ -0,40 +0,40 @@', color: 'cyan' }]);
    expect(readerRowSegments(rows[3])).toEqual([{ text: '+added 3', color: 'green' }]);
    expect(readerRowSegments(rows[5])).toEqual([{ text: '-removed 5', color: 'red' }]);
    expect(readerRowSegments(readerWindow(run(initialReaderState(readerDoc(diff), 60, 3))).rows[0])).toEqual([{ text: 'diff --git a/x b/x', bold: true }]);
  });
  it('shows the search prompt while typing, then the match status; matches are marked', () => {
    let s = run(initialReaderState(readerDoc(diff), 60, 8), { type: 'searchStart' }, { type: 'searchInput', text: 'removed 1' });
    expect(show(s, 60).split('\n').at(-1)).toBe('/removed 1');
    s = run(s, { type: 'searchCommit' }, { type: 'next' });
    const frame = show(s, 60, true);
    expect(frame.split('\n').at(-1)).toMatch(/match 2\/\d+ "removed 1"/);
    const row = readerWindow(s).rows.find((r) => r.highlights.some((h) => h.current))!;
    expect(row.text).toMatch(/^-removed 1\d*/);
    expect(readerRowSegments(row)).toEqual([{ text: '-', color: 'red' }, { text: 'removed 1', inverse: true, color: 'yellow', bold: true }, ...(row.text.length > 10 ? [{ text: row.text.slice(10), color: 'red' }] : [])]);
  });
  it('pads a short document with ~ rows so the surface keeps its height', () => {
    const lines = show(initialReaderState(readerDoc('one\ntwo'), 40, 5), 40).split('\n');
    expect(lines).toEqual(['text', 'one', 'two', '~', '~', '~', '1–2 of 2 lines · 100% · wrap']);
  });
});
