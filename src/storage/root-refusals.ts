// rc.8 refuses to list a whole root for one misplaced file: a root holding
// both encodings (session.jsonl and session.jsonl.zstd in session folders), or
// a session file directly in a project folder (the old flat layout); those
// block resuming any session of it too. Its session list (listArtifacts,
// session-persistence-jsonl index.ts) also fails for one session's header: a
// retired field, an id and cwd naming another folder, an id in two project
// folders; resuming the others by id still works. The verdict is read from
// the paths the walk already found and the headers read, never from the disk
// again: the browser asks after every change, and a 100,000-folder root must
// not be listed anew for that.
import path from 'node:path';
import type { Session } from '../session/session.js';
import { eraOf } from '../session/era.js';
import { generationOf } from '../session/generation-name.js';
import { layoutOf, rc8PathOf, rc8RootOf } from './layout.js';
import { rc8HeaderProblem, RETIRED_HEADER_FIELDS } from '../session/rc8-rules.js';

/** A header rc.8's list reads; it skips any other, silently. */
const listsHeader = (h: Session['header']): boolean => rc8HeaderProblem(h) === undefined;

interface RootShape {
  plain?: string;
  zstd?: string;
  flat?: string;
  /** an rc.8 session lives here, or a log of its era one folder down (only such roots are judged) */
  rc8?: true;
  /** why rc.8's session list fails here for one session's header (listArtifacts): the first found */
  list?: { retired?: ListRefusal; misplaced?: ListRefusal; duplicate?: ListRefusal };
}

/** Why rc.8's session list (listArtifacts) fails for a whole root, and the file that makes it. */
export interface ListRefusal {
  reason: string;
  file: string;
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

  /**
   * The session read from `file` (added too), as rc.8's session list reads
   * it: a session.jsonl[.zstd] whose header rc.8 takes fails the whole list
   * when the header has a retired field, when its id and cwd name another
   * folder, or when its id is another such file's too (`sameId`: every
   * session with that id). rc.8's resume by id finds the others still.
   */
  addSession(file: string, s: Pick<Session, 'header' | 'id' | 'facts'>, sameId: () => readonly Pick<Session, 'file' | 'header'>[]): void {
    this.add(file);
    const layout = layoutOf(file);
    // a log of rc.8's era outside its places: rc.8's list of the folder above its folder
    // reads that folder as a project and fails on the flat file (listSessionDirs)
    if (layout === 'flat' && eraOf({ header: s.header, facts: s.facts, file }) === 'rc8') this.shape(path.dirname(path.dirname(file))).rc8 = true;
    if (layout !== 'rc8-harness' || generationOf(path.basename(file)) !== 0 || !listsHeader(s.header)) return;
    const root = rc8RootOf(file);
    const shape = this.shape(root);
    const list = (shape.list ??= {});
    const retired = RETIRED_HEADER_FIELDS.find((k) => Object.hasOwn(s.header, k));
    if (retired !== undefined) list.retired ??= { file, reason: `${file}: its header has the retired field ${retired} ("session header uses retired policy baseline fields")` };
    const expected = rc8PathOf(file, s.header.cwd, s.id);
    if (expected !== file) {
      list.misplaced ??= { file, reason: `${file}: "header id ${JSON.stringify(s.id)} and cwd identify ${expected}" (rc.8 calls the log corrupt)` };
      return;
    }
    if (list.duplicate) return;
    const twin = sameId().find((o) => o.file !== undefined && o.file !== file && rc8RootOf(o.file) === root && generationOf(path.basename(o.file)) === 0 && listsHeader(o.header) && rc8PathOf(o.file, o.header.cwd, s.id) === o.file);
    if (twin) list.duplicate = { file, reason: `${file} and ${twin.file}: "duplicate JSONL session id ${JSON.stringify(s.id)} appears in multiple project directories"` };
  }

  /** Why rc.8's session list fails for each root, by root folder: a refusal of the whole root (`refusals`: refusals()), else one session's header. */
  listRefusals(refusals: ReadonlyMap<string, string> = this.refusals()): Map<string, ListRefusal> {
    const out = new Map<string, ListRefusal>();
    for (const [root, why] of refusals) {
      const s = this.roots.get(root)!;
      out.set(root, { reason: why, file: s.plain && s.zstd ? s.plain : s.flat! });
    }
    for (const [root, s] of this.roots) {
      const l = s.list;
      if (!s.rc8 || out.has(root) || !l) continue;
      const first = l.retired ?? l.misplaced ?? l.duplicate;
      if (first) out.set(root, first);
    }
    return out;
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

/** Why rc.8's session list fails for each root of the index (the CLI's list --json): one look at the files and sessions found. */
export function listRefusalsOf(files: Iterable<string>, sessionOf: (file: string) => Session | undefined, sameId: (id: string) => readonly Session[]): Map<string, ListRefusal> {
  const shapes = new RootShapes();
  for (const f of files) {
    const s = sessionOf(f);
    if (s) shapes.addSession(f, s, () => sameId(s.id));
    else shapes.add(f);
  }
  return shapes.listRefusals();
}

/** rc.8 refusals of whole roots for the CLI (list, lineage): one look at the files found. */
export function rootRefusals(files: Iterable<string>): (s: Session) => string | undefined {
  const refusals = rc8RootRefusalsOf(files);
  return (s) => rootRefusalOf(refusals, s);
}
