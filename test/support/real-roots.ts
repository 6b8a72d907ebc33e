// Harness roots built from the real logs in test/fixtures/real-sessions, with
// the placeholders ({{sessionId}}, {{cwd}}) made concrete so that each file
// sits where its harness keeps it. Compressed copies are made by the zstd
// command line tool: a frame with the header line, then one frame per batch.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { encodeSegment } from '../../src/storage/id-encoding.js';
import { cwdFolder, rc8ProjectFolder } from '../../src/storage/layout.js';
import { REAL_DIR } from './fixtures.js';

export const PROJECT_CWD = '/work/proj';

export const realFiles = (era: 'rc8' | 'rfc0706'): string[] =>
  fs.readdirSync(REAL_DIR).filter((n) => n.includes(`__${era}__`)).sort();

/** zstd frames of `text` (the tool, with checksums): the header line alone, then batches of `linesPerFrame` lines. */
export function zstdFrames(text: string, linesPerFrame = 10): Buffer {
  const lines = text.split('\n');
  lines.pop();
  const batches = [lines.slice(0, 1)];
  for (let i = 1; i < lines.length; i += linesPerFrame) batches.push(lines.slice(i, i + linesPerFrame));
  return Buffer.concat(batches.map((b) => execFileSync('zstd', ['-q', '--check', '-c'], { input: b.join('\n') + '\n' })));
}

export interface RealRoot {
  root: string;
  /** real file name -> the file in the root */
  files: Map<string, string>;
}

/** A root of the given era from the real files; rc.8 optionally compressed. */
export function realRoot(root: string, era: 'rc8' | 'rfc0706', opts: { compressed?: boolean; linesPerFrame?: number } = {}): RealRoot {
  const files = new Map<string, string>();
  let k = 0;
  for (const name of realFiles(era)) {
    let text = fs.readFileSync(path.join(REAL_DIR, name), 'utf8');
    const header = JSON.parse(text.slice(0, text.indexOf('\n')));
    const id = header.id === '{{sessionId}}' ? `real-${era}-${k++}` : header.id;
    text = text.replaceAll('{{sessionId}}', id).replaceAll('{{cwd}}', PROJECT_CWD);
    const cwd = JSON.parse(text.slice(0, text.indexOf('\n'))).cwd as string | undefined;
    let file: string;
    if (era === 'rc8') file = path.join(root, rc8ProjectFolder(cwd), encodeSegment(id), opts.compressed ? 'session.jsonl.zstd' : 'session.jsonl');
    else file = path.join(root, cwdFolder(cwd), encodeSegment(id) + '.jsonl');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, opts.compressed ? zstdFrames(text, opts.linesPerFrame) : text);
    files.set(name, file);
  }
  return { root, files };
}

export const hasZstd = (() => {
  try {
    execFileSync('zstd', ['--version']);
    return true;
  } catch {
    return false;
  }
})();
