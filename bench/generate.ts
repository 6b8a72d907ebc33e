/**
 * Deterministic benchmark corpus generator for dsh session logs.
 *
 * Writes realistic session files in the harness layouts (docs/formats.md,
 * "Files on disk"):
 *  - v0 harness root: `<dir>/cwd-<sha256(cwd)[0..12]>/<encoded-id>.jsonl` (or `_no-cwd/`)
 *  - rc8 harness root: `<dir>/--<project>--/<encoded-id>/session.jsonl`, with packed
 *    chunk rows (`text-chunks`, `reasoning-chunks`, `tool-call-chunks`).
 *
 * Everything is derived from a seeded PRNG and a fixed base time, so two runs with the
 * same spec produce byte-identical trees. A `corpus.json` manifest carries the spec hash;
 * a re-run with the same spec reuses the existing corpus.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const GENERATOR_VERSION = 1;

export interface CorpusSpec {
  /** Free-form label (kept in the manifest; part of the hash). */
  name: string;
  /** PRNG seed. */
  seed: number;
  /** Number of regular sessions (the big session, if any, comes on top). */
  sessions: number;
  /** Target mean number of events per regular session (fork seeds included). */
  meanEventsPerSession: number;
  /** Hard cap on turns per regular session (e.g. "a few turns" for B). */
  maxTurns?: number;
  /** Minimum number of turns per regular root session (default 1). */
  minTurns?: number;
  /** Streaming granularity: tokens merged into one delta (default 1 = one token per delta). */
  tokensPerDelta?: number;
  /** Scales the number of streaming deltas per block (1 = realistic long answers). */
  deltaScale: number;
  /** Mean size of a tool output in bytes. */
  toolOutputBytes: number;
  /** Max tool rounds (steps with tool calls) per turn. */
  maxToolRounds: number;
  /** Extra session with exactly this many events (v0 layout). */
  bigEvents?: number;
  /** Fraction of root sessions written in the rc8 era / layout. */
  rc8Fraction: number;
  /** Fraction of sessions that are fork children (true seeds). */
  forkFraction: number;
  /** Fraction of sessions that are spawned subagent children (no seed). */
  spawnFraction: number;
  /** Fraction of sessions left inside an open turn (last event tool/call). */
  openFraction: number;
  /** Fraction of v0 root sessions without cwd (`_no-cwd/`). */
  noCwdFraction: number;
  /** Fraction of sessions with unusual ids (spaces, `/`, unicode, `~`, `..`). */
  oddIdFraction: number;
}

export interface CorpusInfo {
  dir: string;
  sessions: number;
  events: number;
  bytes: number;
  bigFile?: string;
  bigEvents?: number;
  files: number;
  /** Breakdown, informative only. */
  stats?: CorpusStats;
}

export interface CorpusStats {
  v0: number;
  rc8: number;
  forks: number;
  spawns: number;
  open: number;
  lines: number;
  specHash: string;
}

const common = {
  rc8Fraction: 0.2,
  forkFraction: 0.1,
  spawnFraction: 0.05,
  openFraction: 0.02,
  noCwdFraction: 0.02,
  oddIdFraction: 0.01,
};

export const PRESETS: Record<'A' | 'B' | 'quick', CorpusSpec> = {
  A: {
    name: 'A',
    seed: 0xa11ce,
    sessions: 1000,
    meanEventsPerSession: 520,
    deltaScale: 1,
    toolOutputBytes: 5600,
    maxToolRounds: 4,
    bigEvents: 50_000,
    ...common,
  },
  B: {
    name: 'B',
    seed: 0xb0b,
    sessions: 10_000,
    meanEventsPerSession: 80,
    minTurns: 2,
    maxTurns: 3,
    tokensPerDelta: 5,
    deltaScale: 0.2,
    toolOutputBytes: 500,
    maxToolRounds: 1,
    ...common,
  },
  quick: {
    name: 'quick',
    seed: 0x9c1,
    sessions: 50,
    meanEventsPerSession: 100,
    maxTurns: 3,
    deltaScale: 0.4,
    toolOutputBytes: 1000,
    maxToolRounds: 3,
    bigEvents: 5_000,
    ...common,
    forkFraction: 0.2,
    spawnFraction: 0.1,
    openFraction: 0.08,
    noCwdFraction: 0.05,
    oddIdFraction: 0.08,
  },
};

export const BASE_TIME = 1_782_000_000_000; // fixed: 2026-06-21T...

// ---------------------------------------------------------------- utilities

