// Generations: one session folder may hold a file per format generation
// (session.jsonl, session.v3.jsonl, session.v4.jsonl.zstd: a migration keeps
// the source beside its output). The harness opens the numerically highest
// canonical generation and never falls back to an older one, even when the
// highest is refused (session-persistence-jsonl; see docs/formats.md,
// "Files on disk"). So the
// index keeps exactly one session per folder: the highest generation is read
// and live; older ones are only listed (their bytes are never read, so a
// damaged older generation is ignored, as the harness ignores it).
import path from 'node:path';
import { generationOf } from '../session/generation-name.js';

/**
 * The generation files known in each folder, by folder. Nearly every folder
 * holds one, so that case is the file's path itself (a Map per session would
 * cost ~250 bytes each at 100,000 sessions); two or more: file -> generation.
 */
export type GenerationMap = Map<string, string | Map<string, number>>;

const numberOf = (file: string): number => generationOf(path.basename(file)) ?? -1;

/** The folder's generation files as a map (a single file expanded). */
function entries(gens: GenerationMap, dir: string): Map<string, number> | undefined {
  const v = gens.get(dir);
  if (v === undefined) return undefined;
  return typeof v === 'string' ? new Map([[v, numberOf(v)]]) : v;
}

/** Higher generation first; between a plain and a zstd file of one generation, by name. */
const byGeneration = (a: [string, number], b: [string, number]): number => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** The current (highest) generation of `dir`, or undefined when none is known. */
export function currentGeneration(gens: GenerationMap, dir: string): string | undefined {
  const v = gens.get(dir);
  if (typeof v === 'string') return v;
  const m = v;
  if (!m || m.size === 0) return undefined;
  let best: [string, number] | undefined;
  for (const e of m) if (!best || byGeneration(e, best) < 0) best = e;
  return best![0];
}

/** Records `file` when its name is a generation name; returns its folder's current generation (undefined: not a generation file). */
export function registerGeneration(gens: GenerationMap, file: string): string | undefined {
  const n = generationOf(path.basename(file));
  if (n === undefined) return undefined;
  const dir = path.dirname(file);
  const v = gens.get(dir);
  if (v === undefined || v === file) {
    gens.set(dir, file);
    return file;
  }
  const m = entries(gens, dir)!;
  m.set(file, n);
  gens.set(dir, m);
  return currentGeneration(gens, dir);
}

/** Forgets `file` (deleted); returns its folder's current generation afterwards (undefined when none is left). */
export function forgetGeneration(gens: GenerationMap, file: string): string | undefined {
  const dir = path.dirname(file);
  const m = entries(gens, dir);
  if (!m) return undefined;
  m.delete(file);
  if (m.size === 0) gens.delete(dir);
  else gens.set(dir, m.size === 1 ? [...m.keys()][0] : m);
  return currentGeneration(gens, dir);
}

/** The other generation files beside `file`, highest first (empty when it has none). */
export function siblingGenerations(gens: GenerationMap, file: string): string[] {
  const m = gens.get(path.dirname(file));
  if (m === undefined || typeof m === 'string') return [];
  return [...m].filter(([f]) => f !== file).sort(byGeneration).map(([f]) => f);
}

/**
 * Order for the files of one folder: generation files highest first (so a
 * scan reads the current one and only lists the older), then the rest by name.
 */
export function compareInFolder(a: string, b: string): number {
  return inFolderOrder(generationOf(path.basename(a)), generationOf(path.basename(b)), a, b);
}

/** compareInFolder on names whose generations are known */
function inFolderOrder(ga: number | undefined, gb: number | undefined, a: string, b: string): number {
  if (ga !== undefined && gb !== undefined && ga !== gb) return gb - ga;
  if (ga !== undefined && gb === undefined) return -1;
  if (gb !== undefined && ga === undefined) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `files` of one folder sorted as compareInFolder orders them, each name's
 * generation parsed once (a sort compares each file ~log2(n) times: at
 * 100,000 files the comparator's two basenames each were 45 ms of a warm
 * start). A folder without generation files is in name order.
 */
export function sortInFolder(files: string[]): string[] {
  const gens = files.map((f) => generationOf(f.slice(f.lastIndexOf(path.sep) + 1)));
  if (gens.every((g) => g === undefined)) return files.sort();
  const order = files.map((_, i) => i);
  order.sort((i, j) => inFolderOrder(gens[i], gens[j], files[i], files[j]));
  return order.map((i) => files[i]);
}

/** Is `file` a generation file the map knows? */
export function knowsGeneration(gens: GenerationMap, file: string): boolean {
  const v = gens.get(path.dirname(file));
  return v === file || (typeof v === 'object' && v.has(file));
}
