// The app shell: draws the one app state (src/view/app/state.ts) held by the
// controller. Title/status bar, tab bar, the active view, an open dialog, a
// one-line key-hint footer. No state of its own beyond the terminal size.
import path from 'node:path';
import { workLine } from '../../src/view/app/verdicts.js';
import { Box, useApp, useStdout } from 'ink';
import React, { useEffect, useLayoutEffect, useMemo, useSyncExternalStore } from 'react';
import type { RootIndex } from '../../src/storage/load-root.js';
import { footerHints } from '../../src/view/app/key-hints.js';
import { hasTarget } from '../../src/view/app/target.js';
import { APP } from '../../src/view/app/surfaces.js';
import { sanitizeInline } from '../../src/view/text/sanitize.js';
import type { World } from '../../src/view/app/world.js';
import { menuItems } from '../../src/view/menu/action-menu.js';
import { ActionMenu } from '../menu/action-menu.js';
import { AppController } from './app-controller.js';
import { Footer, TabBar, TitleBar, type Status } from './chrome.js';
import { ForkDialog } from '../dialog/fork-dialog.js';
import { HelpOverlay } from '../help/help-overlay.js';
import { colorFromEnv, ThemeProvider } from './theme.js';
import { partialPercent } from '../../src/view/text/percent.js';
import { useKeyInput } from './use-key-input.js';
import type { AppState } from '../../src/view/app/state.js';
import type { SurfaceId, ViewName } from '../../src/view/app/surface.js';
import type { Body } from './body.js';
import { CompareBody } from '../compare/compare-body.js';
import { ChangesBody } from '../changes/changes-body.js';
import { TimelineBody } from '../timeline/timeline-body.js';
import { LineageBody } from '../lineage/lineage-body.js';
import { ProblemsBody } from '../problems/problems-body.js';
import { ReaderBody } from '../reader/reader-body.js';
import { SessionsBody } from '../sessions/sessions-body.js';
import { TurnsBody } from '../turns/turns-body.js';
import { useTerminalSize, type TermSize } from './use-terminal-size.js';

export interface AppProps {
  index: RootIndex;
  initialView?: ViewName;
  /** fixed clock (ms) for deterministic ages; default: the real clock, ticking */
  now?: number;
  /** child ids for new forks (default: nanoid, never starting with '-') */
  idGenerator?: () => string;
  /** fixed terminal size (tests); default: stdout's, following resizes */
  size?: TermSize;
  /** colour on/off; default: off under NO_COLOR */
  color?: boolean;
  /** the session key selected at start */
  initialSelection?: string;
  /** an app controller made by the caller (tests read its state) */
  controller?: AppController;
}

/** Scan progress, then the live-follow mode, for the title bar. */
function backgroundText(index: RootIndex): string | undefined {
  const scan = index.scan;
  if (scan && !scan.finished) {
    // a large log read over many slices: which, and how far (its first scan takes seconds per GB)
    const reading = scan.reading ? ` (${sanitizeInline(path.basename(scan.reading.file))} ${scan.reading.progress ? partialPercent(scan.reading.progress) : 0}%)` : '';
    return `scanning ${scan.done}${scan.total === undefined ? '' : `/${scan.total}`} files…${reading}`;
  }
  if (index.live) return index.live.mode === 'poll' ? 'live (polling)' : 'live';
  return undefined;
}

/** The menu acts on the target: say which session (and seq) it is. */
function menuTitle(state: AppState, world: World): string {
  const t = APP.target(state, world);
  if (!hasTarget(t)) return `Actions: ${t.none}`;
  return `Actions: ${sanitizeInline(t.session.id)}${t.seq !== undefined && APP.surface(state.view).eventRows ? ` · seq ${t.seq}` : ''}`;
}

/** The tabs' text: each view's title, and what it shows beside it (Turns: its session). */
function tabsOf(state: AppState, world: World): Array<{ view: ViewName; text: string }> {
  return APP.views.map((v) => {
    const m = APP.surface(v);
    const label = m.tabLabel?.(state, world);
    return { view: v, text: label !== undefined ? `${m.title}: ${sanitizeInline(label)}` : m.title };
  });
}

