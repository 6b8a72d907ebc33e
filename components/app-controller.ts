// The thin imperative shell around the pure reducer (src/view/app-state.ts):
// it holds the one state, applies every action to the latest state at once
// (synchronously, in arrival order), runs the effects the reducer returns
// (the fork write, exit, status timers) and tells React to draw. Store changes
// are coalesced into one `world` action per frame.
import { nanoid } from 'nanoid';
import type { ResumeCommand } from '../src/session/resume-command.js';
import type { RootIndex } from '../src/storage/load-root.js';
import { initialAppState, reduce, type AppAction, type AppState, type Effect } from '../src/view/app-state.js';
import type { Size } from '../src/view/app-layout.js';
import { problemOf } from '../src/view/fork-dialog-state.js';
import type { ViewName } from '../src/view/keymap.js';
import { snapshotWorld, type World } from '../src/view/world.js';

export interface Snapshot {
  state: AppState;
  world: World;
}

export interface ControllerOptions {
  size: Size;
  initialView?: ViewName;
  /** the session key selected at start */
  selection?: string;
  /** fixed clock (tests); default: the real clock, re-read every `tickMs` */
  now?: number;
  newId?: () => string;
  /** store changes are drawn at most once per `frameMs` */
  frameMs?: number;
  tickMs?: number;
}

/** nanoid, but never starting with '-' (an id must not look like an option: `--session -x` fails). */
export const childId = (): string => {
  for (;;) {
    const id = nanoid();
    if (!id.startsWith('-')) return id;
  }
};

export class AppController {
  private snap: Snapshot;
  private version = 0;
  private dirty = false;
  private frame?: ReturnType<typeof setTimeout>;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribe: () => void;
  private readonly tick?: ReturnType<typeof setInterval>;
  private readonly newId: () => string;
  /** set by the app: leaves Ink */
  onExit: () => void = () => {};
  /** the snapshot the app last drew (tests wait for the screen to catch up with the state) */
  rendered?: Snapshot;
  /** puts text on the clipboard; default: OSC 52 to the terminal (invisible where unsupported) */
  onCopy: (text: string) => void = (text) => {
    if (process.stdout.isTTY) process.stdout.write(`\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`);
  };
  /** what R asked to run once the browser has left the screen (runTui runs it) */
  pendingRun?: ResumeCommand;

  constructor(
    readonly index: RootIndex,
    private readonly opts: ControllerOptions,
  ) {
    this.newId = opts.newId ?? childId;
    const world = this.takeWorld();
    const initial = { ...initialAppState(opts.size, opts.initialView), selection: opts.selection };
    this.snap = { state: reduce(initial, { type: 'world' }, world).state, world };
    this.unsubscribe = index.store.subscribe(() => this.storeChanged());
    if (opts.now === undefined) {
      // ages ("open 5s") keep counting while nothing else changes
      this.tick = setInterval(() => this.storeChanged(), opts.tickMs ?? 5000);
      this.tick.unref?.();
    }
  }

  private takeWorld(): World {
    this.dirty = false;
    return snapshotWorld(this.index, ++this.version, this.opts.now ?? Date.now(), this.newId);
  }

  private storeChanged(): void {
    this.dirty = true;
    if (this.frame) return;
    this.frame = setTimeout(() => {
      this.frame = undefined;
      this.dispatch({ type: 'world' });
    }, this.opts.frameMs ?? 16);
  }

  /** The world as of now: a fresh snapshot when the store changed since the last one. */
  world(): World {
    if (this.dirty) this.snap = { ...this.snap, world: this.takeWorld() };
    return this.snap.world;
  }

  readonly getSnapshot = (): Snapshot => this.snap;

  readonly subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  /** Applies one action to the latest state, then its effects, in order. */
  readonly dispatch = (action: AppAction): void => {
    const world = this.world();
    const { state, effects } = reduce(this.snap.state, action, world);
    this.snap = { state, world };
    for (const e of effects) this.run(e);
    for (const fn of this.listeners) fn();
  };

  private run(e: Effect): void {
    switch (e.type) {
      case 'exit':
        this.onExit();
        return;
      case 'copy':
        this.onCopy(e.text);
        return;
      case 'run':
        this.pendingRun = e.command;
        this.onExit();
        return;
      case 'expireStatus': {
        const t = setTimeout(() => {
          this.timers.delete(t);
          this.dispatch({ type: 'statusExpired', id: e.id });
        }, e.ms);
        t.unref?.();
        this.timers.add(t);
        return;
      }
      case 'fork':
        try {
          const child = this.index.store.fork({ source: e.source, boundary: e.boundary, sessionId: e.childId });
          this.dispatch({ type: 'forked', child, source: e.source });
        } catch (err) {
          this.dispatch({ type: 'forkFailed', error: problemOf(err) });
        }
        return;
    }
  }

  close(): void {
    this.unsubscribe();
    if (this.frame) clearTimeout(this.frame);
    if (this.tick) clearInterval(this.tick);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.listeners.clear();
  }
}
