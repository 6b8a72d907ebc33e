// The documents a user and a contributor read: the README stays short, every
// relative link and anchor between them resolves, and neither they nor the
// code cite the history of the work (that is git's).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/fixtures.js';

const DOCS = ['README.md', 'CONTRIBUTING.md', ...fs.readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (rel: string) => fs.readFileSync(path.join(REPO, rel), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string) =>
  heading.trim().toLowerCase().replace(/`/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links of a document, outside code. */
function links(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/i.test(l));
}

function walk(dir: string): string[] {
  return fs.readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(`${dir}/${e.name}`) : /\.(ts|tsx|md)$/.test(e.name) ? [`${dir}/${e.name}`] : [],
  );
}

describe('the documents', () => {
  it('the README is a page a user reads in five minutes: at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('every relative link and anchor resolves', () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      for (const link of links(read(doc))) {
        const [file, anchor] = link.split('#');
        const target = file === '' ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), file));
        if (!fs.existsSync(path.join(REPO, target))) broken.push(`${doc}: ${link} (no ${target})`);
        else if (anchor !== undefined && target.endsWith('.md') && !anchors(read(target)).has(anchor)) broken.push(`${doc}: ${link} (no heading #${anchor} in ${target})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the code and the documents speak of the product, not of the work', () => {
    const files = [...walk('src'), ...walk('components'), ...DOCS];
    const cites = files.flatMap((f) =>
      read(f).split('\n').flatMap((line, i) => (/issue [0-9]|step [0-9]+|DOMAIN\.md|FORMATS\.md|DESIGN\.md/.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(cites).toEqual([]);
  });
});