/** What each surface on screen draws in the body (a prompt is drawn by its view). */
const BODIES: Partial<Record<SurfaceId, Body>> = { sessions: SessionsBody, turns: TurnsBody, lineage: LineageBody, problems: ProblemsBody, reader: ReaderBody, compare: CompareBody, changes: ChangesBody, timeline: TimelineBody };

function BodyOf({ state, world }: { state: AppState; world: World }): React.JSX.Element | null {
  const lay = APP.layout(state);
  // help covers the body; the dialog and the menu sit below it (App draws them)
  if (state.help) return <HelpOverlay of={state.help.of} state={state} width={lay.width} height={lay.content} scroll={state.help.scroll} />;
  const c = APP.content(state);
  const Drawn = BODIES[c.prompt ? state.view : c.id];
  return Drawn ? <Drawn state={state} world={world} lay={lay} /> : null;
}

export function App(props: AppProps): React.JSX.Element {
  const { exit } = useApp();
  const size = useTerminalSize(props.size);
  const controller = useMemo(
    () => props.controller ?? new AppController(props.index, { size, initialView: props.initialView, now: props.now, newId: props.idGenerator, selection: props.initialSelection }),
    // one controller for the app's life
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [],
  );
  controller.onExit = exit;
  // Ink's own stdout writer erases its frame, writes, then draws the last frame whole: after an external
  // program ($PAGER) drew on the terminal, writing nothing through it repaints the screen (Ink skips a
  // frame equal to the last one, so a redraw of the same state would leave the screen blank)
  const { write } = useStdout();
  controller.repaint = () => write('');
  useEffect(() => () => controller.close(), [controller]);
  const snap = useSyncExternalStore(controller.subscribe, controller.getSnapshot);
  const { state, world } = snap;
  useLayoutEffect(() => {
    controller.rendered = snap;
  }, [controller, snap]);
  useLayoutEffect(() => {
    if (size.columns !== state.size.columns || size.rows !== state.size.rows) controller.dispatch({ type: 'resize', size });
  }, [controller, size, state.size]);
  useKeyInput(controller.dispatch);

  const lay = APP.layout(state);
  const index = props.index;
  const liveNotice: Status | undefined = state.work ? { tone: 'info', text: `${workLine(state.work)} · Esc cancels` } : index.live?.message ? { tone: 'info', text: sanitizeInline(index.live.message) } : undefined;
  return (
    <ThemeProvider color={props.color ?? colorFromEnv()}>
      {/* the terminal's size at once (the state's follows in a layout effect): a resize never draws past the screen */}
      <Box flexDirection="column" width={Math.min(lay.width, size.columns)} height={Math.max(1, Math.min(state.size.rows, size.rows) - 1)} overflow="hidden">
        <TitleBar root={sanitizeInline(world.rootLabel)} sessions={world.total} diagnostics={world.diagnostics} unlisted={world.listRefusals.size} status={liveNotice} background={backgroundText(index)} width={lay.width} />
        <TabBar view={state.view} tabs={tabsOf(state, world)} width={lay.width} />
        <Box flexDirection="column" height={lay.content} overflowY="hidden">
          <BodyOf state={state} world={world} />
          {!state.help && state.dialog ? <ForkDialog dialog={state.dialog} root={world.root} liveLength={world.session(state.dialog.sourceKey)?.length} width={lay.width} height={lay.dialog} /> : null}
          {!state.help && !state.dialog && state.menu ? (
            <ActionMenu items={menuItems(state, world, APP)} cursor={state.menu.cursor} title={menuTitle(state, world)} width={lay.width} height={lay.dialog} />
          ) : null}
        </Box>
        <Footer hints={footerHints(state, world)} width={lay.width} status={state.status} />
      </Box>
    </ThemeProvider>
  );
}
