// The frame around the active view: title/status bar, tab bar and the one-line
// key-hint footer (disabled hints greyed with their reason, lazygit style).
import { Text } from 'ink';
import React from 'react';
import { shortReason, type KeyHint } from '../../src/view/app/key-hints.js';
import type { ViewName } from '../../src/view/app/surface.js';
import { displayWidth, pathTail, truncate } from '../../src/view/text/sanitize.js';
import { useTone } from './theme.js';

export type StatusTone = 'info' | 'ok' | 'error';
export interface Status {
  text: string;
  tone: StatusTone;
}

/**
 * `dsh-browse · root · 12 sessions · ⚠ 2 diagnostics · ⚠ rc.8 cannot list the root · live · <status>`: the
 * counts, the warning and the live mode always stay; the root path gives way
 * to a status message first (kept by its end), then the message is cut.
 */
export function TitleBar(props: { root: string; sessions: number; diagnostics: number; unlisted?: number; status?: Status; background?: string; width: number }): React.JSX.Element {
  const tone = useTone();
  // with a status message to show, the warning keeps its count and drops its word
  const warn = props.status ? ` · ⚠ ${props.diagnostics}` : ` · ⚠ ${props.diagnostics} diagnostic${props.diagnostics === 1 ? '' : 's'}`;
  // rc.8's session list fails for a whole root (the Problems tab's ROOT_NOT_LISTABLE rows say why)
  const unlisted = props.unlisted ? (props.status ? ' · ⚠ root' : ` · ⚠ rc.8 cannot list ${props.unlisted === 1 ? 'the root' : `${props.unlisted} roots`}`) : '';
  const facts =
    `${props.sessions} session${props.sessions === 1 ? '' : 's'}` +
    (props.diagnostics ? warn : '') +
    unlisted +
    (props.background ? ` · ${props.background}` : '');
  const statusWidth = props.status ? displayWidth(props.status.text) + 3 : 0;
  const rootRoom = Math.max(0, props.width - displayWidth(`dsh-browse ·  · ${facts}`) - statusWidth);
  const root = rootRoom >= 6 ? ` · ${pathTail(props.root, rootRoom)}` : '';
  const left = `dsh-browse${root} · ${facts}`;
  if (!props.status) {
    return (
      <Text bold wrap="truncate-end">
        {truncate(left, props.width)}
      </Text>
    );
  }
  const status = truncate(props.status.text, Math.max(1, props.width - displayWidth(left) - 3));
  const color = props.status.tone === 'error' ? 'red' : props.status.tone === 'ok' ? 'green' : undefined;
  return (
    <Text wrap="truncate-end">
      <Text bold>{left}</Text>
      {' · '}
      <Text color={tone(color)} bold={props.status.tone === 'error'}>
        {status}
      </Text>
    </Text>
  );
}

export function TabBar(props: { view: ViewName; tabs: ReadonlyArray<{ view: ViewName; text: string }>; width: number }): React.JSX.Element {
  const tone = useTone();
  let used = 0;
  const parts = props.tabs.map(({ view: v, text: label }) => {
    const text = truncate(` ${label} `, Math.max(4, Math.floor((props.width - 16) / 2)));
    used += displayWidth(text) + 1;
    return { v, text };
  });
  const hint = used + 18 <= props.width ? '  Tab / Shift-Tab' : '';
  return (
    <Text wrap="truncate-end">
      {parts.map(({ v, text }) => (
        <React.Fragment key={v}>
          <Text inverse={v === props.view} bold={v === props.view} color={v === props.view ? tone('cyan') : undefined}>
            {text}
          </Text>
          <Text dimColor>│</Text>
        </React.Fragment>
      ))}
      <Text dimColor>{hint}</Text>
    </Text>
  );
}

/** The bottom line: a status message while it lasts (a fork done, a cancel), else the key hints. */
export function Footer(props: { hints: KeyHint[]; width: number; status?: Status }): React.JSX.Element {
  const tone = useTone();
  if (props.status) {
    const color = props.status.tone === 'error' ? 'red' : props.status.tone === 'ok' ? 'green' : undefined;
    return (
      <Text wrap="truncate-end" color={tone(color)} bold>
        {truncate(props.status.text, props.width)}
      </Text>
    );
  }
  // Drop hints before the last two (help, quit) until the line fits: never wrap.
  // a disabled action says why, briefly (`f fork: open turn`); the full reason is in the view or the menu
  const render = (h: KeyHint): string => `${h.keys} ${h.label}${h.disabled ? `: ${shortReason(h.disabled)}` : ''}`;
  const total = (hs: KeyHint[]): number => hs.reduce((n, h, i) => n + displayWidth(render(h)) + (i ? 2 : 0), 0);
  const shown = [...props.hints];
  while (shown.length > 2 && total(shown) > props.width) shown.splice(shown.length - 3, 1);
  return (
    <Text wrap="truncate-end">
      {shown.map((h, i) => (
        <React.Fragment key={i}>
          {i > 0 ? '  ' : ''}
          {h.disabled ? (
            <Text dimColor>{render(h)}</Text>
          ) : (
            <>
              <Text bold>{h.keys}</Text> {h.label}
            </>
          )}
        </React.Fragment>
      ))}
    </Text>
  );
}
