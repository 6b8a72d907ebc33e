// Both versions of the first seed event where a tampered fork child differs
// from its parent, as a unified diff of their pretty JSON: the reader colours
// it (+ child, - parent). Pure.
import { safeStringify } from '../../session/json-safe.js';
import type { SeedDivergence } from '../../session/problems.js';

/** Longest inputs diffed line by line (LCS is quadratic); longer ones are shown whole, one after the other. */
const MAX_DIFF_LINES = 2000;

/** Line diff (LCS): ' ' kept, '-' only in a, '+' only in b. */
export function diffLines(a: readonly string[], b: readonly string[]): string[] {
  const n = a.length;
  const m = b.length;
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i * (m + 1) + j] = a[i] === b[j] ? lcs[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(' ' + a[i]);
      i++;
      j++;
    } else if (i < n && (j === m || lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1])) out.push('-' + a[i++]); // deletions first, as diff -u
    else out.push('+' + b[j++]);
  }
  return out;
}

/** The divergence as text for the reader: a unified diff of parent (-) and child (+) at the first differing seq. */
export function seedDiffText(d: SeedDivergence, childLabel = 'child'): string {
  const head = [`--- parent ${d.parentKey} · seq ${d.seq}`, `+++ ${childLabel} · seq ${d.seq}`];
  const a = d.parentEvent ? safeStringify(d.parentEvent, 2).split('\n') : [];
  const b = d.childEvent ? safeStringify(d.childEvent, 2).split('\n') : [];
  const note = !d.parentEvent ? ['(the parent has no event here: its log ends before the seed does)'] : !d.childEvent ? ['(the child has no event here: it is shorter than its seedLength)'] : [];
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) return [...head, `@@ -1,${a.length} +1,${b.length} @@`, ...a.map((l) => '-' + l), ...b.map((l) => '+' + l)].join('\n');
  return [...head, `@@ -1,${a.length} +1,${b.length} @@`, ...diffLines(a, b), ...note].join('\n');
}
