// What the harness refuses in one event row of a v2+ log, in its own words.
// Facts from its published format packages, which the suite runs as its judge
// (test/oracle/format):
//   - @deepseek-ai/dsh-session-format-v1-to-v2@0.1.3-alpha.2, lib/index.js:
//     the released v2 codec's decodeEvent (every v2+ row: the v3 codec and the
//     v4 framing reuse it) and restoreReleasedV2Artifact's
//     validateReleasedV2Artifact (a v2 log's per-type keys, then its surface);
//   - @deepseek-ai/dsh-session-format-v2-to-v3@0.1.5-alpha.1, lib/index.js:
//     assertV3Event, run on every row as the v3 codec decodes it.
// No v4 code is published: v4 keeps v3's rules and adds developer/message to
// the surface (zsagi1368/deepseek-harness-zDSH @a18d8a99,
// packages/session/session-format-v3-to-v4/README.md, "surfaceOp"), worded
// as v3's. The harness decodes every row before it restores the log, so a
// problem found decoding is the one it names, wherever a restore problem is.
// Pure: no I/O.

/** When the harness finds a row problem: decoding rows (0), a v2 restore's key check (1), its surface walk (2). */
export type RowPhase = 0 | 1 | 2;

export interface RowRefusal {
  seq: number;
  /** the harness's message */
  why: string;
  /** 0 is left out */
  phase?: RowPhase;
  /** phases 1 and 2: the row's type, and the surface key it should not carry (phase 1) */
  type?: string;
  key?: string;
}

/** The envelope of a released v2 row (EVENT_REQUIRED, EVENT_OPTIONAL). */
const REQUIRED = ['type', 'seq', 'time', 'data'] as const;
const ENVELOPE = new Set<string>([...REQUIRED, 'ignorable', 'sourceEventSeqs', 'surfaceOp']);

/** Events on the conversation surface, which carry surfaceOp (SURFACE_TYPES of each package). */
const SURFACE_V2 = new Set(['user/message', 'assistant/message', 'tool/result']);
const SURFACE_V3 = new Set([...SURFACE_V2, 'system/message']);
const SURFACE_V4 = new Set([...SURFACE_V3, 'developer/message']);

/** The surface event types of format `version` (2 and later). */
export const surfaceTypes = (version: number): ReadonlySet<string> => (version <= 2 ? SURFACE_V2 : version === 3 ? SURFACE_V3 : SURFACE_V4);

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const safeInt = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && !Object.is(v, -0);
const name = (k: string): string => (k.length > 80 ? k.slice(0, 80) + '…' : k); // keys come from the file: bounded

/**
 * Whether a row the index read without parsing it must be parsed for the
 * rules below: a surface event without surfaceOp, or another known event
 * with one of the surface keys. Every other row already passes them (its
 * envelope is otherwise plain: the scan sends an odd one to the full parse).
 */
export function rowNeedsCheck(version: number, type: string, hasSurfaceKeys: boolean, hasSurfaceOp: boolean, known: boolean): boolean {
  if (surfaceTypes(version).has(type)) return !hasSurfaceOp;
  return known && hasSurfaceKeys;
}

/**
 * The harness's refusal of the event row `row` (parsed, the `index`th row
 * after the header) of a log of format `version` >= 2, or undefined.
 * `known`: the type is in the version's vocabulary (formats.ts), so its
 * keys are checked by type; an unknown one is opaque.
 */
export function rowRefusal(version: number, row: unknown, index: number, known: boolean): RowRefusal | undefined {
  if (!isObj(row)) return { seq: index, why: `released v2 row ${index} must be an object` };
  const seq = safeInt(row.seq) ? (row.seq as number) : index;
  const at = (why: string, phase: RowPhase = 0): RowRefusal => (phase === 0 ? { seq, why } : { seq, why, phase });
  // the codec's decodeEvent
  const missing = REQUIRED.find((k) => !Object.hasOwn(row, k));
  if (missing !== undefined) return at(`released v2 row ${index} lacks required field ${missing}`);
  const extra = Object.keys(row).find((k) => !ENVELOPE.has(k));
  if (extra !== undefined) return at(`released v2 row ${index} has unexpected field ${name(extra)}`);
  if (typeof row.type !== 'string') return at(`released v2 row ${index} type must be a string`);
  if (!safeInt(row.time)) return at(`released v2 row ${index} time must be a safe integer`);
  if (row.ignorable !== undefined && row.ignorable !== true) return at(`released v2 row ${index} ignorable must be true when present`);
  const type = row.type;
  const surface = surfaceTypes(version).has(type);
  const logOnly = known && !surface;
  const surfaceKey = (['surfaceOp', 'sourceEventSeqs'] as const).find((k) => Object.hasOwn(row, k));
  if (version === 2) {
    // validateReleasedV2Artifact: each type's keys, then (its relationships) the surface
    if (logOnly && surfaceKey !== undefined) return { ...at(`format v2 event ${index} has unexpected field ${surfaceKey}`, 1), type: type.slice(0, 100), key: surfaceKey };
    if (surface && row.surfaceOp === undefined) return { ...at(`${type} requires a surfaceOp marker`, 2), type };
    return undefined;
  }
  // assertV3Event
  const subject = `format v${version} ${type} at seq ${seq}`;
  if (logOnly && surfaceKey !== undefined) return at(`${subject} has unexpected field ${surfaceKey}`);
  if (!surface) return undefined;
  const op = row.surfaceOp;
  if (op === undefined) return at(`${subject} requires a surfaceOp marker`);
  if (op !== 'append') {
    if (!isObj(op) || Object.keys(op).length !== 3 || op.op !== 'replace' || !Object.hasOwn(op, 'startSeq') || !Object.hasOwn(op, 'endSeq'))
      return at(`${subject} requires exact replace fields op/startSeq/endSeq`);
    for (const k of ['startSeq', 'endSeq'] as const) {
      const v = op[k];
      if (!safeInt(v) || (v as number) < 0) return at(`${subject} surfaceOp ${k} must be a non-negative safe integer`);
      if ((v as number) >= seq) return at(`${subject} replacement endpoints must reference earlier events`);
    }
  }
  if (type === 'assistant/message' && row.sourceEventSeqs !== undefined) return at(`${subject} embeds its stream and cannot carry sourceEventSeqs`);
  return undefined;
}

/** The refusal the harness names of two in one log: the earlier phase, then the earlier row. */
export function firstRefusal(a: RowRefusal | undefined, b: RowRefusal): RowRefusal {
  if (a === undefined) return b;
  return (b.phase ?? 0) < (a.phase ?? 0) ? b : a;
}
