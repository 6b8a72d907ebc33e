// The three on-disk layouts (DOMAIN.md §4) and where a child file goes.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { encodeId } from './id-encoding.js';

export type Layout = 'flat' | 'v0-harness' | 'rc8-harness';

const RC8_NAME = /^session\.jsonl(\.zstd)?$/;

/** Session files: *.jsonl and *.jsonl.zstd. Our temp files end in .tmp; a leading '.' is a legal encoded id. */
export function isSessionFileName(name: string): boolean {
  if (name.endsWith('.tmp')) return false;
  return name.endsWith('.jsonl') || name.endsWith('.jsonl.zstd');
}

export function layoutOf(file: string): Layout {
  const base = path.basename(file);
  const dir = path.basename(path.dirname(file));
  const grand = path.basename(path.dirname(path.dirname(file)));
  if (RC8_NAME.test(base) && /^--.*--$/.test(grand)) return 'rc8-harness';
  if (/^cwd-[0-9a-f]{12}$/.test(dir) || dir === '_no-cwd') return 'v0-harness';
  return 'flat';
}

export const cwdFolder = (cwd: string | undefined): string =>
  cwd === undefined ? '_no-cwd' : 'cwd-' + createHash('sha256').update(cwd).digest('hex').slice(0, 12);

/**
 * Where a child of `parentFile` with id `childId` is written: the parent's
 * folder, in the parent's layout. Returns the folder to create (rc8 puts each
 * session in a folder of its own) and the final file path.
 */
export function childPath(parentFile: string, childId: string): { dir: string; file: string } {
  const enc = encodeId(childId);
  if (layoutOf(parentFile) === 'rc8-harness') {
    const dir = path.join(path.dirname(path.dirname(parentFile)), enc);
    return { dir, file: path.join(dir, 'session.jsonl') };
  }
  const dir = path.dirname(parentFile);
  return { dir, file: path.join(dir, enc + '.jsonl') };
}
