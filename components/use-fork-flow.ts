// The fork flow as a small state machine: request -> (typed refusal | confirm
// dialog with an editable child id) -> store.fork -> done. Never writes a
// file unless the user confirms and the store allows it; every refusal is the
// store's own SessionForkError (code + message), never our wording.
import { useCallback, useState } from 'react';
import { isSessionForkError, type SessionForkError } from '../src/session/errors.js';
import { nearestBoundaries } from '../src/session/log-facts.js';
import type { Session } from '../src/session/session.js';
import { SessionStore } from '../src/session/store.js';
import { dropLast, printable } from '../src/view/text-edit.js';

export interface ForkProblem {
  code: string;
  message: string;
}

export type ForkFlowState =
  | { kind: 'closed' }
  | { kind: 'refused'; source: Session; error: ForkProblem; jumpSeq?: number }
  | { kind: 'confirm'; source: Session; boundary?: number; cutSeq?: number; seedLength: number; childId: string; error?: ForkProblem };

export interface ForkFlow {
  state: ForkFlowState;
  /** `f` on a session: boundary undefined = the whole log. */
  request(source: Session, boundary?: number): void;
  /** A refusal the Turns view already got from the store. */
  refused(source: Session, error: SessionForkError): void;
  /** Typing in the child id field. */
  edit(input: string, key: { backspace?: boolean; delete?: boolean }): void;
  confirm(): void;
  close(): void;
}

const problemOf = (e: unknown): ForkProblem =>
  isSessionForkError(e) ? { code: e.code, message: e.message } : { code: 'ERROR', message: e instanceof Error ? e.message : String(e) };


function jumpSeqFor(source: Session, cut: number | undefined): number | undefined {
  const at = cut ?? source.length - 1;
  const { before, after } = nearestBoundaries(source.facts, at);
  return before ?? after;
}

export function useForkFlow(store: SessionStore, newId: () => string, onForked: (child: Session, source: Session) => void): ForkFlow {
  const [state, setState] = useState<ForkFlowState>({ kind: 'closed' });

  const refused = useCallback((source: Session, error: SessionForkError) => {
    const cut = typeof error.details.boundary === 'number' ? error.details.boundary : undefined;
    setState({ kind: 'refused', source, error: problemOf(error), jumpSeq: jumpSeqFor(source, cut) });
  }, []);

  const request = useCallback(
    (source: Session, boundary?: number) => {
      const err = store.boundaryError(source, boundary);
      if (err) {
        refused(source, err);
        return;
      }
      const seedLength = boundary === undefined ? source.length : boundary + 1;
      const cutSeq = seedLength > 0 ? seedLength - 1 : undefined;
      setState({ kind: 'confirm', source, boundary, cutSeq, seedLength, childId: newId() });
    },
    [store, newId, refused],
  );

  const edit = useCallback((input: string, key: { backspace?: boolean; delete?: boolean }) => {
    setState((s) => {
      if (s.kind !== 'confirm') return s;
      if (key.backspace || key.delete) return { ...s, childId: dropLast(s.childId), error: undefined };
      const add = printable(input);
      return add ? { ...s, childId: s.childId + add, error: undefined } : s;
    });
  }, []);

  const confirm = useCallback(() => {
    if (state.kind !== 'confirm' || state.childId === '') return;
    try {
      const child = store.fork({ source: state.source, boundary: state.boundary, sessionId: state.childId });
      setState({ kind: 'closed' });
      onForked(child, state.source);
    } catch (e) {
      if (isSessionForkError(e) && e.code === 'SESSION_NOT_LIVE') {
        // The file was re-read while the dialog was open: switch to the live
        // instance, say so, and let the user confirm again on fresh data.
        const live = store.get(SessionStore.keyOf(state.source));
        if (live && store.isLive(live)) {
          const err = store.boundaryError(live, state.boundary);
          if (err) return refused(live, err);
          const seedLength = state.boundary === undefined ? live.length : state.boundary + 1;
          setState({ ...state, source: live, seedLength, cutSeq: seedLength > 0 ? seedLength - 1 : undefined, error: { code: e.code, message: `${e.message}; refreshed to the re-read file — check and press Enter again` } });
          return;
        }
      }
      setState({ ...state, error: problemOf(e) });
    }
  }, [state, store, onForked, refused]);

  const close = useCallback(() => setState({ kind: 'closed' }), []);

  return { state, request, refused, edit, confirm, close };
}
