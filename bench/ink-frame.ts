/**
 * Ink's time per frame, in-process: the real app (components/app/app.tsx) in its Turns
 * view on the big session, rendered by Ink into a fake 120x40 terminal; each ↓ is written to a
 * fake stdin and timed until Ink has written the new frame (input + React + layout +
 * output). Ink's own `onRender` renderTime (output generation only) is reported too.
 * `debug: true` makes Ink render every update at once (no 30 fps throttle), so the time
 * is the work of a frame, not the wait for the throttle.
 */
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { render } from 'ink';
import React from 'react';
import { App } from '../components/app/app.js';
import { indexFile, newRootIndex } from '../src/storage/load-root.js';
import { summarize, type Stats } from './floors.js';

class FakeStdout extends EventEmitter {
  columns: number;
  rows: number;
  onWrite?: () => void;
  frames = 0;
  constructor(cols: number, rows: number) {
    super();
    this.columns = cols;
    this.rows = rows;
  }
  write = (_frame: string): boolean => {
    this.frames++;
    this.onWrite?.();
    return true;
  };
}

class FakeStdin extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  write(data: string): void {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  }
  read = (): string | null => {
    const d = this.data;
    this.data = null;
    return d;
  };
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

export interface InkFrameResult {
  /** keypress -> frame written, ms */
  frame: Stats;
  /** Ink's onRender renderTime (output generation), ms */
  renderTime: Stats;
  mountMs: number;
}

/** `root` holds `file` (a scratch copy: the view may fork nothing, but stays off the corpus). */
export async function inkFrames(root: string, file: string, n: number, cols = 120, rows = 40): Promise<InkFrameResult> {
  const index = newRootIndex(root);
  indexFile(index, file);
  const session = index.store.get(file)!;
  session.ensureLoaded();
  const stdout = new FakeStdout(cols, rows);
  const stdin = new FakeStdin();
  const renderTimes: number[] = [];
  const nextFrame = () => new Promise<void>((resolve) => (stdout.onWrite = () => ((stdout.onWrite = undefined), resolve())));
  const t0 = performance.now();
  const mounted = nextFrame();
  const el = React.createElement(App, { index, initialView: 'turns', size: { columns: cols, rows }, color: true, now: Date.now() });
  const app = render(el, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: stdout as unknown as NodeJS.WriteStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
    onRender: ({ renderTime }) => renderTimes.push(renderTime),
  });
  await mounted;
  const mountMs = performance.now() - t0;
  const frames: number[] = [];
  try {
    const top = nextFrame(); // start at the top so every ↓ moves (no frame if already there)
    stdin.write('g');
    await Promise.race([top, new Promise((r) => setTimeout(r, 200))]);
    stdout.onWrite = undefined;
    for (let i = 0; i < n; i++) {
      const before = renderTimes.length;
      const got = nextFrame();
      const k0 = performance.now();
      stdin.write('\x1b[B');
      const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 2000));
      if ((await Promise.race([got, timeout])) === 'timeout') throw new Error(`no frame after ↓ #${i + 1} (${stdout.frames} frames so far)`);
      frames.push(performance.now() - k0);
      if (renderTimes.length === before) renderTimes.push(NaN);
    }
  } finally {
    app.unmount();
    app.cleanup();
  }
  return { frame: summarize(frames), renderTime: summarize(renderTimes.slice(1).filter((x) => !Number.isNaN(x))), mountMs };
}

export function p95(s: Stats): number {
  const v = [...s.samples].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.ceil(0.95 * v.length) - 1)];
}
