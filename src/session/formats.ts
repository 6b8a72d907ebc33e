// The harness's on-disk formats v0-v4: what each version's header must hold.
// Facts from the harness source (see docs/formats.md, "Session files", and
// "Formats and sources"): v0/v1 carry a numeric `seedLength`; from v2
// on the header has `isSeeded` and no `seedLength` (the cut is the inherited
// end-seed marker), and the header is a closed key set
// (session-format-v1-to-v2 .. v3-to-v4).
// Pure: no I/O.

/** The newest format this browser reads (the current harness release writes it). */
export const NEWEST_FORMAT = 4;

export type FormatVersion = 0 | 1 | 2 | 3 | 4;

/** A header refusal: the diagnostic code and what to tell the user. */
export interface HeaderProblem {
  code: 'NO_HEADER' | 'UNSUPPORTED_VERSION' | 'BAD_HEADER' | 'NOT_DSH_SESSION';
  message: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const safeUint = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Keys a v2-v4 header may carry (HEADER_REQUIRED + HEADER_OPTIONAL of session-format-v1-to-v2; v3 and v4 keep them). */
const V2_KEYS = new Set(['type', 'version', 'id', 'createdAt', 'cwd', 'parentSession', 'isSeeded', 'origin', 'delegationDepth', 'agentPreset']);

/**
 * Another agent's log with a `"type":"session"` first line (pi writes
 * `{"type":"session","version":3,"id":…,"timestamp":…}`): no `createdAt`, or
 * a `timestamp` in its place. Told apart by the header keys, not the version.
 */
function lookAlike(v: Record<string, unknown>): string | undefined {
  if (v.createdAt === undefined && v.timestamp !== undefined) {
    const keys = Object.keys(v).slice(0, 8).map((k) => (k.length > 40 ? k.slice(0, 40) + '…' : k)).join(', '); // keys come from the file: bounded
    return `not a dsh session: its "type":"session" header has no createdAt (keys: ${keys}), as another agent's log does`;
  }
  return undefined;
}

/** Keys a v2-v4 header must carry (the harness's exactKeys check: the set is closed in all three versions). */
const V2_REQUIRED = ['type', 'version', 'id', 'createdAt', 'isSeeded', 'delegationDepth'];

/**
 * The first problem of a v2+ header by its version's rules, or undefined.
 * Rules and wording after session-format-v1-to-v2 (`assertReleasedV2Header`,
 * reused by v3) and session-format-v3-to-v4 (`format v4 header …`): a closed
 * key set, missing keys reported first, then the values.
 */
function v2Problem(v: Record<string, unknown>, version: number): string | undefined {
  const where = version === 4 ? 'format v4 header' : `released v${version} header`;
  const missing = V2_REQUIRED.find((k) => v[k] === undefined);
  if (missing !== undefined) return `${where} lacks required field ${missing}${missing === 'isSeeded' && v.seedLength !== undefined ? ' (v2 and later mark a fork by isSeeded and the inherited session/end-seed, not seedLength)' : ''}`;
  const extra = Object.keys(v).find((k) => !V2_KEYS.has(k));
  if (extra !== undefined) return `${where} has unexpected field ${JSON.stringify(extra.slice(0, 80))}`;
  if (typeof v.isSeeded !== 'boolean') return `${where} isSeeded must be a boolean`;
  if (!safeUint(v.delegationDepth)) return `${where} delegationDepth must be a non-negative safe integer`;
  if (!safeUint(v.createdAt)) return `${where} createdAt must be a non-negative safe integer`;
  if (v.cwd !== undefined && !isAbsolute(v.cwd as string)) return `${where} cwd must be an absolute path`;
  if (v.origin !== undefined && v.origin !== 'subagent') return `${where} origin must be "subagent"`;
  if (v.agentPreset !== undefined && typeof v.agentPreset !== 'string') return `${where} agentPreset must be a string`;
  return undefined;
}

/** POSIX or Windows absolute (the harness runs on both; a real v4 log has cwd "C:\\DEV\\…"). */
export const isAbsolute = (p: string): boolean => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');

/**
 * Checks a parsed header line against its version's rules. Returns the
 * problem, or undefined when the header is one this browser reads.
 */
export function headerProblem(v: unknown): HeaderProblem | undefined {
  const bad = (message: string): HeaderProblem => ({ code: 'NO_HEADER', message });
  if (!isObj(v)) return bad(`header is not a JSON object (got ${v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v})`);
  if (v.type !== 'session') return bad(`first line is not a session header (type ${JSON.stringify(v.type) ?? 'missing'})`);
  const alike = lookAlike(v);
  if (alike) return { code: 'NOT_DSH_SESSION', message: alike };
  const version = v.version;
  // a fork's own format past v4 that keeps the header core: read by shape (foreignFormat)
  if (Number.isSafeInteger(version) && (version as number) > NEWEST_FORMAT && foreignCoreProblem(v) === undefined) return undefined;
  if (!(Number.isInteger(version) && (version as number) >= 0 && (version as number) <= NEWEST_FORMAT)) {
    // the harness's own words (session-persistence errors.ts, sessionFormatVersionRefusal) for a newer log
    const newer = Number.isInteger(version) && (version as number) > NEWEST_FORMAT;
    const who = typeof v.id === 'string' ? `session ${JSON.stringify(v.id.slice(0, 200))}` : 'this session';
    return {
      code: 'UNSUPPORTED_VERSION',
      message: newer
        ? `unsupported session format version ${version}: ${who} uses log format v${version}, but this browser reads only v0-v${NEWEST_FORMAT}: the log was written by a newer harness — upgrade dsh-browse to open it`
        : `unsupported session format version ${JSON.stringify(version) ?? '(missing)'}: this browser reads versions 0 to ${NEWEST_FORMAT}`,
    };
  }
  if (typeof v.id !== 'string' || v.id.length === 0) return bad('header has no string "id"');
  if (typeof v.createdAt !== 'number' || !Number.isFinite(v.createdAt)) return bad('header has no numeric "createdAt"');
  if (v.cwd !== undefined && typeof v.cwd !== 'string') return bad('header "cwd" is not a string');
  if (v.parentSession !== undefined && typeof v.parentSession !== 'string') return bad('header "parentSession" is not a string');
  if ((version as number) <= 1) {
    if (v.seedLength !== undefined && !safeUint(v.seedLength)) return bad('header "seedLength" is not a non-negative integer');
    if (version === 1 && !safeUint(v.delegationDepth)) return { code: 'BAD_HEADER', message: 'format v1 header has no non-negative integer "delegationDepth"' };
    return undefined;
  }
  const p = v2Problem(v, version as number);
  return p === undefined ? undefined : { code: 'BAD_HEADER', message: p };
}

/**
 * Why a header past v4 does not keep the core every fork of the harness keeps
 * (type, version, id, createdAt, isSeeded, delegationDepth,
 * with their v4 value rules; any other key is the fork's), or undefined.
 */
function foreignCoreProblem(v: Record<string, unknown>): string | undefined {
  if (typeof v.id !== 'string' || v.id.length === 0) return 'no string id';
  if (!safeUint(v.createdAt)) return 'no createdAt';
  if (typeof v.isSeeded !== 'boolean') return 'no isSeeded';
  if (!safeUint(v.delegationDepth)) return 'no delegationDepth';
  if (v.cwd !== undefined && (typeof v.cwd !== 'string' || !isAbsolute(v.cwd))) return 'a cwd that is not an absolute path';
  if (v.parentSession !== undefined && typeof v.parentSession !== 'string') return 'a parentSession that is not a string';
  return undefined;
}

/** A format past v4: which fork of the harness wrote it, when a header key gives it away. */
export interface ForeignFormat {
  version: number;
  /** the fork, and the header key that names it */
  fork?: { name: string; tell: string };
}

/**
 * The fork whose own format a header past v4 is, by the header keys each
 * adds (from each fork's session-format-v4-to-v5 README):
 * ReachForStar/dsh-studio `backend`, jsjm1986/CoHarness `draft` (its v5) and
 * `sshTarget` (its v6), StarPivotNet `origin: "automation"`. Undefined for
 * the harness's own formats (v0-v4).
 */
export function foreignFormat(h: { version: number } & Record<string, unknown>): ForeignFormat | undefined {
  if (!(h.version > NEWEST_FORMAT)) return undefined;
  const tells: Array<[boolean, string, string]> = [
    [Object.hasOwn(h, 'backend'), 'dsh-studio', 'backend'],
    [Object.hasOwn(h, 'draft'), 'CoHarness', 'draft'],
    [Object.hasOwn(h, 'sshTarget'), 'CoHarness', 'sshTarget'],
    [h.origin === 'automation', 'StarPivotNet', 'origin "automation"'],
  ];
  const t = tells.find(([has]) => has);
  return t ? { version: h.version, fork: { name: t[1], tell: t[2] } } : { version: h.version };
}

/** A foreign format in words: "format v5 (CoHarness's: header key draft)". */
export const foreignFormatText = (f: ForeignFormat): string =>
  `format v${f.version} (${f.fork ? `${f.fork.name}'s: header key ${f.fork.tell}` : 'a fork of the harness: its header names none'})`;

/**
 * The inherited end-seed marker of v2+ logs: `session/end-seed` whose data
 * says `inherited: true`. The last one marks the cut (its seq = the number of
 * inherited events); an untagged one (`data: {}`) is an ordinary resume marker.
 */
export const isInheritedEndSeed = (e: { type: string; data: unknown }): boolean =>
  e.type === 'session/end-seed' && isObj(e.data) && e.data.inherited === true;

/** The seed cut is marked by an event (v2+), not by the header's seedLength (v0/v1). */
export const seedByMarker = (h: { version: number }): boolean => h.version >= 2;

/**
 * A generation file whose name names another version than its header (the
 * harness: "session generation filename identifies vF, but its header
 * identifies vH", session-persistence-jsonl readGenerationHeader).
 */
export function generationMismatch(nameVersion: number | undefined, headerVersion: number): string | undefined {
  if (nameVersion === undefined || nameVersion === headerVersion) return undefined;
  return `session generation filename identifies v${nameVersion}, but its header identifies v${headerVersion}`;
}

/**
 * The v4 event inventory: KNOWN_SESSION_EVENT_TYPES of the harness's
 * packages/core/session/src/known-event-types.ts (zsagi1368/deepseek-harness-zDSH
 * @1dd6c6a3), which the v4 row admission checks (see docs/formats.md,
 * "Event vocabulary").
 */
const V4_TYPES = [
  'agent-preset/selected', 'agent/inbox/spliced', 'approval/asked', 'approval/decided', 'approval/policy', 'assistant/attempt',
  'assistant/message', 'command/run', 'command/done', 'compaction/start', 'compaction/summary', 'compaction/prune', 'compaction/end',
  'deliverables/presented', 'developer/message', 'feedback/message-delete', 'feedback/message-put', 'feedback/record', 'goal/change',
  'hook/invoked', 'hook/result', 'image/offload', 'llm/retry', 'llm/retry-started', 'model/selection', 'permission/preset', 'plan/mode',
  'request/context', 'request/header', 'sandbox/mode', 'schedule/change', 'session-log-deepseek/delivery-accepted', 'session/end-seed',
  'session/title', 'session/title-llm-request', 'slots/dispatch', 'step/start', 'step/end', 'subagent/catalog', 'subagent/descriptor',
  'subagent/model-selection-policy', 'system/message', 'team/member', 'team/message/delivered', 'team/message/queued', 'team/task',
  'todo/write', 'tool-workflow/run-start', 'tool-workflow/run-end', 'tool-workflow/agent-start', 'tool-workflow/agent-end', 'tool/call',
  'tool/ptc-dispatch-start', 'tool/ptc-dispatch', 'tool/result', 'turn/start', 'turn/end', 'user/message',
  'web/deepseek-search-llm-request', 'workspace/changes',
];
const V4_SET = new Set(V4_TYPES);
/**
 * The released v3 inventory: RELEASED_V3_EVENT_TYPES of the harness's
 * packages/session/session-format-v3-to-v4/src/extension-identities.ts
 * (zsagi1368/deepseek-harness-zDSH @1dd6c6a3): v4's less developer/message
 * and slots/dispatch.
 */
const V3_SET = new Set(V4_TYPES.filter((t) => t !== 'developer/message' && t !== 'slots/dispatch'));
/**
 * The released v2 inventory: RELEASED_V2_EVENT_TYPES of
 * @deepseek-ai/dsh-session-format-v1-to-v2@0.1.3-alpha.2 (lib/index.js): v2
 * spells the PTC dispatch tool/code-dispatch* (renamed by v2-to-v3) and had
 * no system/message, catalog, deliverables, feedback messages, image offload
 * or workspace changes.
 */
const V2_SET = new Set([
  ...[...V3_SET].filter((t) => !t.startsWith('tool/ptc-dispatch') && !['system/message', 'subagent/catalog', 'deliverables/presented', 'feedback/message-delete', 'feedback/message-put', 'image/offload', 'workspace/changes'].includes(t)),
  'tool/code-dispatch-start',
  'tool/code-dispatch',
]);

/** Whether `type` is in format `version`'s event vocabulary (v2 and later). */
export const knownType = (version: number, type: string): boolean => (version === 2 ? V2_SET : version === 3 ? V3_SET : V4_SET).has(type);

/**
 * Why the current harness refuses an event of a v2+ log by its type, or
 * undefined: a type outside the version's vocabulary is admitted only when
 * the row says `ignorable: true` (kept opaque); otherwise the whole log is
 * refused (session-format-v3-to-v4 README, "unknown required events").
 */
export function unknownEventReason(version: number, type: string, ignorable: unknown): string | undefined {
  if (version < 2 || ignorable === true) return undefined;
  if (knownType(version, type)) return undefined;
  return `event type ${JSON.stringify(type.slice(0, 100))} is not in the v${version} vocabulary and not marked "ignorable": true: the harness refuses this log`;
}
