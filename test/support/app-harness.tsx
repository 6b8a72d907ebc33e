// Mounts the real App (ink-testing-library) with a controller the test can
// read. Ink runs React in legacy mode, so a key written to stdin is applied and
// drawn before write() returns: no waiting needed between keys and frames.
// What happens later by itself (the background audit, the filter's event
// search, a store change from another writer) is waited for as an event:
// idle() (the controller has nothing left to do) or until() (the screen shows
// it), each with a generous deadline; never a fixed sleep.
import type { ProjectScope } from '../../src/storage/project-scope.js';
import { render } from 'ink-testing-library';
import React from 'react';
import { expect } from 'vitest';
import { AppController } from '../../components/app/app-controller.js';
import { App } from '../../components/app/app.js';
import type { RootIndex } from '../../src/storage/load-root.js';
import type { ContentIndex } from '../../src/storage/content-index.js';
import type { ViewName } from '../../src/view/app/surface.js';
import { displayWidth } from '../../src/view/text/sanitize.js';

export const KEY = { esc: '\x1b', enter: '\r', tab: '\t', shiftTab: '\x1b[Z', down: '\x1b[B', up: '\x1b[A', right: '\x1b[C', left: '\x1b[D', backspace: '\x7f' };

/** How long a test waits for something the app owes it before it fails (a deadline, not a delay). */
export const DEADLINE_MS = 10_000;

export interface MountOptions {
  index: RootIndex;
  view?: ViewName;
  /** a session key (file path) */
  selection?: string;
  /** the terminal's size (default 100x24), fixed */
  size?: { columns: number; rows: number };
  /** the App follows the (fake) terminal's size and its 'resize' events instead of a fixed size */
  followTerminal?: boolean;
  now?: number;
  /** where `x` writes exports */
  exportDir?: string;
  /** the current project's scope, and whether the list starts scoped to it (p toggles) */
  scope?: ProjectScope;
  startScoped?: boolean;
  /** the controller's model steps before a background frame (ms at once) */
  syncStepMs?: number;
  /** the content index (the browser's, kept between runs) */
  contentIndex?: ContentIndex;
}

export function mountApp(o: MountOptions) {
  const size = o.size ?? { columns: 100, rows: 24 };
  let n = 0;
  const controller = new AppController(o.index, { size, initialView: o.view, selection: o.selection, now: o.now ?? 1795990000000, newId: () => `child-${++n}`, exportDir: o.exportDir, scope: o.scope, startScoped: o.startScoped, syncStepMs: o.syncStepMs, contentIndex: o.contentIndex && (() => o.contentIndex!) });
  const r = render(<App index={o.index} controller={controller} size={o.followTerminal ? undefined : size} color={false} />);
  const frame = (): string => {
    const f = r.lastFrame() ?? '';
    const lines = f.split('\n');
    const { columns, rows } = o.followTerminal ? controller.getSnapshot().state.size : size;
    expect(lines.length).toBeLessThanOrEqual(rows - 1);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(columns);
    return f;
  };
  const lines = () => frame().split('\n');
  /** resolves once the app has drawn the controller's latest snapshot (generous deadline) */
  const settle = async (): Promise<void> => {
    // Ink holds a lone ESC for one turn of the event loop (it may start a sequence)
    await new Promise((res) => setImmediate(res));
    await new Promise((res) => setImmediate(res));
    const end = Date.now() + DEADLINE_MS;
    while (controller.rendered !== controller.getSnapshot()) {
      if (Date.now() > end) throw new Error(`the app did not draw its latest state within ${DEADLINE_MS / 1000} s`);
      await new Promise((res) => setTimeout(res, 5));
    }
  };
  /** resolves once no background work is pending (controller.idle()) and the screen shows the result */
  const idle = async (): Promise<void> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the app's background work did not finish within ${DEADLINE_MS / 1000} s:\n${r.lastFrame()}`)), DEADLINE_MS);
    });
    try {
      await Promise.race([controller.idle(), late]);
    } finally {
      clearTimeout(timer);
    }
    await settle();
  };
  /** resolves once `what` holds on a settled screen (re-checked as the app draws), or fails with the frame after `ms` */
  const until = async (what: () => boolean, label: string, ms = DEADLINE_MS): Promise<void> => {
    const end = Date.now() + ms;
    await settle();
    while (!what()) {
      if (Date.now() > end) throw new Error(`timed out after ${ms / 1000} s waiting for ${label}:\n${r.lastFrame()}`);
      await new Promise((res) => setTimeout(res, 10)); // a poll with a deadline: the awaited change comes from outside the app (a file, a resize)
      await settle();
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
    idle,
    until,
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
