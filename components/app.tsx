// The app shell: title/status bar, tab bar (Sessions · Turns · Lineage), the
// active view, a one-line key-hint footer, the help overlay and the fork flow.
// One selection is shared by every view (a session key), so a fork child, once
// selected, is the selection in Sessions, Lineage and Turns alike.
import path from 'node:path';
import { Box, Text, useApp } from 'ink';
import { nanoid } from 'nanoid';
import React, { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { SessionForkError } from '../src/session/errors.js';
import type { Session } from '../src/session/session.js';
import { SessionStore } from '../src/session/store.js';
import { diagnosticCount, type RootIndex } from '../src/storage/load-root.js';
import { keyHints } from '../src/view/key-hints.js';
import type { ViewName } from '../src/view/keymap.js';
import { ancestryKeys, layoutLineage } from '../src/view/lineage-layout.js';
import { lineageNodes } from '../src/view/lineage-model.js';
import { filterSessions, listItemOf, sessionRows, type SortOrder } from '../src/view/session-list.js';
import { sanitizeInline } from '../src/view/sanitize.js';
import { Footer, TabBar, TitleBar, type Status } from './chrome.js';
import { useEffectFlusher } from './effect-flusher.js';
import { ForkDialog, forkDialogHeight } from './fork-dialog.js';
import { HelpOverlay } from './help-overlay.js';
import { LineageView } from './lineage-view.js';
import { SessionsView } from './sessions-view.js';
import { colorFromEnv, ThemeProvider } from './theme.js';
import { TurnsView } from './turns-view.js';
import { useAppInput, type AppModel } from './use-app-input.js';
import { useForkFlow } from './use-fork-flow.js';
import { useNow } from './use-now.js';
import { useStoreVersion } from './use-store-version.js';
import { useTerminalSize, type TermSize } from './use-terminal-size.js';

export interface AppProps {
  index: RootIndex;
  initialView?: ViewName;
  /** fixed clock (ms) for deterministic ages; default: the real clock, ticking */
  now?: number;
  /** child ids for new forks (default nanoid) */
  idGenerator?: () => string;
  /** fixed terminal size (tests); default: stdout's, following resizes */
  size?: TermSize;
  /** colour on/off; default: off under NO_COLOR */
  color?: boolean;
}

/** Scan progress, then the live-follow mode, for the title bar. */
function backgroundText(index: RootIndex): string | undefined {
  if (index.scan && !index.scan.finished) return `scanning ${index.scan.done}${index.scan.total === undefined ? '' : `/${index.scan.total}`} files…`;
  if (index.live) return index.live.mode === 'poll' ? 'live (polling)' : 'live';
  return undefined;
}

/** The latest message of the live follower (a replaced file, a fallback to polling). */
function liveNotice(index: RootIndex): Status | undefined {
  return index.live?.message ? { tone: 'info', text: sanitizeInline(index.live.message) } : undefined;
}

/** A stable small number per Session instance (to notice a replaced instance). */
const instanceIds = new WeakMap<Session, number>();
let nextInstance = 1;
const instanceId = (s: Session): number => {
  let n = instanceIds.get(s);
  if (n === undefined) instanceIds.set(s, (n = nextInstance++));
  return n;
};

export function App(props: AppProps): React.JSX.Element {
  const { index } = props;
  const store = index.store;
  const { exit } = useApp();
  const { columns: width, rows } = useTerminalSize(props.size);
  const { version, bump } = useStoreVersion(store);
  const { flusher, pulse } = useEffectFlusher();
  useEffect(() => pulse(), [version, pulse]);
  const now = useNow(props.now);

  const [view, setView] = useState<ViewName>(props.initialView ?? 'sessions');
  const [help, setHelp] = useState<{ open: boolean; scroll: number }>({ open: false, scroll: 0 });
  const [status, setStatus] = useState<Status | undefined>();
  const [order, setOrder] = useState<SortOrder>('recent');
  const [filter, setFilter] = useState<{ text: string; editing: boolean }>({ text: '', editing: false });
  const [selectedKey, setSelectedKey] = useState<string | undefined>();
  const [sessionsFallback, setSessionsFallback] = useState(0);
  const [lineageCursor, setLineageCursor] = useState<{ index: number; key?: string }>({ index: 0 });
  const [jumpTo, setJumpTo] = useState<{ seq: number; nonce: number } | undefined>();
  const nonce = useRef(0);

  // ---- view models (recomputed on store changes) -------------------------
  const items = useMemo(() => store.list().map(listItemOf), [store, version]);
  const diagnostics = useMemo(() => diagnosticCount(index), [index, version]);
  const sessionList = useMemo(() => sessionRows(items, { order, filter: filter.text, now }), [items, order, filter.text, now]);
  const layout = useMemo(() => layoutLineage(lineageNodes(store.list())), [store, version]);

  let sessionsIndex = selectedKey === undefined ? -1 : sessionList.findIndex((r) => r.key === selectedKey);
  if (sessionsIndex < 0) sessionsIndex = Math.min(sessionsFallback, Math.max(0, sessionList.length - 1));
  const effectiveKey = selectedKey ?? sessionList[sessionsIndex]?.key;

  let lineageIndex = lineageCursor.key === effectiveKey && layout.rows[lineageCursor.index] ? lineageCursor.index : -1;
  if (lineageIndex < 0 || (layout.rows[lineageIndex].key !== null && layout.rows[lineageIndex].key !== effectiveKey)) {
    lineageIndex = Math.max(0, layout.rows.findIndex((r) => r.key === effectiveKey));
  }
  const ancestry = useMemo(() => (effectiveKey ? ancestryKeys(layout, effectiveKey) : new Set<string>()), [layout, effectiveKey]);

  // A selected session whose file was deleted stays on screen (marked gone) until the user moves on.
  const lastSelected = useRef<Session | undefined>(undefined);
  const live = effectiveKey !== undefined ? store.get(effectiveKey) : undefined;
  const kept = lastSelected.current;
  const selected = live ?? (kept?.gone && effectiveKey === SessionStore.keyOf(kept) ? kept : undefined);
  lastSelected.current = selected;
  const turnsSession = selected ?? (sessionList[0] ? store.get(sessionList[0].key) : undefined);

  // Bump the Turns view's version when its session's facts change.
  const turnsVersion = useRef({ sig: '', n: 0 });
  if (turnsSession) {
    const f = turnsSession.facts;
    const sig = `${instanceId(turnsSession)}|${f.events}|${f.lastEventTime ?? ''}|${turnsSession.log.consumed}|${turnsSession.diagnostics.length}`;
    if (sig !== turnsVersion.current.sig) turnsVersion.current = { sig, n: turnsVersion.current.n + 1 };
  }

  // ---- intents ------------------------------------------------------------
  const select = useCallback((key: string | undefined) => setSelectedKey(key), []);
  const openTurns = useCallback((key: string, seq?: number) => {
    setSelectedKey(key);
    setJumpTo(seq === undefined ? undefined : { seq, nonce: ++nonce.current });
    setView('turns');
  }, []);

  const onForked = useCallback(
    (child: Session, source: Session) => {
      const key = SessionStore.keyOf(child);
      setSelectedKey(key);
      if (filter.text && filterSessions([listItemOf(child)], filter.text).length === 0) setFilter({ text: '', editing: false });
      const file = child.file ? path.relative(index.root, child.file) || child.file : 'in memory';
      setStatus({ tone: 'ok', text: `forked ${sanitizeInline(source.id)} -> ${sanitizeInline(child.id)} (${sanitizeInline(file)})` });
      setView((v) => (v === 'turns' ? 'sessions' : v));
      bump();
    },
    [filter.text, index.root, bump],
  );
  const fork = useForkFlow(store, props.idGenerator ?? (() => nanoid()), onForked);

  const onForkRequest = useCallback(
    (req: { boundary: number } | { error: SessionForkError }) => {
      if (!turnsSession) return;
      if ('error' in req) fork.refused(turnsSession, req.error);
      else fork.request(turnsSession, req.boundary);
    },
    [turnsSession, fork],
  );

  const model: AppModel = {
    view,
    setView,
    help,
    setHelp,
    filter,
    setFilter,
    setOrder,
    setStatus,
    fork,
    exit,
    sessions: { rows: sessionList, index: sessionsIndex, setFallback: setSessionsFallback },
    lineage: { layout, index: lineageIndex, setCursor: setLineageCursor },
    selected,
    selectedKey: effectiveKey,
    select,
    openTurns,
  };

  // ---- layout -------------------------------------------------------------
  const contentHeight = Math.max(1, rows - 4); // title, tabs, footer; root box stays <= rows - 1
  const dialogHeight = fork.state.kind === 'closed' ? 0 : Math.min(contentHeight, forkDialogHeight(fork.state, width, contentHeight));
  const viewHeight = Math.max(0, contentHeight - dialogHeight);
  useAppInput(model, viewHeight, pulse);

  const disabled: { fork?: string } = {};
  if (view !== 'turns' && selected) {
    const err = store.boundaryError(selected);
    if (err) disabled.fork = err.code === 'OPEN_TURN' ? 'open turn' : err.code;
  }
  const hints = keyHints(view, disabled, view === 'sessions' ? { cycleSort: `sort:${order}` } : {});

  let body: React.ReactNode = null;
  if (help.open) body = <HelpOverlay view={view} width={width} height={contentHeight} scroll={help.scroll} />;
  else if (viewHeight > 0 && view === 'sessions')
    body = <SessionsView rows={sessionList} total={items.length} selected={sessionsIndex} order={order} filter={filter.text} editing={filter.editing} width={width} height={viewHeight} scanning={index.scan !== undefined && !index.scan.finished} />;
  else if (viewHeight > 0 && view === 'lineage') body = <LineageView layout={layout} selected={lineageIndex} ancestry={ancestry} width={width} height={viewHeight} />;
  else if (viewHeight > 0 && view === 'turns')
    body = turnsSession ? (
      <TurnsView
        key={SessionStore.keyOf(turnsSession)}
        session={turnsSession}
        store={store}
        width={width}
        height={viewHeight}
        focused={fork.state.kind === 'closed' && !help.open}
        version={turnsVersion.current.n}
        jumpTo={jumpTo}
        onForkRequest={onForkRequest}
        onBack={() => setView('sessions')}
      />
    ) : (
      <Text dimColor>  no session to show</Text>
    );

  return (
    <ThemeProvider color={props.color ?? colorFromEnv()}>
      <Box flexDirection="column" width={width} height={rows - 1} overflow="hidden">
        <TitleBar root={sanitizeInline(index.root)} sessions={items.length} diagnostics={diagnostics} status={status ?? liveNotice(index)} background={backgroundText(index)} width={width} />
        <TabBar view={view} turnsLabel={turnsSession ? sanitizeInline(turnsSession.id) : undefined} width={width} />
        <Box flexDirection="column" height={contentHeight} overflow="hidden">
          {body}
          {!help.open && fork.state.kind !== 'closed' ? <ForkDialog state={fork.state} width={width} height={dialogHeight} /> : null}
        </Box>
        <Footer hints={hints} width={width} />
        {flusher}
      </Box>
    </ThemeProvider>
  );
}
