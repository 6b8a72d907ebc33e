// Would the current release open this session after migrating it? The
// harness's newest format is v4; an older log is migrated edge by edge
// (v0→v1→v2→v3→v4) when a current harness opens it, and the first edge that
// refuses it loses the session for that user. Rules and messages from the
// harness's own edges, which the suite runs as its judge (test/oracle/format):
//   - @deepseek-ai/dsh-session-format-v0-to-v1@0.1.3-alpha.2 (lib/index.js):
//     the v0 codec's header (delegationDepth required, an absolute cwd),
//     assertSupportedLegacyType, assertReleasedEventPayload's descriptor version;
//   - @deepseek-ai/dsh-session-format-v2-to-v3@0.1.5-alpha.1 (lib/index.js):
//     ReleasedV2ToV3Stage.transformEvent (assertEvent's unclassified events, a
//     surface event before the first step);
//   - v3→v4, whose code is not published: the refusals its README lists
//     (zsagi1368/deepseek-harness-zDSH @a18d8a99,
//     packages/session/session-format-v3-to-v4/README.md): unknown required v3
//     events, and the inherited cut (a log the v3 reader refuses).
// Left out (each needs every row's data, which the index does not parse):
// v0→v1's exact payload inventory, v1→v2's assistant attempts, v2→v3's
// prompt changes outside a step and delivery markers, v3→v4's tool-result
// wrappers and deferred tools. Pure: no I/O.
import type { SessionEvent, SessionHeader } from './events.js';
import { foreignFormat, foreignFormatText, isAbsolute, knownType, NEWEST_FORMAT } from './formats.js';
import type { CatalogRow } from './catalog-row.js';
import type { LogFacts } from './log-facts.js';
import { LEGACY_KINDS, safeUint } from './rc8-rules.js';
import { layoutOf } from '../storage/layout.js';

/** What a migration edge found in the events, folded as they are read (foldMigration). */
export interface MigrationFacts {
  /** the first subagent/descriptor whose data.version is not 3 (v0→v1 refuses it) */
  descriptor?: { seq: number; version: unknown };
  /** the first ignorable event outside the released v2 inventory, but for feedback messages (v2→v3's assertEvent cannot transform it) */
  unclassified?: { seq: number; type: string };
}

/** A surface event of the v2→v3 edge (its SURFACE_TYPES for a v2 source). */
const SURFACE_V2 = new Set(['user/message', 'assistant/message', 'tool/result']);

/**
 * Folds event `e` into the migration facts of `f`, for any version: the
 * verdict reads only those that apply to the log's own version. stepHead:
 * -1 once a step/start came first, the seq of a surface event that came
 * before any step/start, undefined while neither has.
 */
export function foldMigration(f: Pick<LogFacts, 'stepHead' | 'migration'>, e: SessionEvent): void {
  if (f.stepHead === undefined) {
    if (e.type === 'step/start') f.stepHead = -1;
    else if (SURFACE_V2.has(e.type)) f.stepHead = e.seq;
  }
  if (e.type === 'subagent/descriptor' && (e.data as { version?: unknown } | undefined)?.version !== 3 && f.migration?.descriptor === undefined)
    (f.migration ??= {}).descriptor = { seq: e.seq, version: (e.data as { version?: unknown } | undefined)?.version };
  if (e.ignorable === true && f.migration?.unclassified === undefined && !knownType(2, e.type) && !e.type.startsWith('feedback/message-'))
    (f.migration ??= {}).unclassified = { seq: e.seq, type: e.type.slice(0, 100) };
}

export type Edge = 'v0→v1' | 'v1→v2' | 'v2→v3' | 'v3→v4';

/** list --json's `upgrade`: would the current release (format `to`) open the session, and if not the first edge that refuses it and why. */
export interface UpgradeVerdict {
  to: number;
  ok: boolean;
  edge?: Edge;
  reason?: string;
}


