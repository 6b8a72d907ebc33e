// The fork dialog as pure state. It PINS what it shows: the source instance
// (its file key) and the cut seq are fixed when it opens, so Enter forks
// exactly that seq or gets the store's typed refusal: never a different
// boundary than the one on screen, even if a live writer grew the log.
import { problemOf, type Problem } from '../../session/errors.js';

export type { Problem };
import { nearestBoundaries } from '../../session/log-facts.js';
import type { Session } from '../../session/session.js';
import { SessionStore } from '../../session/store.js';
import { sanitizeInline } from '../text/sanitize.js';
import { textField, type TextField } from '../text/text-field.js';
import { wrapText } from '../text/text-wrap.js';
import type { World } from '../app/world.js';

export type Dialog =
  | { kind: 'refused'; sourceKey: string; sourceId: string; error: Problem; jumpSeq?: number }
  | {
      kind: 'confirm';
      sourceKey: string;
      /** the instance the dialog was opened on: a re-read file makes it stale (SESSION_NOT_LIVE) */
      source: Session;
      /** the pinned inclusive cut; undefined only for an empty log (seedLength 0) */
      cut?: number;
      seedLength: number;
      /** the source's length when the dialog opened (to say that it grew since) */
      lengthAtOpen: number;
      /** opened on the whole log (from Sessions or Lineage), pinned to its last seq then */
      wholeLog: boolean;
      childId: TextField;
      error?: Problem;
      note?: string;
    };

/** `SessionForkError OPEN_TURN: cannot fork …` — exactly the store's code and message. */
export function problemText(p: Problem): string {
  const name = p.code === 'ERROR' ? 'Error' : `SessionForkError ${p.code}`;
  return `${name}: ${sanitizeInline(p.message)}`;
}

function jumpSeqFor(source: Session, cut: number | undefined): number | undefined {
  const at = cut ?? source.length - 1;
  const { before, after } = nearestBoundaries(source.facts, at);
  return before ?? after;
}

/**
 * `f`: the dialog for forking `source` cut at `cut` (inclusive; undefined = the
 * whole log as it is now, pinned to its current last seq).
 */
export function openForkDialog(world: World, source: Session, cut: number | undefined, newId: () => string): Dialog {
  const error = world.forkError(source, cut);
  const sourceKey = SessionStore.keyOf(source);
  if (error) {
    const at = typeof error.details?.boundary === 'number' ? error.details.boundary : cut;
    return { kind: 'refused', sourceKey, sourceId: source.id, error: problemOf(error), jumpSeq: error.code === 'OPEN_TURN' ? jumpSeqFor(source, at) : undefined };
  }
  const pinned = cut ?? (source.length > 0 ? source.length - 1 : undefined);
  return { kind: 'confirm', sourceKey, source, cut: pinned, seedLength: pinned === undefined ? 0 : pinned + 1, lengthAtOpen: source.length, wholeLog: cut === undefined, childId: textField(newId()) };
}

/**
 * After the store refused the confirmed fork: on SESSION_NOT_LIVE (the file
 * was re-read) the dialog moves to the live instance at the SAME cut and asks
 * again; anything else is shown in the dialog as the store's error.
 */
export function afterForkFailure(world: World, d: Extract<Dialog, { kind: 'confirm' }>, error: Problem): Dialog {
  if (error.code === 'SESSION_NOT_LIVE') {
    const live = world.session(d.sourceKey);
    if (live && live !== d.source) {
      const again = world.forkError(live, d.cut);
      if (again) return { ...d, error: problemOf(again) };
      return { ...d, source: live, lengthAtOpen: live.length, error, note: 'the file was re-read: the dialog now shows the live session at the same seq; press Enter again to fork' };
    }
  }
  return { ...d, error, note: undefined };
}

/**
 * The cut as the dialog words it: `seq 78 (whole log)` only while it is the
 * whole log of the live session; once that grew or was replaced by a longer
 * one, the same pinned seq is `the whole log when this opened`.
 */
export function boundaryLabel(d: Extract<Dialog, { kind: 'confirm' }>, liveLength: number | undefined): string {
  if (d.cut === undefined) return 'none (empty log)';
  if (!d.wholeLog) return `seq ${d.cut}`;
  const length = liveLength ?? d.source.length;
  return `seq ${d.cut} ${length - 1 === d.cut && d.source.length - 1 === d.cut ? '(whole log)' : `(the whole log when this opened; it has ${length} events now)`}`;
}

/** The lines of a refusal, wrapped to the dialog. */
export const refusedLines = (d: Extract<Dialog, { kind: 'refused' }>, inner: number, height: number): string[] =>
  wrapText(problemText(d.error), inner, Math.max(1, height - 4));

/** Extra lines the confirm dialog shows (error, note, growth). */
export function confirmNotes(d: Extract<Dialog, { kind: 'confirm' }>): string[] {
  const out: string[] = [];
  if (d.error) out.push(problemText(d.error));
  if (d.note) out.push(d.note);
  if (d.source.length !== d.lengthAtOpen) out.push(`the session grew to ${d.source.length} events since; the fork still cuts at the seq shown`);
  return out;
}

/** Rows the dialog takes (borders included) at this width, within `maxHeight`. */
export function dialogHeight(d: Dialog, width: number, maxHeight: number): number {
  const inner = Math.max(10, width - 4);
  if (d.kind === 'refused') return Math.min(maxHeight, 4 + refusedLines(d, inner, maxHeight).length);
  const notes = confirmNotes(d).reduce((n, t) => n + wrapText(t, inner, 3).length, 0);
  return Math.min(maxHeight, 9 + notes); // title, source, file, boundary, seedLength, child id, hints, two borders
}
