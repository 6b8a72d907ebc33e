// The help overlay's lines: the key table of the surface it was opened on
// (the same table the app dispatches with), the text-field keys where there
// is a text field, and the legend of the views.
import type { AppState } from '../app/state.js';
import type { App, SurfaceId } from '../app/surface.js';
import { wrapText } from '../text/text-wrap.js';

export interface HelpLine {
  keys: string;
  text: string;
  heading?: boolean;
}

/** The keys of every text field (text-field.ts applies them). */
export const TEXT_FIELD_KEYS: readonly HelpLine[] = [
  { keys: '←/→ Home/End', text: 'move the caret (also Ctrl-A / Ctrl-E; Alt-B / Alt-F by word)' },
  { keys: 'Ctrl-U/K/W', text: 'delete to the start / to the end / the word before the caret' },
  { keys: 'Alt-D/Alt-⌫', text: 'delete the word after / before the caret' },
  { keys: 'paste', text: 'pasted text is inserted as typed; a line break becomes a space' },
];

/** What the marks in the views' rows mean. */
export const LEGEND: readonly HelpLine[] = [
  { keys: 'boundary', text: 'the log ends between turns: forkable' },
  { keys: 'seq gap', text: 'events are missing: no fork past the gap (the Problems tab says where)' },
  { keys: 'open 5m', text: 'inside an open turn; age of its last event (live writer or crash)' },
  { keys: 'empty ⚠2', text: 'no events; ⚠ n = diagnostics (damaged lines)' },
  { keys: '◆ / ◈ / ◇', text: "fork child / a subagent's fork child / spawned subagent" },
  { keys: '⚑', text: 'marked for compare (m, then c on another session)' },
  { keys: '⊘', text: 'dsh --resume would refuse it (the reason: R, or the a menu)' },
  { keys: '⇡', text: 'the current release would refuse it on upgrade (the reason: Turns, and the Problems tab)' },
  { keys: '⚠ CODE', text: 'the worst problem of the session (the Problems tab lists them all)' },
];

export function helpLines(of: SurfaceId, s: AppState, app: App): HelpLine[] {
  const surface = app.surface(of);
  const lines: HelpLine[] = [{ keys: '', text: `${surface.title} keys`, heading: true }];
  for (const b of surface.keys(s)) lines.push({ keys: b.keys, text: b.help });
  if (surface.hasText) {
    lines.push({ keys: '', text: 'Text fields (filter, search, child id)', heading: true });
    lines.push(...TEXT_FIELD_KEYS);
  }
  if (surface.view) {
    lines.push({ keys: '', text: 'Legend', heading: true });
    lines.push(...LEGEND);
  }
  return lines;
}

/** The keys column of the overlay. */
export const HELP_KEY_WIDTH = 14;

/** The help lines wrapped to the overlay's inner width (borders and padding aside): nothing is cut, long lines continue below. */
export function helpRows(of: SurfaceId, s: AppState, app: App, width: number): HelpLine[] {
  const inner = Math.max(10, width - 4);
  const out: HelpLine[] = [];
  for (const l of helpLines(of, s, app)) {
    if (l.heading) {
      for (const t of wrapText(l.text, inner)) out.push({ keys: '', text: t, heading: true });
      continue;
    }
    wrapText(l.text, Math.max(4, inner - HELP_KEY_WIDTH)).forEach((t, i) => out.push({ keys: i === 0 ? l.keys : '', text: t }));
  }
  return out;
}

/** Lines that fit: the box uses two border rows and a title row. */
export const helpPageSize = (height: number): number => Math.max(1, height - 3);
