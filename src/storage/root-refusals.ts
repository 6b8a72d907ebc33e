// rc.8 refuses to list a whole root for one misplaced session: that verdict
// reads the root's folders, so it is looked up once per root and shared by
// the CLI (list, lineage) and the browser (per store size).
import type { Session } from '../session/session.js';
import { rc8RootRefusal } from './disk-persistence.js';
import { layoutOf, rc8RootOf } from './layout.js';

/** rc.8 refusals of whole roots, looked up once per root (list, lineage, the TUI per store size). */
export function rootRefusals(): (s: Session) => string | undefined {
  const cache = new Map<string, string | undefined>();
  return (s) => {
    if (!s.file || layoutOf(s.file) !== 'rc8-harness') return undefined;
    const root = rc8RootOf(s.file);
    if (!cache.has(root)) cache.set(root, rc8RootRefusal(root));
    return cache.get(root);
  };
}
