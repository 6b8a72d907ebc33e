// rc.8 refuses to list a whole root for one misplaced file: a root holding
// both encodings (session.jsonl and session.jsonl.zstd in session folders), or
// a session file directly in a project folder (the old flat layout). The
// verdict is read from the paths the walk already found, never from the disk
// again: the browser asks after every change, and a 100,000-folder root must
// not be listed anew for that.
import path from 'node:path';
import type { Session } from '../session/session.js';
import { generationOf } from '../session/generation-name.js';
import { layoutOf, rc8RootOf } from './layout.js';

interface RootShape {
  plain?: string;
  zstd?: string;
  flat?: string;
  /** an rc.8 session lives here (only such roots are judged) */
  rc8?: true;
}

/**
 * Why rc.8 refuses each root, by root folder, from the session files found
 * under it (RootIndex.files' keys, older generations included). A root is
 * judged as rc.8's session list reads it: the generation files of every
 * `<root>/<folder>/<session>/` count for the encoding, and any session file
 * in a `<root>/<folder>/` is a flat file.
 */
export function rc8RootRefusalsOf(files: Iterable<string>): Map<string, string> {
  const shapes = new RootShapes();
  for (const f of files) shapes.add(f);
  return shapes.refusals();
}

/**
 * rc8RootRefusalsOf as a fold: add() the files in any order (the browser adds
 * a 100,000-file root's in slices: at once it was an 80 ms block), then ask.
 */
export class RootShapes {
  private readonly roots = new Map<string, RootShape>();

  private shape(root: string): RootShape {
    let s = this.roots.get(root);
    if (!s) this.roots.set(root, (s = {}));
    return s;
  }

  add(f: string): void {
    const dir = path.dirname(f);
    const flat = this.shape(path.dirname(dir));
    flat.flat ??= f;
    if (generationOf(path.basename(f)) === undefined) return;
    const s = this.shape(path.dirname(path.dirname(dir)));
    if (f.endsWith('.zstd')) s.zstd ??= f;
    else s.plain ??= f;
    if (layoutOf(f) === 'rc8-harness') s.rc8 = true;
  }

  /** Why rc.8 refuses each root, by root folder. */
  refusals(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [root, s] of this.roots) {
      if (!s.rc8) continue;
      if (s.plain && s.zstd) out.set(root, `the root holds both .jsonl (${s.plain}) and .jsonl.zstd (${s.zstd}): rc.8 refuses a root with mixed encodings`);
      else if (s.flat) out.set(root, `${s.flat} uses the old flat layout inside a project folder: rc.8 refuses the whole root`);
    }
    return out;
  }
}

/** Why rc.8 refuses the root of session `s` (undefined: it does not, or `s` is not in an rc.8 root). */
export const rootRefusalOf = (refusals: ReadonlyMap<string, string>, s: Pick<Session, 'file'>): string | undefined =>
  s.file !== undefined && refusals.size > 0 && layoutOf(s.file) === 'rc8-harness' ? refusals.get(rc8RootOf(s.file)) : undefined;

/** rc.8 refusals of whole roots for the CLI (list, lineage): one look at the files found. */
export function rootRefusals(files: Iterable<string>): (s: Session) => string | undefined {
  const refusals = rc8RootRefusalsOf(files);
  return (s) => rootRefusalOf(refusals, s);
}