export function encodeId(id: string): string {
  if (id === '.') return '~002E';
  if (id === '..') return '~002E~002E';
  let out = '';
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    const keep =
      (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ||
      c === 0x2e || c === 0x5f || c === 0x2d;
    out += keep ? id[i] : '~' + c.toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

export function cwdDirName(cwd: string | undefined): string {
  if (cwd === undefined) return '_no-cwd';
  return 'cwd-' + createHash('sha256').update(cwd).digest('hex').slice(0, 12);
}

export function rc8ProjectDirName(cwd: string): string {
  return '--' + cwd.replace(/^\/+/, '').replace(/[^A-Za-z0-9._-]/g, '-') + '--';
}

function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(stableStringify).join(',') + ']';
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return '{' + Object.keys(o).sort().filter((k) => o[k] !== undefined)
      .map((k) => JSON.stringify(k) + ':' + stableStringify(o[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

export function specHash(spec: CorpusSpec): string {
  return createHash('sha256')
    .update(`v${GENERATOR_VERSION}:` + stableStringify(spec))
    .digest('hex')
    .slice(0, 16);
}

/** mulberry32 */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** integer in [lo, hi] */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(a: readonly T[]): T {
    return a[Math.floor(this.next() * a.length)];
  }
  /** exponential with mean 1 */
  exp(): number {
    return -Math.log(1 - this.next());
  }
  hex(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += HEX[Math.floor(this.next() * 16)];
    return s;
  }
  alnum(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += ALNUM[Math.floor(this.next() * ALNUM.length)];
    return s;
  }
  uuid(): string {
    const v = HEX[8 + Math.floor(this.next() * 4)];
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${v}${this.hex(3)}-${this.hex(12)}`;
  }
}
const HEX = '0123456789abcdef';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// ---------------------------------------------------------------- content

const IDENTS = [
  'session', 'store', 'parser', 'loader', 'index', 'tree', 'lineage', 'fork', 'boundary', 'event',
  'header', 'reader', 'writer', 'cache', 'config', 'router', 'handler', 'client', 'server', 'queue',
  'buffer', 'token', 'schema', 'record', 'view', 'panel', 'layout', 'render', 'state', 'reducer',
  'metrics', 'retry', 'auth', 'payload', 'snapshot', 'cursor', 'stream', 'watcher', 'registry', 'plugin',
];
const VERBS = [
  'add', 'fix', 'refactor', 'rename', 'extract', 'inline', 'test', 'document', 'optimize', 'remove',
  'split', 'validate', 'migrate', 'simplify', 'cache', 'parse', 'load', 'resolve', 'normalize', 'merge',
];
const PAST: Record<string, string> = {
  add: 'added', fix: 'fixed', refactor: 'refactored', rename: 'renamed', extract: 'extracted',
  inline: 'inlined', test: 'tested', document: 'documented', optimize: 'optimized', remove: 'removed',
  split: 'split', validate: 'validated', migrate: 'migrated', simplify: 'simplified', cache: 'cached',
  parse: 'parsed', load: 'loaded', resolve: 'resolved', normalize: 'normalized', merge: 'merged',
};
const KINDS = ['module', 'function', 'class', 'hook', 'component', 'helper', 'test suite', 'type'];
const DIRS = ['src', 'src/session', 'src/storage', 'src/view', 'src/util', 'lib', 'packages/core/src', 'test'];
const EDGES = [
  'empty input', 'a trailing newline', 'unicode ids', 'concurrent writers', 'a missing file',
  'very large logs', 'a partial last line', 'duplicate keys', 'negative offsets', 'timeouts',
];
const ERRORS = [
  "TypeError: Cannot read properties of undefined (reading 'length')",
  'AssertionError: expected 3 to deeply equal 4',
  'Error: ENOENT: no such file or directory',
  'SyntaxError: Unexpected token } in JSON at position 1832',
  "TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.",
  'RangeError: Maximum call stack size exceeded',
];
const WORDS = [
  'the', 'a', 'this', 'that', 'it', 'we', 'should', 'need', 'to', 'check', 'whether', 'and', 'then',
  'first', 'because', 'so', 'value', 'call', 'result', 'file', 'line', 'function', 'return', 'error',
  'test', 'case', 'probably', 'also', 'when', 'before', 'after', 'which', 'means', 'instead', 'of',
  'current', 'implementation', 'handles', 'missing', 'path', 'input', 'output', 'type', 'field',
];

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

class Content {
  constructor(private r: Rng) {}

  ident(): string {
    return this.r.pick(IDENTS);
  }
  fnName(): string {
    return this.r.pick(VERBS) + cap(this.r.pick(IDENTS)) + (this.r.chance(0.3) ? cap(this.r.pick(IDENTS)) : '');
  }
  file(test = false): string {
    const name = this.r.pick(IDENTS) + (this.r.chance(0.3) ? '-' + this.r.pick(IDENTS) : '');
    return test ? `test/${name}.test.ts` : `${this.r.pick(DIRS)}/${name}.ts`;
  }

  prompt(): string {
    const r = this.r;
    switch (r.int(0, 5)) {
      case 0:
        return `Can you ${r.pick(VERBS)} the ${this.ident()} ${r.pick(KINDS)} in \`${this.file()}\`? Make sure it still handles ${r.pick(EDGES)}.`;
      case 1:
        return `The tests in \`${this.file(true)}\` are failing with \`${r.pick(ERRORS)}\`. Please investigate and fix the root cause, not the test.`;
      case 2:
        return `Add a \`${this.fnName()}\` function to \`${this.file()}\` that ${r.pick(VERBS)}s the ${this.ident()} and returns the ${this.ident()} ${r.pick(KINDS)}. Add tests.`;
      case 3:
        return `Explain how \`${this.fnName()}\` in \`${this.file()}\` works and whether it handles ${r.pick(EDGES)}.`;
      case 4:
        return `Run the test suite and fix whatever is broken. Keep the diff small.`;
      default:
        return `Please ${r.pick(VERBS)} \`${this.file()}\`: the ${this.ident()} logic is duplicated in \`${this.file()}\`. ${this.sentence()}`;
    }
  }

  sentence(): string {
    const r = this.r;
    switch (r.int(0, 7)) {
      case 0:
        return `The user wants me to ${r.pick(VERBS)} the ${this.ident()} ${r.pick(KINDS)}.`;
      case 1:
        return `Let me look at \`${this.file()}\` first to see how \`${this.fnName()}\` is used.`;
      case 2:
        return `I should run the tests afterwards to confirm nothing else breaks.`;
      case 3:
        return `The error suggests that \`${this.ident()}\` is undefined when ${r.pick(EDGES)} occurs.`;
      case 4:
        return `I'll ${r.pick(VERBS)} the ${this.ident()} ${r.pick(KINDS)} and then verify with \`npm test\`.`;
      case 5:
        return `Looking at the output, ${r.int(1, 40)} tests pass and ${r.int(1, 3)} fail in \`${this.file(true)}\`.`;
      case 6: {
        const n = r.int(6, 16);
        const w: string[] = [];
        for (let i = 0; i < n; i++) w.push(r.pick(WORDS));
        return cap(w.join(' ')) + '.';
      }
      default:
        return `So the fix is to ${r.pick(VERBS)} \`${this.fnName()}\` before the ${this.ident()} is written.`;
    }
  }

  reasoning(scale: number): string {
    const n = Math.max(1, Math.round(this.r.int(2, 7) * scale));
    const s: string[] = [];
    for (let i = 0; i < n; i++) s.push(this.sentence());
    return s.join(' ');
  }

  answer(scale: number): string {
    const r = this.r;
    const verb = r.pick(VERBS);
    const parts = [`I ${PAST[verb] ?? verb} the \`${this.fnName()}\` ${r.pick(KINDS)} in \`${this.file()}\`.`];
    const bullets = Math.max(1, Math.round(r.int(1, 5) * scale));
    if (scale >= 0.5 || r.chance(0.3)) {
      parts.push('');
      for (let i = 0; i < bullets; i++) parts.push(`- ${this.sentence()}`);
    }
    if (r.chance(0.4 * Math.min(1, scale))) {
      parts.push('', '```ts');
      const lines = Math.max(2, Math.round(r.int(3, 12) * scale));
      for (let i = 0; i < lines; i++) parts.push(this.codeLine());
      parts.push('```');
    }
    parts.push('', `All ${r.int(4, 180)} tests pass.`);
    return parts.join('\n');
  }

  codeLine(): string {
    const r = this.r;
    const ind = '  '.repeat(r.int(0, 3));
    const a = this.ident();
    const b = this.ident();
    switch (r.int(0, 11)) {
      case 0:
        return `import { ${this.fnName()} } from './${a}.js';`;
      case 1:
        return `${ind}const ${a} = ${this.fnName()}(${b}, { ${this.ident()}: ${r.int(0, 999)} });`;
      case 2:
        return `${ind}if (${a}.${b} === undefined) return null;`;
      case 3:
        return `export function ${this.fnName()}(${a}: ${cap(b)}): ${cap(this.ident())} {`;
      case 4:
        return `${ind}}`;
      case 5:
        return `${ind}for (const ${a} of ${b}s) {`;
      case 6:
        return `${ind}// ${this.sentence()}`;
      case 7:
        return `${ind}throw new Error(\`${a} ${b} failed: \${${a}.message}\`);`;
      case 8:
        return `export interface ${cap(a)}${cap(b)} { ${this.ident()}: string; ${this.ident()}?: number }`;
      case 9:
        return `${ind}${a}.${b}.push(await ${this.fnName()}(${this.ident()}));`;
      case 10:
        return '';
      default:
        return `${ind}return { ...${a}, ${b}: ${this.ident()}.length };`;
    }
  }

  /** A tool call (name + arguments object) and its output text. */
  toolCall(outBytes: number, scale = 1): { name: string; args: Record<string, unknown>; output: string; isError: boolean } {
    const r = this.r;
    const k = r.int(0, 9);
    if (k <= 3) {
      const path = this.file();
      const lines: string[] = [];
      let size = 0;
      for (let n = 1; size < outBytes; n++) {
        const l = `${n}: ${this.codeLine()}`;
        lines.push(l);
        size += l.length + 1;
      }
      return {
        name: 'read',
        args: { file_path: path },
        output: `<path>${path}</path>\n<type>file</type>\n<content>\n${lines.join('\n')}\n\n(End of file - total ${lines.length} lines)\n</content>`,
        isError: false,
      };
    }
    if (k <= 6) {
      const test = r.chance(0.6);
      const tf = this.file(true);
      const command = test ? `npx vitest run ${tf}` : r.pick(['npx tsc --noEmit', 'git diff --stat', `rg -n '${this.ident()}' src`, 'ls -la src']);
      const out: string[] = [];
      let size = 0;
      let fail = false;
      if (test) out.push('', ` RUN  v4.1.12 /home/dev/src/project`, '');
      while (size < outBytes) {
        let l: string;
        if (test) {
          const ok = r.chance(0.9);
          fail ||= !ok;
          l = ok
            ? ` ✓ ${this.file(true)} > ${this.ident()} > ${this.sentence().slice(0, 60)} ${r.int(1, 90)}ms`
            : ` × ${this.file(true)} > ${this.ident()} > ${this.sentence().slice(0, 60)}\n   → ${r.pick(ERRORS)}`;
        } else if (command.startsWith('rg')) {
          l = `${this.file()}:${r.int(1, 400)}:${this.codeLine()}`;
        } else if (command.startsWith('ls')) {
          l = `-rw-r--r--  1 dev dev ${String(r.int(100, 99999)).padStart(6)} Jun ${r.int(1, 30)} 1${r.int(0, 9)}:${r.int(10, 59)} ${this.ident()}.ts`;
        } else if (command.startsWith('git')) {
          l = ` ${this.file().padEnd(40)} | ${r.int(1, 90)} ${'+'.repeat(r.int(1, 20))}${'-'.repeat(r.int(0, 10))}`;
        } else {
          l = `${this.file()}(${r.int(1, 300)},${r.int(1, 60)}): error ${r.pick(ERRORS)}`;
        }
        out.push(l);
        size += l.length + 1;
      }
      if (test) out.push('', ` Test Files  ${fail ? '1 failed | ' : ''}${r.int(3, 40)} passed`, `      Tests  ${r.int(20, 400)} passed`, `   Duration  ${r.int(1, 9)}.${r.int(10, 99)}s`);
      return { name: 'bash', args: { command, description: `Run ${command.split(' ')[0]}` }, output: out.join('\n'), isError: false };
    }
    if (k <= 8) {
      const path = this.file();
      const oldS = this.codeLine().trim() || 'return null;';
      const newS = this.codeLine().trim() || 'return undefined;';
      return {
        name: 'edit',
        args: { file_path: path, old_string: oldS, new_string: newS },
        output: r.chance(0.08) ? `Error: old_string not found in ${path}` : `Edit applied successfully to ${path}.`,
        isError: false,
      };
    }
    const path = this.file(true);
    const lines: string[] = [];
    const n = Math.max(3, Math.round(r.int(8, 40) * scale));
    for (let i = 0; i < n; i++) lines.push(this.codeLine());
    return { name: 'write', args: { file_path: path, content: lines.join('\n') }, output: `Wrote ${n} lines to ${path}`, isError: false };
  }
}

/** Split a text into LLM-like streaming deltas. */
function tokenize(r: Rng, text: string): string[] {
  const raw = text.match(/\s*\S+|\s+/g) ?? [text];
  const out: string[] = [];
  for (const t of raw) {
    if (t.length > 6 && r.chance(0.35)) {
      const cut = r.int(2, t.length - 2);
      out.push(t.slice(0, cut), t.slice(cut));
    } else out.push(t);
  }
  return out;
}

/** Tool-call argument deltas, like the real ones: "", "{", "\"", "command", "\"", ": ", … */
function tokenizeArgs(r: Rng, args: string): string[] {
  const raw = args.match(/[{}",:]\s?|[^{}",:]{1,12}/g) ?? [args];
  const out: string[] = [''];
  // merge tiny pieces a bit so long arguments do not explode
  let acc = '';
  for (const t of raw) {
    acc += t;
    if (acc.length >= 3 || r.chance(0.5)) {
      out.push(acc);
      acc = '';
    }
  }
  if (acc) out.push(acc);
  return out;
}

// ---------------------------------------------------------------- session builder

type Era = 'v0' | 'rc8';

interface Boundary {
  /** index of the turn/end line */
  line: number;
  /** number of events through that line */
  events: number;
  time: number;
  turn: number;
}

type Reason = 'completed' | 'aborted' | 'error' | 'max-tokens' | 'rejected' | 'disposed' | 'interrupted';

function pickReason(r: Rng): Reason {
  const x = r.next();
  if (x < 0.86) return 'completed';
  if (x < 0.9) return 'aborted';
  if (x < 0.93) return 'error';
  if (x < 0.955) return 'max-tokens';
  if (x < 0.97) return 'rejected';
  if (x < 0.98) return 'disposed';
  return 'interrupted';
}

interface Call {
  id: string;
  name: string;
  args: string;
  output: string;
  isError: boolean;
}

const J = JSON.stringify;

class SessionBuilder {
  lines: string[] = [];
  seq = 0;
  turn = 0;
  boundaries: Boundary[] = [];
  /** rc8: the first turn writes the runtime-context snapshot, title and request header. */
  firstTurnDone = false;

  constructor(
    readonly era: Era,
    private r: Rng,
    private c: Content,
    public time: number,
    private spec: CorpusSpec,
  ) {}

  private tick(lo: number, hi: number): void {
    this.time += this.r.int(lo, hi);
  }
  private dt(): number {
    const x = this.r.next();
    return x < 0.55 ? 0 : x < 0.75 ? 1 : x < 0.98 ? this.r.int(24, 32) : this.r.int(50, 400);
  }

  ev(type: string, data: string, extra = ''): number {
    const seq = this.seq++;
    this.lines.push(`{"type":"${type}","seq":${seq},"time":${this.time},"data":${data}${extra}}`);
    return seq;
  }

  private msgId(): string {
    return this.r.uuid();
  }

  private callId(): string {
    return `call_0${this.r.int(0, 3)}_${this.r.alnum(20)}${this.r.int(1000, 9999)}`;
  }

  private chunk(turn: number, step: number, chunk: string): number {
    this.time += this.dt();
    return this.ev('assistant/chunk', `{"turn":${turn},"step":${step},"chunk":${chunk}}`);
  }

  /** A run of deltas: single assistant/chunk events (v0) or, mostly, one packed row (rc8). */
  private deltas(kind: 'text' | 'reasoning' | 'tool-call', turn: number, step: number, index: number, pieces: string[], call?: Call): void {
    if (pieces.length === 0) return;
    const tpd = this.spec.tokensPerDelta ?? 1;
    if (tpd > 1 && pieces.length > 1) {
      const merged: string[] = [];
      for (let i = 0; i < pieces.length; i += tpd) merged.push(pieces.slice(i, i + tpd).join(''));
      pieces = merged;
    }
    if (this.era === 'rc8' && pieces.length >= 2 && this.r.chance(0.9)) {
      this.time += this.dt();
      const seq0 = this.seq;
      const time0 = this.time;
      const dts: number[] = [];
      for (let i = 1; i < pieces.length; i++) {
        const d = this.dt();
        dts.push(d);
        this.time += d;
      }
      this.seq += pieces.length;
      const body =
        kind === 'tool-call'
          ? `"dt":${J(dts)},"id":${J(call!.id)},"name":${J(call!.name)},"args":${J(pieces)}`
          : `"dt":${J(dts)},"texts":${J(pieces)}`;
      this.lines.push(`{"type":"${kind}-chunks","seq0":${seq0},"time0":${time0},"data":{"turn":${turn},"step":${step},"index":${index},${body}}}`);
      return;
    }
    for (const p of pieces) {
      if (kind === 'tool-call') {
        this.chunk(turn, step, `{"type":"tool-call-delta","index":${index},"id":${J(call!.id)},"name":${J(call!.name)},"argumentsDelta":${J(p)}}`);
      } else {
        this.chunk(turn, step, `{"type":"${kind}-delta","index":${index},"text":${J(p)}}`);
      }
    }
  }

  private toolOut(): number {
    const m = this.spec.toolOutputBytes;
    return Math.max(120, Math.min(m * 6, Math.round(m * (0.15 + 0.85 * this.r.exp()))));
  }

  private makeCall(): Call {
    const t = this.c.toolCall(this.toolOut(), this.spec.deltaScale);
    return { id: this.callId(), name: t.name, args: J(t.args), output: t.output, isError: t.isError };
  }

  private userContent(text: string): string {
    return `[{"type":"text","text":${J(text)}}]`;
  }

  /** Prelude of a turn up to (and including) step/start of step 1. */
  private turnPrelude(turn: number, prompt: string): void {
    this.tick(4_000, 600_000);
    if (this.era === 'v0') {
      this.ev('turn/start', `{"turn":${turn},"trigger":{"kind":"message","source":{"kind":"user"}}}`);
      this.tick(0, 2);
      this.ev('user/message', `{"content":${this.userContent(prompt)},"source":{"kind":"user"}}`, ',"surfaceOp":"append"');
      this.tick(0, 2);
      this.ev('step/start', `{"turn":${turn},"step":1}`);
      return;
    }
    const id = this.msgId();
    const msg = `{"content":${this.userContent(prompt)},"source":{"kind":"user"},"role":"user","id":"${id}"}`;
    this.ev('agent/inbox/spliced', `{"target":"next-turn","start":0,"inserted":[${msg}]}`);
    this.tick(0, 3);
    this.ev('turn/start', `{"turn":${turn}}`);
    this.ev('agent/inbox/spliced', `{"target":"next-turn","start":0,"removedCount":1,"inserted":[]}`);
    this.ev('step/start', `{"turn":${turn},"step":1}`);
    this.ev('user/message', msg, ',"surfaceOp":"append"');
    if (!this.firstTurnDone) {
      const ctx = 'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\nCurrent DSH file policy: workspace-write. The DSH file sandbox restricts file modifications to the workspace.';
      this.ev(
        'user/message',
        `{"content":${this.userContent(ctx)},"source":{"kind":"plugin","plugin":"@deepseek-ai/dsh-system-prompt","form":"snapshot","sections":[{"name":"sandbox:policy","text":"Current DSH file policy: workspace-write."}]},"role":"user","id":"${this.msgId()}"}`,
        ',"surfaceOp":"append"',
      );
      this.ev('session/title', `{"title":${J(prompt.slice(0, 24))},"messageSeqs":[${this.seq - 2}],"source":{"kind":"fallback"}}`);
      this.ev('request/header', `{"header":{"config":{"provider":"deepseek-official","model":"deepseek-v4-flash"},"system":"You are dsh, a coding agent.","tools":["bash","read","edit","write","grep"]},"reason":"initial"}`);
    }
    this.ev('request/context', `{"provider":"deepseek-official","model":"deepseek-v4-flash"}`);
  }

  private stepStart(turn: number, step: number): void {
    this.tick(0, 3);
    this.ev('step/start', `{"turn":${turn},"step":${step}}`);
    if (this.era === 'rc8') this.ev('request/context', `{"provider":"deepseek-official","model":"deepseek-v4-flash"}`);
  }

  private turnEnd(turn: number, reason: string): void {
    this.tick(0, 2);
    this.ev('turn/end', `{"turn":${turn},"reason":${reason}}`);
    this.boundaries.push({ line: this.lines.length - 1, events: this.seq, time: this.time, turn });
    this.firstTurnDone = true;
  }

  /**
   * Model output of one step: chunks, usage, finish, assistant/message. Returns nothing;
   * tool calls/results are emitted by the caller.
   */
  private modelOutput(turn: number, step: number, o: { reasoning?: string; text?: string; textPieces?: string[]; calls: Call[]; finish: string }): void {
    this.tick(300, 4_000); // time to first token
    const first = this.seq;
    const blocks: string[] = [];
    let index = 0;
    if (o.reasoning !== undefined) {
      this.chunk(turn, step, `{"type":"block-start","index":${index},"blockType":"reasoning"}`);
      this.deltas('reasoning', turn, step, index, tokenize(this.r, o.reasoning));
      blocks.push(`{"type":"reasoning","text":${J(o.reasoning)}}`);
      index++;
    }
    const ends: string[] = [];
    if (o.reasoning !== undefined) ends.push(`{"type":"block-end","index":0,"block":${blocks[0]}}`);
    if (o.text !== undefined || o.textPieces) {
      const pieces = o.textPieces ?? tokenize(this.r, o.text!);
      const text = o.textPieces ? o.textPieces.join('') : o.text!;
      this.chunk(turn, step, `{"type":"block-start","index":${index},"blockType":"text"}`);
      this.deltas('text', turn, step, index, pieces);
      const b = `{"type":"text","text":${J(text)}}`;
      blocks.push(b);
      ends.push(`{"type":"block-end","index":${index},"block":${b}}`);
      index++;
    }
    for (const call of o.calls) {
      this.chunk(turn, step, `{"type":"block-start","index":${index},"blockType":"tool-call"}`);
      this.deltas('tool-call', turn, step, index, tokenizeArgs(this.r, call.args), call);
      const b = `{"type":"tool-call","id":${J(call.id)},"name":${J(call.name)},"arguments":${J(call.args)}}`;
      blocks.push(b);
      ends.push(`{"type":"block-end","index":${index},"block":${b}}`);
      index++;
    }
    for (const e of ends) this.chunk(turn, step, e);
    const out = this.seq - first; // rough token count proxy
    const usage = `{"inputTokens":${this.r.int(800, 60_000)},"outputTokens":${out + this.r.int(0, 20)},"cacheReadTokens":${this.r.int(0, 40) * 128},"reasoningTokens":${o.reasoning ? this.r.int(10, out + 10) : 0}}`;
    this.chunk(turn, step, `{"type":"usage","usage":${usage}}`);
    this.chunk(turn, step, `{"type":"finish","reason":{"kind":"${o.finish}"}}`);
    const seqs: number[] = [];
    for (let s = first; s < this.seq; s++) seqs.push(s);
    const content = `[${blocks.join(',')}]`;
    const data =
      this.era === 'v0'
        ? `{"turn":${turn},"step":${step},"content":${content},"usage":${usage}}`
        : `{"turn":${turn},"step":${step},"message":{"role":"assistant","content":${content},"source":{"kind":"model","provider":"deepseek-official","model":"deepseek-v4-flash"},"id":"${this.msgId()}"},"usage":${usage}}`;
    this.ev('assistant/message', data, `,"sourceEventSeqs":[${seqs.join(',')}],"surfaceOp":"append"`);
  }

  private toolCallEv(turn: number, step: number, call: Call): number {
    this.tick(0, 2);
    return this.ev('tool/call', `{"turn":${turn},"step":${step},"callId":${J(call.id)},"name":${J(call.name)},"arguments":${J(call.args)}}`);
  }

  private toolResultEv(turn: number, step: number, call: Call, callSeq: number, text: string, isError: boolean, v0error = ''): void {
    const inner = `[{"type":"text","text":${J(text)}}]`;
    const data =
      this.era === 'v0'
        ? `{"turn":${turn},"step":${step},"callId":${J(call.id)},"content":${inner},"isError":${isError}${v0error}}`
        : `{"turn":${turn},"step":${step},"message":{"source":{"kind":"tool","callId":${J(call.id)}},"content":[{"type":"tool-result","toolCallId":${J(call.id)},"content":${inner},"isError":${isError}}],"role":"user","id":"${this.msgId()}"}${v0error}}`;
    this.ev('tool/result', data, `,"sourceEventSeqs":[${callSeq}],"surfaceOp":"append"`);
  }

  private hooks(turn: number, point: string, matcher: string): void {
    const h = `claude-code:${point}:1`;
    this.ev('hook/invoked', `{"turn":${turn},"point":"${point}","dialect":"claude-code","handlerId":"${h}","matcher":${J(matcher)}}`);
    this.tick(2, 40);
    this.ev('hook/result', `{"turn":${turn},"point":"${point}","handlerId":"${h}","decision":"pass","exitCode":0,"durationMs":${(this.r.int(100, 40_000) / 1000).toFixed(3)}}`);
  }

  /** Runs the calls of one step (calls then results). */
  private runTools(turn: number, step: number, calls: Call[]): void {
    const parallel = calls.length > 1 && this.r.chance(0.5);
    const seqs: number[] = [];
    if (parallel) for (const c of calls) seqs.push(this.toolCallEv(turn, step, c));
    calls.forEach((c, i) => {
      const cs = parallel ? seqs[i] : this.toolCallEv(turn, step, c);
      if (this.r.chance(0.1)) this.hooks(turn, 'PostToolUse', c.name);
      this.tick(15, c.name === 'bash' ? 8_000 : 200);
      this.toolResultEv(turn, step, c, cs, c.output, c.isError);
    });
    if (this.era === 'v0' && this.r.chance(0.04)) {
      this.ev('context/message', `{"content":[{"type":"text","text":"Note: command output has been verified against the audit log."}],"source":{"kind":"plugin","plugin":"hooks-claude"}}`, ',"surfaceOp":"append"');
    }
    if (this.r.chance(0.05)) {
      const todos = [];
      for (let i = 0, n = this.r.int(2, 6); i < n; i++) todos.push({ content: this.c.sentence(), status: this.r.pick(['pending', 'in_progress', 'completed']) });
      this.ev('todo/write', J({ todos }));
    }
  }

  /** One regular turn. `open` leaves it open after a tool/call. */
  turnOnce(reason: Reason, open: boolean): void {
    const turn = ++this.turn;
    const r = this.r;
    const scale = this.spec.deltaScale;
    const prompt = this.c.prompt();
    if (reason === 'rejected' && !open) {
      this.tick(4_000, 600_000);
      if (this.era === 'v0') this.ev('turn/start', `{"turn":${turn},"trigger":{"kind":"message","source":{"kind":"user"}}}`);
      else this.ev('turn/start', `{"turn":${turn}}`);
      const h = 'claude-code:UserPromptSubmit:1';
      this.ev('hook/invoked', `{"turn":${turn},"point":"UserPromptSubmit","dialect":"claude-code","handlerId":"${h}"}`);
      this.tick(1, 30);
      this.ev('hook/result', `{"turn":${turn},"point":"UserPromptSubmit","handlerId":"${h}","decision":"block","exitCode":2,"stderrSummary":"blocked by policy hook","durationMs":${r.int(1, 30)}}`);
      this.ev('prompt/blocked', `{"content":${this.userContent(prompt)},"source":{"kind":"user"},"reason":"blocked by policy hook"}`);
      this.turnEnd(turn, `{"kind":"rejected","reason":"blocked by policy hook"}`);
      return;
    }
    this.turnPrelude(turn, prompt);
    const rounds = Math.min(this.spec.maxToolRounds, r.pick([0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5]));
    let step = 1;
    for (let k = 0; k < rounds || open; k++) {
      if (step > 1) this.stepStart(turn, step);
      const calls: Call[] = [this.makeCall()];
      if (r.chance(0.2)) calls.push(this.makeCall());
      const lastRound = k === rounds - 1 || (open && k >= rounds - 1);
      this.modelOutput(turn, step, {
        reasoning: r.chance(0.85) ? this.c.reasoning(scale) : undefined,
        text: r.chance(0.25) ? this.c.sentence() : undefined,
        calls,
        finish: 'tool-calls',
      });
      if (open && lastRound) {
        // a writer still working: the last event is the (first) tool/call
        this.toolCallEv(turn, step, calls[0]);
        return;
      }
      if (reason === 'interrupted' && lastRound) {
        for (const c of calls) {
          const cs = this.toolCallEv(turn, step, c);
          this.toolResultEv(turn, step, c, cs, 'Error: tool outcome unknown: the session was interrupted before the tool finished', true);
        }
        this.ev('step/end', `{"turn":${turn},"step":${step}}`);
        this.turnEnd(turn, `{"kind":"interrupted"}`);
        return;
      }
      this.runTools(turn, step, calls);
      this.ev('step/end', `{"turn":${turn},"step":${step}}`);
      step++;
    }
    if (step > 1) this.stepStart(turn, step);
    if (reason === 'interrupted') {
      // no tool round happened: interrupted while streaming
      this.chunk(turn, step, `{"type":"block-start","index":0,"blockType":"text"}`);
      this.deltas('text', turn, step, 0, tokenize(r, this.c.sentence()));
      this.ev('step/end', `{"turn":${turn},"step":${step}}`);
      this.turnEnd(turn, `{"kind":"interrupted"}`);
      return;
    }
    if (reason === 'aborted' || reason === 'disposed') {
      this.chunk(turn, step, `{"type":"block-start","index":0,"blockType":"reasoning"}`);
      const pieces = tokenize(r, this.c.reasoning(scale));
      this.deltas('reasoning', turn, step, 0, pieces.slice(0, r.int(1, pieces.length)));
      this.tick(100, 20_000);
      this.ev('step/end', `{"turn":${turn},"step":${step}}`);
      if (reason === 'disposed') this.turnEnd(turn, `{"kind":"disposed"}`);
      else this.turnEnd(turn, this.era === 'v0' ? `{"kind":"aborted","reason":"session/cancel"}` : `{"kind":"aborted","reason":{"kind":"user"}}`);
      return;
    }
    if (reason === 'error') {
      this.tick(200, 30_000);
      this.ev('step/end', `{"turn":${turn},"step":${step}}`);
      const [msg, code] = r.pick([
        ['simulated provider error (HTTP 401)', 'AUTH'],
        ['provider overloaded (HTTP 529)', 'OVERLOADED'],
        ['request timed out after 600000ms', 'TIMEOUT'],
      ]);
      this.turnEnd(
        turn,
        this.era === 'v0'
          ? `{"kind":"error","step":${step},"message":"${msg}","code":"${code}"}`
          : `{"kind":"error","error":{"message":"${msg}","code":"${code}"}}`,
      );
      return;
    }
    this.modelOutput(turn, step, {
      reasoning: r.chance(0.7) ? this.c.reasoning(scale) : undefined,
      text: this.c.answer(scale),
      calls: [],
      finish: reason === 'max-tokens' ? 'length' : 'stop',
    });
    this.ev('step/end', `{"turn":${turn},"step":${step}}`);
    this.turnEnd(turn, reason === 'max-tokens' ? `{"kind":"max-tokens"}` : `{"kind":"completed"}`);
  }

  /**
   * One turn of tool rounds (a step each) for as long as `more()` says, its
   * lines handed to `flush` a step at a time (never held whole): an agent
   * left running on one task. Closed completed unless `open`.
   */
  longTurn(more: () => boolean, flush: () => void, open: boolean): void {
    const turn = ++this.turn;
    const r = this.r;
    this.turnPrelude(turn, this.c.prompt());
    for (let step = 1; more(); step++) {
      if (step > 1) this.stepStart(turn, step);
      const calls: Call[] = [this.makeCall()];
      this.modelOutput(turn, step, { reasoning: r.chance(0.85) ? this.c.reasoning(this.spec.deltaScale) : undefined, calls, finish: 'tool-calls' });
      this.runTools(turn, step, calls);
      this.ev('step/end', `{"turn":${turn},"step":${step}}`);
      flush();
    }
    if (!open) this.turnEnd(turn, `{"kind":"completed"}`);
    flush();
  }

  /** A completed turn of exactly `n` (>= 10) events: one step with n-10 text deltas (v0 only). */
  exactTurn(n: number): void {
    const turn = ++this.turn;
    this.turnPrelude(turn, this.c.prompt());
    const need = n - 10;
    const pieces: string[] = [];
    while (pieces.length < need) {
      for (const p of tokenize(this.r, ' ' + this.c.sentence())) {
        if (pieces.length < need) pieces.push(p);
      }
    }
    // prelude(3) + block-start + deltas + block-end + usage + finish + message + step/end + turn/end
    this.modelOutput(turn, 1, { textPieces: pieces, calls: [], finish: 'stop' });
    this.ev('step/end', `{"turn":${turn},"step":1}`);
    this.turnEnd(turn, `{"kind":"completed"}`);
  }
}

// ---------------------------------------------------------------- corpus

interface GenSession {
  id: string;
  era: Era;
  cwd?: string;
  createdAt: number;
  b: SessionBuilder;
}

function oddId(r: Rng, n: number, used: Set<string>): string {
  const w = r.pick(IDENTS);
  const cands = [
    '..',
    `task/${w}-${n}`,
    `${w} session ${n}`,
    `ünïcødé-${w}-${n}`,
    `tilde~${w}~${n}`,
    `${w}.${n}.draft`,
    `日本語-${n}`,
    `../escape-${n}`,
    `${w}:${n}?x=1`,
  ];
  for (;;) {
    const id = r.pick(cands);
    if (!used.has(id)) return id;
  }
}

function headerLine(s: GenSession, parent?: string, seedLength?: number): string {
  const h: Record<string, unknown> = { type: 'session', version: 0, id: s.id, createdAt: s.createdAt };
  if (s.cwd !== undefined) h.cwd = s.cwd;
  if (parent !== undefined) h.parentSession = parent;
  if (seedLength !== undefined) h.seedLength = seedLength;
  if (s.era === 'rc8') {
    if (parent !== undefined) h.origin = 'subagent';
    h.delegationDepth = parent !== undefined ? 1 : 0;
  }
  return JSON.stringify(h);
}

function relPathFor(s: GenSession): string {
  if (s.era === 'rc8') return join(rc8ProjectDirName(s.cwd ?? '/unknown'), encodeId(s.id), 'session.jsonl');
  return join(cwdDirName(s.cwd), encodeId(s.id) + '.jsonl');
}

interface Manifest {
  status: 'generating' | 'done';
  specHash: string;
  generatorVersion: number;
  spec: CorpusSpec;
  info?: Omit<CorpusInfo, 'dir' | 'bigFile'> & { bigFile?: string };
}

/** Reads a finished manifest in `dir` if its spec hash matches. */
export function readCorpusManifest(dir: string, spec: CorpusSpec): CorpusInfo | undefined {
  const abs = resolve(dir);
  const mp = join(abs, 'corpus.json');
  if (!existsSync(mp)) return undefined;
  try {
    const m = JSON.parse(readFileSync(mp, 'utf8')) as Manifest;
    if (m.status !== 'done' || m.specHash !== specHash(spec) || !m.info) return undefined;
    const info: CorpusInfo = { ...m.info, dir: abs, bigFile: m.info.bigFile ? join(abs, m.info.bigFile) : undefined };
    if (info.bigFile === undefined) delete info.bigFile;
    if (info.bigFile && !existsSync(info.bigFile)) return undefined;
    return info;
  } catch {
    return undefined;
  }
}

export interface GenerateOptions {
  /** Regenerate even if a matching corpus exists. */
  force?: boolean;
}

export function generateCorpus(dir: string, spec: CorpusSpec, opts: GenerateOptions = {}): CorpusInfo {
  const abs = resolve(dir);
  const hash = specHash(spec);
  if (!opts.force) {
    const cached = readCorpusManifest(abs, spec);
    if (cached) return cached;
  }
  const mp = join(abs, 'corpus.json');
  if (existsSync(abs)) {
    const entries = readdirSync(abs);
    if (entries.length > 0 && !existsSync(mp)) {
      throw new Error(`refusing to overwrite ${abs}: not empty and not a generated corpus (no corpus.json)`);
    }
    for (const e of entries) rmSync(join(abs, e), { recursive: true, force: true });
  }
  mkdirSync(abs, { recursive: true });
  const startManifest: Manifest = { status: 'generating', specHash: hash, generatorVersion: GENERATOR_VERSION, spec };
  writeFileSync(mp, JSON.stringify(startManifest, null, 2) + '\n');

  const r = new Rng(spec.seed);
  const c = new Content(r);
  const madeDirs = new Set<string>();
  const usedIds = new Set<string>();
  const stats: CorpusStats = { v0: 0, rc8: 0, forks: 0, spawns: 0, open: 0, lines: 0, specHash: hash };
  let events = 0;
  let bytes = 0;
  let files = 0;

  const nProjects = Math.max(3, Math.round(spec.sessions / 25));
  const users = ['dev', 'alice', 'bob', 'ci'];
  const cwds: string[] = [];
  for (let i = 0; i < nProjects; i++) {
    cwds.push(`/home/${r.pick(users)}/src/${r.pick(IDENTS)}-${r.pick(IDENTS)}${i > 40 ? '-' + i : ''}${i % 7 === 3 ? '/packages/core' : ''}`);
  }

  const write = (s: GenSession, header: string): string => {
    const rel = relPathFor(s);
    const full = join(abs, rel);
    const d = join(full, '..');
    if (!madeDirs.has(d)) {
      mkdirSync(d, { recursive: true });
      madeDirs.add(d);
    }
    const text = header + '\n' + s.b.lines.join('\n') + '\n';
    writeFileSync(full, text);
    bytes += Buffer.byteLength(text);
    events += s.b.seq;
    stats.lines += s.b.lines.length + 1;
    files++;
    if (s.era === 'v0') stats.v0++;
    else stats.rc8++;
    return full;
  };

  const newId = (i: number): string => {
    let id = r.chance(spec.oddIdFraction) ? oddId(r, i, usedIds) : r.uuid();
    while (usedIds.has(id)) id = r.uuid();
    usedIds.add(id);
    return id;
  };

  const window: GenSession[] = [];
  const WINDOW = 48;
  let clock = BASE_TIME;

  const fill = (s: GenSession, target: number, open: boolean): void => {
    const maxTurns = spec.maxTurns ?? Infinity;
    const minTurns = Math.min(spec.minTurns ?? 1, maxTurns);
    let turns = 0;
    do {
      const isLast = (s.b.seq >= target * 0.85 && turns + 1 >= minTurns) || turns + 1 >= maxTurns;
      s.b.turnOnce(pickReason(r), open && isLast);
      turns++;
      if (open && isLast) return;
    } while ((s.b.seq < target || turns < minTurns) && turns < maxTurns);
    if (open) s.b.turnOnce('completed', true);
  };

  for (let i = 0; i < spec.sessions; i++) {
    clock += r.int(60_000, 90 * 60_000);
    const kindRoll = r.next();
    const open = r.chance(spec.openFraction);
    const target = Math.max(15, Math.round(spec.meanEventsPerSession * (0.25 + 0.75 * r.exp())));
    const forkParents = window.filter((w) => w.b.boundaries.length > 0);
    let s: GenSession;
    let header: string;
    if (kindRoll < spec.forkFraction && forkParents.length > 0) {
      const p = r.pick(forkParents);
      const bd = r.pick(p.b.boundaries);
      const createdAt = Math.max(bd.time, clock) + r.int(50, 5_000);
      const b = new SessionBuilder(p.era, r, c, createdAt, spec);
      b.lines = p.b.lines.slice(0, bd.line + 1);
      b.seq = bd.events;
      b.turn = bd.turn;
      b.boundaries = p.b.boundaries.filter((x) => x.line <= bd.line);
      b.firstTurnDone = true;
      s = { id: newId(i), era: p.era, cwd: p.cwd, createdAt, b };
      if (p.era === 'rc8') b.ev('session/end-seed', '{}');
      header = headerLine(s, p.id, bd.events);
      fill(s, bd.events + Math.max(15, Math.round(target * 0.5)), open);
      stats.forks++;
    } else if (kindRoll < spec.forkFraction + spec.spawnFraction && window.length > 0) {
      const p = r.pick(window);
      const createdAt = Math.max(p.createdAt, clock) + r.int(1_000, 120_000);
      const b = new SessionBuilder(p.era, r, c, createdAt, spec);
      s = { id: newId(i), era: p.era, cwd: p.cwd, createdAt, b };
      header = headerLine(s, p.id);
      fill(s, Math.max(15, Math.round(target * 0.3)), open);
      stats.spawns++;
    } else {
      const era: Era = r.chance(spec.rc8Fraction) ? 'rc8' : 'v0';
      const cwd = era === 'v0' && r.chance(spec.noCwdFraction) ? undefined : r.pick(cwds);
      const createdAt = clock;
      const b = new SessionBuilder(era, r, c, createdAt, spec);
      s = { id: newId(i), era, cwd, createdAt, b };
      header = headerLine(s);
      fill(s, target, open);
    }
    if (open) stats.open++;
    write(s, header);
    window.push(s);
    if (window.length > WINDOW) window.shift();
  }
  window.length = 0;

  let bigFile: string | undefined;
  if (spec.bigEvents !== undefined) {
    const n = spec.bigEvents;
    if (n < 10) throw new Error('bigEvents must be >= 10');
    clock += 3_600_000;
    const b = new SessionBuilder('v0', r, c, clock, spec);
    const s: GenSession = { id: `big-${r.uuid()}`, era: 'v0', cwd: cwds[0], createdAt: clock, b };
    usedIds.add(s.id);
    // regular turns, then exact-size filler turns so the total is exactly n
    while (n - b.seq > 6_000) b.turnOnce(r.chance(0.95) ? 'completed' : pickReason(r), false);
    while (n - b.seq > 1_200) b.exactTurn(r.int(200, Math.min(800, n - b.seq - 400)));
    b.exactTurn(n - b.seq);
    if (b.seq !== n) throw new Error(`internal: big session has ${b.seq} events, wanted ${n}`);
    bigFile = write(s, headerLine(s));
  }

  const info: CorpusInfo = {
    dir: abs,
    sessions: files,
    events,
    bytes,
    ...(bigFile ? { bigFile, bigEvents: spec.bigEvents } : {}),
    files,
    stats,
  };
  const manifest: Manifest = {
    status: 'done',
    specHash: hash,
    generatorVersion: GENERATOR_VERSION,
    spec,
    info: {
      sessions: info.sessions,
      events: info.events,
      bytes: info.bytes,
      ...(bigFile ? { bigFile: relative(abs, bigFile), bigEvents: spec.bigEvents } : {}),
      files: info.files,
      stats,
    },
  };
  writeFileSync(mp, JSON.stringify(manifest, null, 2) + '\n');
  return info;
}

/** What writeHugeSession wrote. */
export interface HugeSessionInfo {
  file: string;
  id: string;
  bytes: number;
  events: number;
  turns: number;
  /** a fork boundary near the middle: its seq and the byte offset just after its line */
  mid: { seq: number; end: number };
}

/**
 * One v0 session of at least `bytes` bytes, written turn by turn (only one
 * turn is ever held): regular turns of preset A with each tool output ~`toolOutputBytes`
 * (a big session with each tool result padded). For the huge-session
 * bench and memory tests; the file is new (exclusive create). `oneTurn`: two
 * small turns, then one turn of all the rest (`mid` is the boundary before it).
 */
export function writeHugeSession(file: string, bytes: number, opts: { seed?: number; toolOutputBytes?: number; id?: string; oneTurn?: 'closed' | 'open' } = {}): HugeSessionInfo {
  const spec: CorpusSpec = { ...PRESETS.A, name: 'huge', seed: opts.seed ?? 0x9e7, toolOutputBytes: opts.toolOutputBytes ?? 60_000 };
  const r = new Rng(spec.seed);
  const c = new Content(r);
  const b = new SessionBuilder('v0', r, c, BASE_TIME, spec);
  const s: GenSession = { id: opts.id ?? `huge-${r.uuid()}`, era: 'v0', cwd: '/home/dev/src/huge', createdAt: BASE_TIME, b };
  const fd = openSync(file, 'wx');
  let written = 0;
  let mid: HugeSessionInfo['mid'] | undefined;
  const put = (text: string) => {
    const buf = Buffer.from(text);
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off);
    written += buf.length;
  };
  try {
    put(headerLine(s) + '\n');
    if (opts.oneTurn) {
      // two small turns, then one turn (closed or still running) that fills the rest
      for (let k = 0; k < 2; k++) {
        b.turnOnce('completed', false);
        put(b.lines.join('\n') + '\n');
        b.lines = [];
      }
      mid = { seq: b.seq - 1, end: written };
      b.longTurn(
        () => written < bytes,
        () => {
          if (b.lines.length) put(b.lines.join('\n') + '\n');
          b.lines = [];
        },
        opts.oneTurn === 'open',
      );
    }
    while (written < bytes) {
      b.turnOnce(r.chance(0.95) ? 'completed' : pickReason(r), false);
      put(b.lines.join('\n') + '\n');
      b.lines = [];
      // every turn ends completed or with a reason that is still a boundary (no open turns here)
      if (mid === undefined && written >= bytes / 2) mid = { seq: b.seq - 1, end: written };
    }
  } finally {
    closeSync(fd);
  }
  return { file, id: s.id, bytes: written, events: b.seq, turns: b.turn, mid: mid ?? { seq: b.seq - 1, end: written } };
}
