// The Problems view on fixtures written to disk: a tampered child, a seq gap, a
// garbage line and a garbage file, at 80 and 200 columns.
import fs from 'node:fs';
import path from 'node:path';
import React from 'react';
import { render } from 'ink-testing-library';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ProblemsView, problemCells } from '../../../components/problems/problems-view.js';
import { auditSessions } from '../../../src/session/audit.js';
import { problemRows, type ProblemRow } from '../../../src/session/problems.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { displayWidth } from '../../../src/view/text/sanitize.js';
import { cleanupTmp, evs, hdr, logText, tmpDir, turnRows, writeLog } from '../../support/fixtures.js';

afterAll(cleanupTmp);
let unmounts: Array<() => void> = [];
afterEach(() => {
  unmounts.forEach((u) => u());
  unmounts = [];
});

function fixture(): { root: string; rows: ProblemRow[] } {
  const root = tmpDir('dsh-problems-view-');
  const parent = evs(...turnRows(1), ...turnRows(2));
  writeLog(path.join(root, 'alpha.jsonl'), hdr('alpha'), parent);
  const seed = parent.slice(0, 7).map((e) => structuredClone(e));
  seed[1].data.content[0].text = 'edited \x1b[31mprompt';
  writeLog(path.join(root, 'tampered-child.jsonl'), hdr('tampered', { parentSession: 'alpha', seedLength: 7 }), seed);
  writeLog(path.join(root, 'gap.jsonl'), hdr('gap'), [...evs(...turnRows(1)), ...evs(...turnRows(2)).map((e, i) => ({ ...e, seq: 9 + i }))]);
  const text = logText(hdr('garbled'), evs(...turnRows(1))).split('\n');
  text.splice(3, 0, '{"type": garbage');
  fs.writeFileSync(path.join(root, 'garbled.jsonl'), text.join('\n'));
  fs.writeFileSync(path.join(root, 'junk.jsonl'), 'no header here\n');
  const index = loadRootSync(root);
  const refused = [...index.files.values()].flatMap((f) => f.refused ?? []);
  return { root: index.root, rows: problemRows({ sessions: index.store.list(), refused, findings: auditSessions(index.store.list(), refused) }) };
}

describe('ProblemsView', () => {
  const { root, rows } = fixture();
  for (const width of [80, 200]) {
    it(`${width} columns: each problem with code, file:line or seq, message; worst first; nothing past the edge`, () => {
      const r = render(<ProblemsView rows={rows} selected={0} top={0} root={root} width={width} height={12} />);
      unmounts.push(r.unmount);
      const lines = (r.lastFrame() ?? '').split('\n');
      expect(lines[0]).toMatch(new RegExp(`^${rows.length} problems · \\d+ errors`));
      expect(lines[1]).toMatch(/^▶ E SEED_MISMATCH +tampered-child\.jsonl #1 /);
      expect(lines.some((l) => /SEQ_GAP +gap\.jsonl:9 #9 /.test(l))).toBe(true);
      expect(lines.some((l) => /MALFORMED_LINE +garbled\.jsonl:4 /.test(l))).toBe(true);
      expect(lines.some((l) => /junk\.jsonl/.test(l))).toBe(true);
      for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(width);
      expect(lines.join('\n')).not.toMatch(/\x1b/);
    });
  }
  it('the message gets the room at 200 columns', () => {
    const seed = rows.find((r) => r.code === 'SEED_MISMATCH')!;
    const c = problemCells(seed, 200, root);
    expect(c.message.length).toBeGreaterThan(100);
    expect(c.where.trimEnd()).toBe('tampered-child.jsonl #1');
    // the message column starts at the same place on every line
    const starts = rows.map((r) => { const x = problemCells(r, 120, root); return displayWidth(x.code) + displayWidth(x.where); });
    expect(new Set(starts).size).toBe(1);
  });
  it('an empty list says so', () => {
    const r = render(<ProblemsView rows={[]} selected={-1} top={0} width={80} height={5} />);
    unmounts.push(r.unmount);
    expect(r.lastFrame()).toMatch(/^no problems/);
  });
});
