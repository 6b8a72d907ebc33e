// Mounts the real App (ink-testing-library) with a controller the test can
// read. Ink runs React in legacy mode, so a key written to stdin is applied and
// drawn before write() returns: no waiting needed between keys and frames.
import { render } from 'ink-testing-library';
import React from 'react';
import { expect } from 'vitest';
import { AppController } from '../../components/app-controller.js';
import { App } from '../../components/app.js';
import type { RootIndex } from '../../src/storage/load-root.js';
import type { ViewName } from '../../src/view/keymap.js';
import { displayWidth } from '../../src/view/sanitize.js';

export const KEY = { esc: '\x1b', enter: '\r', tab: '\t', shiftTab: '\x1b[Z', down: '\x1b[B', up: '\x1b[A', right: '\x1b[C', left: '\x1b[D', backspace: '\x7f' };

export interface MountOptions {
  index: RootIndex;
  view?: ViewName;
  /** a session key (file path) */
  selection?: string;
  size?: { columns: number; rows: number };
  now?: number;
}

export function mountApp(o: MountOptions) {
  const size = o.size ?? { columns: 100, rows: 24 };
  let n = 0;
  const controller = new AppController(o.index, { size, initialView: o.view, selection: o.selection, now: o.now ?? 1795990000000, newId: () => `child-${++n}` });
  const r = render(<App index={o.index} controller={controller} size={size} color={false} />);
  const frame = (): string => {
    const f = r.lastFrame() ?? '';
    const lines = f.split('\n');
    expect(lines.length).toBeLessThanOrEqual(size.rows - 1);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(size.columns);
    return f;
  };
  const lines = () => frame().split('\n');
  /** resolves once the app has drawn the controller's latest snapshot (generous deadline) */
  const settle = async (): Promise<void> => {
    // Ink holds a lone ESC for one turn of the event loop (it may start a sequence)
    await new Promise((res) => setImmediate(res));
    await new Promise((res) => setImmediate(res));
    const end = Date.now() + 10_000;
    while (controller.rendered !== controller.getSnapshot()) {
      if (Date.now() > end) throw new Error('the app did not draw its latest state within 10 s');
      await new Promise((res) => setTimeout(res, 5));
    }
  };
  return {
    r,
    controller,
    state: () => controller.getSnapshot().state,
    /** writes each key (one write each), then waits until the screen shows the latest state */
    press: async (...keys: string[]) => {
      for (const k of keys) r.stdin.write(k);
      await settle();
    },
    settle,
    frame,
    lines,
    /** the Turns view's selected row (marked ›) */
    turnsSelected: () => lines().find((l) => l.startsWith('›')) ?? '',
    /** the Sessions/Lineage selected row (marked ▶) */
    selectedLine: () => lines().find((l) => l.startsWith('▶')) ?? '',
    unmount: () => {
      r.unmount();
      controller.close();
    },
  };
}
