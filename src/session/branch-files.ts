// Two branches' files side by side: which files each changed since their
// common ancestor (its own edits only: what they share is inherited), and
// for a file both changed, whether they ended the same. Pure: no I/O.
import { createTwoFilesPatch } from 'diff';
import { editHeading, type Changes, type FileChanges } from './changes.js';
import { MAX_EDIT } from './call-effect.js';

/**
 * What the two branches did to one file:
 * - `only left`, `only right`: one branch changed it;
 * - `same text`, `different text`: both did, and the log holds both final texts;
 * - `same edits`, `different edits`: both did, a final text is not in the log,
 *   so the edits they applied are compared instead.
 */
export type FileVerdict = 'only left' | 'only right' | 'same text' | 'different text' | 'same edits' | 'different edits';

export interface FilePair {
  path: string;
  left?: FileChanges;
  right?: FileChanges;
  verdict: FileVerdict;
}

/** A branch's own files: those it edited after the events it shares. */
const ownFiles = (c: Changes): Map<string, FileChanges> => new Map(c.files.filter((f) => f.edits.some((e) => !e.inherited)).map((f) => [f.path, f]));

/** The applied part of a branch's own edits of a file (failed and unanswered ones did nothing known). */
const appliedDiffs = (f: FileChanges): string[] => f.edits.filter((e) => !e.inherited && !e.failed && !e.pending).map((e) => e.diff.slice(e.diff.indexOf('\n@@')));

/** Each file either branch changed, by path: only one side's first, then both. */
export function fileComparison(left: Changes, right: Changes): FilePair[] {
  const l = ownFiles(left);
  const r = ownFiles(right);
  const out: FilePair[] = [];
  for (const [path, f] of l) if (!r.has(path)) out.push({ path, left: f, verdict: 'only left' });
  for (const [path, f] of r) if (!l.has(path)) out.push({ path, right: f, verdict: 'only right' });
  for (const [path, f] of l) {
    const g = r.get(path);
    if (!g) continue;
    let verdict: FileVerdict;
    if (f.text !== undefined && g.text !== undefined) verdict = f.text === g.text ? 'same text' : 'different text';
    else {
      const a = appliedDiffs(f);
      const b = appliedDiffs(g);
      verdict = a.length === b.length && a.every((d, i) => d === b[i]) ? 'same edits' : 'different edits';
    }
    out.push({ path, left: f, right: g, verdict });
  }
  return out;
}

/**
 * What Enter on a file of Compare reads: the two final versions as one diff
 * when the log holds both, else each branch's own edits under its name.
 */
export function filePairText(p: FilePair, leftName: string, rightName: string): string {
  if (p.left?.text !== undefined && p.right?.text !== undefined) {
    const patch = createTwoFilesPatch(`${leftName}/${p.path}`, `${rightName}/${p.path}`, p.left.text, p.right.text, '', '', { context: 3, maxEditLength: MAX_EDIT });
    if (patch !== undefined) return `# ${p.path}: the ${leftName} version against the ${rightName} version\n${patch.replace(/^=+\n/m, '')}`;
  }
  const side = (name: string, f: FileChanges | undefined) =>
    f
      ? `# ${name}\n` +
        f.edits
          .filter((e) => !e.inherited)
          .map((e) => `${editHeading(f.path, e)}\n${e.diff}`)
          .join('\n')
      : `# ${name}: did not change ${p.path}\n`;
  return `${side(leftName, p.left)}\n${side(rightName, p.right)}`;
}
