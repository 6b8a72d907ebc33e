// The help overlay's lines: the key table of the surface it was opened on
// (the same table the app dispatches with), the text-field keys where there
// is a text field, and the legend of the views.
import { surfaceKeys, HAS_TEXT } from '../app/surface-keys.js';
import type { AppState } from '../app/state.js';
import type { Surface } from '../app/surface.js';
import { VIEW_NAMES } from '../app/views.js';
import { wrapText } from '../text/text-wrap.js';

export interface HelpLine {
  keys: string;
  text: string;
  heading?: boolean;
}

/** Each surface's name, as help and docs/keys.md title it. */
export const SURFACE_TITLES: Record<Surface, string> = {
  sessions: 'Sessions', turns: 'Turns', lineage: 'Lineage', problems: 'Problems', reader: 'Reader', compare: 'Compare',
  filter: 'Filter prompt', search: 'Search prompt', dialog: 'Fork dialog', menu: 'Action menu', help: 'Help',
};

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

export function helpLines(surface: Surface, s: AppState): HelpLine[] {
  const lines: HelpLine[] = [{ keys: '', text: `${SURFACE_TITLES[surface]} keys`, heading: true }];
  for (const b of surfaceKeys(surface, s)) lines.push({ keys: b.keys, text: b.help });
  if (HAS_TEXT.has(surface)) {
    lines.push({ keys: '', text: 'Text fields (filter, search, child id)', heading: true });
    lines.push(...TEXT_FIELD_KEYS);
  }
  if ((VIEW_NAMES as readonly string[]).includes(surface)) {
    lines.push({ keys: '', text: 'Legend', heading: true });
    lines.push(...LEGEND);
  }
  return lines;
}

/** The keys column of the overlay. */
export const HELP_KEY_WIDTH = 14;

/** The help lines wrapped to the overlay's inner width (borders and padding aside): nothing is cut, long lines continue below. */
export function helpRows(surface: Surface, s: AppState, width: number): HelpLine[] {
  const inner = Math.max(10, width - 4);
  const out: HelpLine[] = [];
  for (const l of helpLines(surface, s)) {
    if (l.heading) {
      for (const t of wrapText(l.text, inner)) out.push({ keys: '', text: t, heading: true });
      continue;
    }
    wrapText(l.text, Math.max(4, inner - HELP_KEY_WIDTH)).forEach((t, i) => out.push({ keys: i === 0 ? l.keys : '', text: t }));
  }
  return out;
}

export const helpRowCount = (surface: Surface, s: AppState, width: number): number => helpRows(surface, s, width).length;

/** Lines that fit: the box uses two border rows and a title row. */
export const helpPageSize = (height: number): number => Math.max(1, height - 3);
