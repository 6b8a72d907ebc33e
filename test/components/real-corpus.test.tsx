// Every real harness log (both eras) in the Turns view: expand all, walk to the
// end, open the model history and the detail pane, fork at the last boundary —
// nothing throws, every frame fits, and the fork key gives a boundary or the
// store's typed error.
import fs from 'node:fs';
import path from 'node:path';
import React from 'react';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { TurnsView } from '../../components/turns-view.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { displayWidth } from '../../src/view/sanitize.js';

const REAL = path.resolve(__dirname, '../../../shared/dsh-real-sessions');
const wait = (ms = 25) => new Promise((r) => setTimeout(r, ms));
const W = 100;
const H = 24;

describe.skipIf(!fs.existsSync(REAL))('real harness logs in the Turns view', () => {
  const index = fs.existsSync(REAL) ? loadRootSync(REAL) : undefined;
  const sessions = index ? index.store.list() : [];

  it('loads 33 of the 34 files as sessions', () => {
    expect(sessions).toHaveLength(33);
  });

  it.each(sessions.map((s) => [path.basename(s.file!), s] as const))('%s', async (_name, session) => {
    const requests: Array<{ boundary: number } | { error: { code: string; message: string } }> = [];
    const r = render(<TurnsView session={session} store={index!.store} width={W} height={H} focused version={0} onForkRequest={(q) => requests.push(q)} />);
    try {
      await wait(60);
      const check = () => {
        const lines = (r.lastFrame() ?? '').split('\n');
        expect(lines.length).toBeLessThanOrEqual(H);
        for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(W);
        return lines.join('\n');
      };
      expect(check()).toContain(session.id.slice(0, 20));
      for (const k of ['e', 'G', 'd', 't', 't', 'g', 'E', 'G']) {
        r.stdin.write(k);
        await wait();
        check();
      }
      if (session.length > 0) {
        r.stdin.write('f');
        await wait();
        expect(requests).toHaveLength(1);
        const q = requests[0];
        if ('boundary' in q) expect(session.facts.boundaries).toContain(q.boundary);
        else {
          expect(q.error.code).toMatch(/^(OPEN_TURN|INVALID_BOUNDARY)$/);
          expect(q.error.message).toContain(session.id);
        }
      }
    } finally {
      r.unmount();
    }
  });
});
