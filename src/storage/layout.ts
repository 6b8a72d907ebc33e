// The three on-disk layouts (docs/formats.md, "Files on disk") and where a
// child file goes.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { encodeId, encodeSegment, MAX_NAME_BYTES } from './id-encoding.js';
import { generationName, generationOf } from '../session/generation-name.js';

export type Layout = 'flat' | 'v0-harness' | 'rc8-harness';


/** Session files: *.jsonl and *.jsonl.zstd. Our temp files end in .tmp; a leading '.' is a legal encoded id. */
export function isSessionFileName(name: string): boolean {
  if (name.endsWith('.tmp')) return false;
  return name.endsWith('.jsonl') || name.endsWith('.jsonl.zstd');
}

export function layoutOf(file: string): Layout {
  // asked for every session the list shows and three times more for it by its verdicts, one
  // after the other (100,000 sessions: ~90 ms of a warm start when each call cut three strings
  // and ran two patterns): the last answer is kept, and a path is read in place
  if (file === last.file) return last.layout;
  last.layout = layoutFound(file);
  last.file = file;
  return last.layout;
}
const last: { file: string | undefined; layout: Layout } = { file: undefined, layout: 'flat' };

function layoutFound(file: string): Layout {
  // the last three segments of a plain path, found from the end and tested where they are
  const a = file.lastIndexOf('/');
  const b = a > 0 ? file.lastIndexOf('/', a - 1) : -1;
  if (b >= 0 && a < file.length - 1 && !file.includes('//') && path.sep === '/') return layoutAt(file, b, a);
  // anything else (a trailing or doubled '/', another separator): path's segments, joined plainly
  const dir = path.dirname(file);
  const plain = `${path.basename(path.dirname(dir))}/${path.basename(dir)}/${path.basename(file)}`;
  return layoutAt(plain, plain.indexOf('/'), plain.lastIndexOf('/'));
}

/** The layout of `s`, whose file name follows its '/' at `a` and whose folder name follows the one at `b`. */
function layoutAt(s: string, b: number, a: number): Layout {
  // rc.8 and later: <root>/--<project>--/<id>/session[.vN].jsonl[.zstd], or under <root>/_no-cwd/<id>/
  if (s.startsWith('session', a + 1) && generationOf(s.slice(a + 1)) !== undefined) {
    const grand = s.slice(b > 0 ? s.lastIndexOf('/', b - 1) + 1 : 0, b);
    if (/^--.*--$/.test(grand) || grand === '_no-cwd') return 'rc8-harness';
  }
  return isV0Folder(s, b + 1, a) ? 'v0-harness' : 'flat';
}

/** Whether `name` is a harness project folder's: `--<project>--` (rc.8), `cwd-<hash>` (RFC era) or `_no-cwd`. */
export const isProjectFolderName = (name: string): boolean => /^--.*--$/.test(name) || isV0Folder(name, 0, name.length);

/** Whether s[from, to) names a v0 harness folder: cwd-<12 lowercase hex digits> (cwdFolder), or _no-cwd. */
function isV0Folder(s: string, from: number, to: number): boolean {
  if (to - from === 7) return s.startsWith('_no-cwd', from);
  if (to - from !== 16 || !s.startsWith('cwd-', from)) return false;
  for (let i = from + 4; i < to; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

export const cwdFolder = (cwd: string | undefined): string =>
  cwd === undefined ? '_no-cwd' : 'cwd-' + createHash('sha256').update(cwd).digest('hex').slice(0, 12);

/**
 * rc.8's project folder name for a cwd: '/', '\\' and ':' become '-' (a run of
 * them one '-'), [A-Za-z0-9._-] stay, every other UTF-16 unit (and '~') is
 * ~XXXX; leading '-' dropped ('root' when nothing is left), cut at 251
 * characters, wrapped in '--'. Lossy by design (the harness's rule).
 */
export function projectKey(cwd: string): string {
  let out = '';
  let sepRun = false;
  for (let i = 0; i < cwd.length; i++) {
    const ch = cwd[i];
    if (ch === '/' || ch === '\\' || ch === ':') {
      if (!sepRun) out += '-';
      sepRun = true;
      continue;
    }
    sepRun = false;
    out += /^[A-Za-z0-9._-]$/.test(ch) ? ch : '~' + cwd.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0');
  }
  const slug = out.replace(/^-+/, '') || 'root';
  return `--${slug.slice(0, 251)}--`;
}

/** rc.8's project folder for a session: `_no-cwd` without a cwd (an empty cwd too: the harness cannot key it). */
export const rc8ProjectFolder = (cwd: string | undefined): string => (cwd === undefined || cwd === '' ? '_no-cwd' : projectKey(cwd));

/** Where rc.8 keeps a session with this id and cwd, in the root and under the file name of `file` (its logPath). */
export const rc8PathOf = (file: string, cwd: string | undefined, id: string): string => path.join(rc8RootOf(file), rc8ProjectFolder(cwd), encodeSegment(id), path.basename(file));

/** The rc.8 root of a file in the rc.8 layout (<root>/<project>/<id>/session[.vN].jsonl). */
export const rc8RootOf = (file: string): string => path.dirname(path.dirname(path.dirname(file)));

export interface ChildTarget {
  /** the folder the file goes in (created when missing) */
  dir: string;
  file: string;
  /** where a name is kept exactly as the harness encodes it (v0/rc.8 layouts) */
  harness: boolean;
}

/**
 * Where a child of `parentFile` with id `childId` is written, in the parent's
 * layout: flat and v0 next to the parent; rc.8 in a folder of its own under
 * the project folder of its cwd (`_no-cwd` without one), as the harness would
 * place it. `compressed` picks session.jsonl.zstd in an rc.8 root, `version`
 * the generation name of the parent's format (session.vN.jsonl from v1 on).
 */
export function childPath(parentFile: string, childId: string, cwd?: string, compressed = false, version = 0): ChildTarget {
  const layout = layoutOf(parentFile);
  if (layout === 'rc8-harness') {
    // the child's generation file is the parent's format (session.v4.jsonl.zstd for a compressed v4 parent)
    const dir = path.join(rc8RootOf(parentFile), rc8ProjectFolder(cwd), encodeSegment(childId));
    return { dir, file: path.join(dir, generationName(version, compressed)), harness: true };
  }
  const dir = path.dirname(parentFile);
  if (layout === 'v0-harness') return { dir, file: path.join(dir, encodeSegment(childId) + '.jsonl'), harness: true };
  return { dir, file: path.join(dir, encodeId(childId) + '.jsonl'), harness: false };
}

/**
 * Why the harness could not use `id` as a session id where `target` puts it,
 * or undefined when it can: an empty id (its path encoding refuses it), or a
 * file name longer than the file system allows.
 */
export function invalidIdReason(id: string, target?: ChildTarget): string | undefined {
  if (typeof id !== 'string' || id.length === 0) return 'a session id must not be empty (the harness cannot name a file for it)';
  if (target?.harness) {
    const longest = Math.max(...[path.basename(target.dir), path.basename(target.file)].map((n) => Buffer.byteLength(n)));
    if (longest > MAX_NAME_BYTES)
      return `session id of ${id.length} characters encodes to a ${longest}-byte file name, over the ${MAX_NAME_BYTES}-byte limit: the harness could not write or find it`;
  }
  return undefined;
}
