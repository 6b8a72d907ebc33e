// The help overlay's lines: the key table for a view (the same table the app
// dispatches with) plus a legend.
import { bindingsFor, type ViewName } from '../app/keymap.js';

export interface HelpLine {
  keys: string;
  text: string;
  heading?: boolean;
}

export function helpLines(view: ViewName): HelpLine[] {
  const lines: HelpLine[] = bindingsFor(view).map((b) => ({ keys: b.keys, text: b.help }));
  lines.push({ keys: '', text: 'Text fields (filter, child id)', heading: true });
  lines.push({ keys: '←/→ Home/End', text: 'move the caret (also Ctrl-A / Ctrl-E)' });
  lines.push({ keys: 'Ctrl-U/K/W', text: 'delete to the start / to the end / the word before the caret' });
  lines.push({ keys: '', text: 'Legend', heading: true });
  lines.push({ keys: 'boundary', text: 'the log ends between turns: forkable' });
  lines.push({ keys: 'open 5m', text: 'inside an open turn; age of its last event (live writer or crash)' });
  lines.push({ keys: 'empty ⚠2', text: 'no events; ⚠ n = diagnostics (damaged lines)' });
  lines.push({ keys: '◆ / ◈ / ◇', text: 'fork child / a subagent\'s fork child / spawned subagent' });
  lines.push({ keys: '⚑', text: 'marked for compare (m, then c on another session)' });
  lines.push({ keys: '⊘', text: 'dsh --resume would refuse it (the reason: R, or the a menu)' });
  lines.push({ keys: '⚠ CODE', text: 'the worst problem of the session (the Problems tab lists them all)' });
  return lines;
}

/** Lines that fit: the box uses two border rows and a title row. */
export const helpPageSize = (height: number): number => Math.max(1, height - 3);
