// Every real harness log (both eras) in the Turns view: expand all, walk to the
// end, open the model history and the detail pane, fork at the last boundary —
// nothing throws, every frame fits, and the fork key gives a boundary or the
// store's typed error.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { mountApp } from '../../support/app-harness.js';
import { REAL_DIR } from '../../support/fixtures.js';

const REAL = REAL_DIR;
const W = 100;
const H = 24;

describe('real harness logs in the Turns view', () => {
  const index = loadRootSync(REAL);
  const sessions = index ? index.store.list() : [];

  it('loads 33 of the 34 files as sessions', () => {
    expect(sessions).toHaveLength(33);
  });

  it("a subagent's fork is told apart (◈) and its rc.8 header facts are shown", async () => {
    const child = sessions.find((s) => s.file!.includes('subagent-fork-in-process__session.1'))!;
    const m = mountApp({ index: index!, view: 'turns', selection: child.file!, size: { columns: 200, rows: 24 } });
    try {
      expect(m.frame()).toMatch(/subagent fork of \S+, seedLength \d+/);
      expect(m.frame()).toContain('origin subagent · depth 1');
      await m.press('\t', '\t', '\t'); // Lineage, Problems, Sessions
      expect(m.frame()).toContain(`◈ ${child.id.slice(0, 8)}`);
    } finally {
      m.unmount();
    }
  });

  it.each(sessions.map((s) => [path.basename(s.file!), s] as const))('%s', async (_name, session) => {
    const m = mountApp({ index: index!, view: 'turns', selection: session.file!, size: { columns: W, rows: H } });
    try {
      expect(m.frame()).toContain(session.id.slice(0, 20));
      for (const k of ['e', 'G', 'd', 't', 't', 'g', 'E', 'G']) {
        await m.press(k);
        m.frame(); // fits the terminal (checked by the harness)
      }
      await m.press('f');
      const d = m.state().dialog;
      expect(d).toBeDefined();
      if (d!.kind === 'confirm') {
        expect(d!.source).toBe(session);
        if (d!.cut !== undefined) expect(session.facts.boundaries).toContain(d!.cut);
        else expect(session.length).toBe(0);
      } else {
        expect(d!.error.code).toMatch(/^(OPEN_TURN|INVALID_BOUNDARY)$/);
        expect(d!.error.message).toContain(session.id);
      }
    } finally {
      m.unmount();
    }
  });
});