/** The harness's verdict on migrating the session to the current format. */
export function upgradeVerdict(s: { header: SessionHeader; facts: LogFacts; id: string }): UpgradeVerdict {
  const to = NEWEST_FORMAT;
  const v = s.header.version;
  const foreign = foreignFormat(s.header as SessionHeader & Record<string, unknown>);
  // no edge leads from a fork's format back to the harness's
  if (foreign) return { to, ok: false, reason: `${foreignFormatText(foreign)} is past the harness's v${to}: it refuses the log as an unsupported format` };
  if (!(Number.isInteger(v) && v >= 0 && v < to)) return { to, ok: true };
  const f = s.facts;
  const edge = (from: number): Edge => `v${from}→v${from + 1}` as Edge;
  const no = (from: number, reason: string): UpgradeVerdict => ({ to, ok: false, edge: edge(from), reason });
  // what the log's own reader refuses, every edge refuses: the first names it
  if (v === 0) {
    if (s.header.delegationDepth === undefined) return no(0, 'released v0 physical header lacks required member "delegationDepth"');
    if (typeof s.header.cwd === 'string' && !isAbsolute(s.header.cwd)) return no(0, 'format v0 header cwd must be absolute');
  }
  // a row the log's codec refuses; v2's other row rules belong to its restore, which a migration does not run
  if (f.rowRefusal !== undefined && (v === 3 || f.rowRefusal.phase === undefined)) return no(v, f.rowRefusal.why);
  if (v >= 2 && f.seedMarker === 'seeded' && f.seedFrom === undefined && f.events > 0) return no(v, `released v2 seeded Session lacks an inherited end-seed marker`);
  if (v >= 2 && f.strayInheritedMarker !== undefined) return no(v, `released v2 unseeded Session contains an inherited end-seed marker`);
  if (v === 0) {
    if (f.rc8Legacy !== undefined) {
      const kind = LEGACY_KINDS[f.rc8Legacy.kind];
      const what = kind.replace('unsupported legacy request/header reason "fallback"', 'unsupported request/header reason "fallback"');
      return no(0, `session ${JSON.stringify(s.id)} contains ${what} at seq ${f.rc8Legacy.seq}`);
    }
    const d = f.migration?.descriptor;
    if (d !== undefined) return no(0, safeUint(d.version) ? `subagent/descriptor ${d.seq} uses unsupported descriptor version ${d.version as number}` : `subagent/descriptor ${d.seq} version must be a non-negative safe integer`);
  }
  if (v <= 2) {
    // transformEvent, event by event: assertEvent (an unclassified event, a log-only event's
    // surface key, a surface event without surfaceOp), then a surface event before the first step
    const found: Array<[number, string]> = [];
    const u = v === 2 ? f.migration?.unclassified : undefined;
    if (u !== undefined) found.push([u.seq, `format v2 to v3 cannot safely transform unclassified event ${u.type}`]);
    const r = v === 2 ? f.rowRefusal : undefined;
    if (r?.type !== undefined) found.push([r.seq, r.phase === 1 ? `${r.type} has unexpected field ${r.key}` : `${r.type} requires surfaceOp`]);
    if (f.stepHead !== undefined && f.stepHead >= 0) found.push([f.stepHead, 'format v2 surface before first step cannot acquire a system head without changing chronology']);
    const first = found.reduce<[number, string] | undefined>((a, b) => (a === undefined || b[0] < a[0] ? b : a), undefined);
    if (first !== undefined) return no(2, first[1]);
  }
  // v2's reader refuses it itself; v3's is the v3-to-v4 README's "unknown required v3 events"
  if (f.unknownEventLine !== undefined) return no(v, `line ${f.unknownEventLine} holds an event type v${v} does not know and that is not marked ignorable: ${v === 3 ? 'the v3-to-v4 migration refuses unknown required v3 events' : 'its own reader refuses it'}`);
  return { to, ok: true };
}

/**
 * Why the app marks a session the current release would refuse on upgrade
 * (the ⇡ mark, the Problems tab's UPGRADE_REFUSED row, is:upgrade-refused),
 * or undefined: only in the harness's own layout, where a current release
 * looks for it (the RFC era's folders it never reads).
 */
export function upgradeRefusal(s: { header: SessionHeader; facts: LogFacts; id: string; file?: string; row?: CatalogRow }): string | undefined {
  if (s.row) return s.row.upgrade; // a catalog session: this verdict as its row kept it
  if (s.file === undefined || layoutOf(s.file) !== 'rc8-harness') return undefined;
  const v = upgradeVerdict(s);
  return v.ok ? undefined : `the current release (format v${v.to}) refuses it${v.edge ? ` on upgrade, at ${v.edge}` : ''}: ${v.reason}`;
}
