#!/usr/bin/env node
// judge.mjs: the harness's own published session-format code (v0-v3) as a test oracle.
//
// Usage: node judge.mjs FILE...        or   ls ... | node judge.mjs
// One JSON line per file (never crashes on a file):
//   {file, version, ok, reason?, errorName?, inherited?, events?, reencodeEqual?, upgrade, ms, ...}
//
// ok       strict verdict of opening the file at its own version: the catalog built for that version
//          (createSessionFormatCatalog, currentVersion = the header's version) with
//          {recovery: 'strict', validation: 'current'}: codec decode + that version's released restorer
//          (v3: restoreReleasedV3Artifact, v2: restoreReleasedV2Artifact, v1: restoreReleasedV1Artifact,
//          v0: none is published, so v0 = codec decode only).
// reason   error.message of the harness code, verbatim. Reasons the judge itself writes start with "[judge]".
// inherited  the exact inherited cut the decoder's finish() returns (only for seeded headers).
// reencodeEqual  (v2/v3, when ok) header = codec.encodeHeader(header, inherited), rows = codec.encodeEvent(e);
//          each JSON.stringify'd, joined by "\n" with a final "\n", compared byte for byte with the file.
//          v0/v1 codecs publish no encoder: omitted.
// upgrade  (version < 3) the edges v0->v1, v1->v2, v2->v3 called one by one (the published 0.1.3-alpha.2
//          catalog cannot chain them: see upgrade.catalog), then restoreReleasedV3Artifact.
//          edge = the first edge that refuses (a final restore refusal is reported on 'v2->v3', stage 'restore').
//          upgrade.catalog = what the harness-like V3 catalog's own createRestore says in one call.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createSessionFormatCatalog } from '@deepseek-ai/dsh-session-format';
import {
  RELEASED_V0_EVENT_TYPES,
  releasedV0SessionFormatCodec,
  releasedV1SessionFormatCodec,
  restoreReleasedV1Artifact,
  sessionFormatV0ToV1,
} from '@deepseek-ai/dsh-session-format-v0-to-v1';
import {
  RELEASED_V2_EVENT_TYPES,
  assertReleasedV2Header,
  releasedV2SessionFormatCodec,
  restoreReleasedV2Artifact,
  sessionFormatV1ToV2,
} from '@deepseek-ai/dsh-session-format-v1-to-v2';
import {
  assertReleasedV3Header,
  releasedV3SessionFormatCodec,
  restoreReleasedV3Artifact,
  sessionFormatV2ToV3,
} from '@deepseek-ai/dsh-session-format-v2-to-v3';

// Known event vocabularies. V3: the harness's fixed released-V3 list, RELEASED_V3_EVENT_TYPES
// (zsagi1368/deepseek-harness-zDSH @1dd6c6a packages/session/session-format-v3-to-v4/src/extension-identities.ts);
// not exported by any published package, so its names are listed here. The harness's generated catalog passes
// KNOWN_SESSION_EVENT_TYPES of its own dsh-session build (v3-era dsh-session is not published).
export const RELEASED_V3_EVENT_TYPES = new Set([
  'agent-preset/selected', 'agent/inbox/spliced', 'approval/asked', 'approval/decided', 'approval/policy',
  'assistant/attempt', 'assistant/message', 'command/done', 'command/run', 'compaction/end', 'compaction/prune',
  'compaction/start', 'compaction/summary', 'deliverables/presented', 'feedback/message-delete',
  'feedback/message-put', 'feedback/record', 'goal/change', 'hook/invoked', 'hook/result', 'image/offload',
  'llm/retry', 'llm/retry-started', 'model/selection', 'permission/preset', 'plan/mode', 'request/context',
  'request/header', 'sandbox/mode', 'schedule/change', 'session-log-deepseek/delivery-accepted',
  'session/end-seed', 'session/title', 'session/title-llm-request', 'step/end', 'step/start', 'subagent/catalog',
  'subagent/descriptor', 'subagent/model-selection-policy', 'system/message', 'team/member',
  'team/message/delivered', 'team/message/queued', 'team/task', 'todo/write', 'tool-workflow/agent-end',
  'tool-workflow/agent-start', 'tool-workflow/run-end', 'tool-workflow/run-start', 'tool/call',
  'tool/ptc-dispatch', 'tool/ptc-dispatch-start', 'tool/result', 'turn/end', 'turn/start', 'user/message',
  'web/deepseek-search-llm-request', 'workspace/changes',
]);
const RELEASED_V2_KNOWN = new Set(RELEASED_V2_EVENT_TYPES);
const RELEASED_V1_KNOWN = new Set(RELEASED_V0_EVENT_TYPES);

export const STRICT = Object.freeze({ recovery: 'strict', validation: 'current' });
const CODECS = [releasedV0SessionFormatCodec, releasedV1SessionFormatCodec, releasedV2SessionFormatCodec, releasedV3SessionFormatCodec];
const EDGES = [sessionFormatV0ToV1, sessionFormatV1ToV2, sessionFormatV2ToV3];
const EDGE_NAMES = ['v0->v1', 'v1->v2', 'v2->v3'];
// v0/v1 codecs have no encoder; createSessionFormatCatalog binds currentEncoder.encodeEvent at construction.
const NO_ENCODER = Object.freeze({
  encodeHeader() { throw new Error('[judge] no published encoder for this version'); },
  encodeEvent() { throw new Error('[judge] no published encoder for this version'); },
});
const restoreV3 = (artifact) => restoreReleasedV3Artifact(artifact, RELEASED_V3_EVENT_TYPES);
const restoreV2 = (artifact) => restoreReleasedV2Artifact(artifact, RELEASED_V2_KNOWN);
const restoreV1 = (artifact) => restoreReleasedV1Artifact(artifact, RELEASED_V1_KNOWN);

/** The harness's V3 catalog (as its generated catalog / v2-to-v3 test catalog assemble it). */
export const catalogV3 = createSessionFormatCatalog({
  currentVersion: 3,
  codecs: CODECS,
  currentEncoder: releasedV3SessionFormatCodec,
  migrations: EDGES,
  restoreCurrent: restoreV3,
  restoreTransformedCurrent: restoreV3,
  restoreCurrentHeader(header) { assertReleasedV3Header(header); return header; },
});
/** Own-version catalogs: a build whose writer is that version. */
const OWN = [
  createSessionFormatCatalog({
    currentVersion: 0, codecs: CODECS.slice(0, 1), currentEncoder: NO_ENCODER, migrations: [],
    restoreCurrent: (a) => a, restoreTransformedCurrent: (a) => a, restoreCurrentHeader: (h) => h,
  }),
  createSessionFormatCatalog({
    currentVersion: 1, codecs: CODECS.slice(0, 2), currentEncoder: NO_ENCODER, migrations: EDGES.slice(0, 1),
    restoreCurrent: restoreV1, restoreTransformedCurrent: restoreV1, restoreCurrentHeader: (h) => h,
  }),
  createSessionFormatCatalog({
    currentVersion: 2, codecs: CODECS.slice(0, 3), currentEncoder: releasedV2SessionFormatCodec, migrations: EDGES.slice(0, 2),
    restoreCurrent: restoreV2, restoreTransformedCurrent: restoreV2,
    restoreCurrentHeader(header) { assertReleasedV2Header(header); return header; },
  }),
  catalogV3,
];

/** Keeps events and compact runs in order (runs stay runs: the v1->v2 edge consumes packed Assistant rows whole). */
class ItemCollector {
  items = [];
  emitEvent(event) { this.items.push({ event }); }
  emitRun(run) { this.items.push({ run }); }
}
const expand = (items) => items.flatMap((item) => item.event !== undefined ? [item.event] : [...item.run.expand()]);

function fail(error) {
  const out = { reason: error instanceof Error ? error.message : String(error) };
  const name = error instanceof Error ? error.name : typeof error;
  if (name !== 'SessionFormatError') out.errorName = name;
  return out;
}

/** Read a file's text; .zstd through the zstd tool (neither the catalog nor Node 20's zlib decodes zstd). */
function readText(file) {
  if (!file.endsWith('.zstd') && !file.endsWith('.zst')) return { text: fs.readFileSync(file, 'utf8') };
  const run = spawnSync('zstd', ['-q', '-dc', '--', file], { maxBuffer: 1 << 30 });
  if (run.error || run.status !== 0) {
    const detail = run.error ? run.error.message : String(run.stderr).split('\r').pop().trim();
    throw new Error(`[judge] zstd -dc failed: ${detail}`);
  }
  return { text: run.stdout.toString('utf8'), via: 'zstd -dc' };
}

/** Physical lines -> parsed rows. A last line without "\n" is a torn tail: dropped, as the harness does. */
function parseRows(text) {
  const lines = text.split('\n');
  const last = lines.pop();
  const tornTail = last !== '';
  const rows = lines.map((line, index) => {
    try { return JSON.parse(line); } catch (error) {
      throw new Error(`[judge] line ${index + 1} is not JSON: ${error.message}`);
    }
  });
  return { rows, tornTail };
}

function reencode(codec, artifact, text) {
  const lines = [JSON.stringify(codec.encodeHeader(artifact.header, artifact.inheritedEventCount))];
  for (const event of artifact.events) lines.push(JSON.stringify(codec.encodeEvent(event)));
  const encoded = lines.join('\n') + '\n';
  if (encoded === text) return { reencodeEqual: true };
  const original = text.split('\n');
  const line = lines.findIndex((value, index) => value !== original[index]);
  return { reencodeEqual: false, reencodeFirstDiffLine: line === -1 ? lines.length + 1 : line + 1 };
}

/** Upgrade to v3 edge by edge: decode (+finish for the cut), then each stage with the cut it was handed. */
function upgrade(version, headerValue, rows) {
  let collector = new ItemCollector();
  let header;
  let cut;
  try {
    const decoder = CODECS[version].createDecoder(headerValue, 'strict');
    for (const row of rows) decoder.decodeRow(row, collector);
    cut = decoder.finish(collector);
    header = decoder.header;
  } catch (error) {
    return { to: 3, ok: false, stage: 'decode', ...fail(error) };
  }
  for (let from = version; from < 3; from += 1) {
    const edge = EDGES[from];
    try {
      const targetHeader = edge.migrateHeader(header);
      edge.validateTargetHeader(targetHeader);
      const stage = edge.createStage({
        sourceHeader: header, targetHeader, sourceInheritedEventCount: cut,
        sourceKind: from === version ? 'decoded' : 'transformed',
      });
      const output = new ItemCollector();
      for (const item of collector.items) {
        if (item.event !== undefined) stage.transformEvent(item.event, output);
        else stage.transformRun(item.run, output);
      }
      cut = stage.finish(output);
      header = targetHeader;
      collector = output;
    } catch (error) {
      return { to: 3, ok: false, edge: EDGE_NAMES[from], ...fail(error) };
    }
  }
  try {
    const artifact = restoreV3({ header, inheritedEventCount: cut, events: expand(collector.items) });
    return { to: 3, ok: true, inherited: artifact.inheritedEventCount, events: artifact.events.length };
  } catch (error) {
    return { to: 3, ok: false, edge: 'v2->v3', stage: 'restore', ...fail(error) };
  }
}

function restoreWith(catalog, headerValue, rows) {
  const restore = catalog.createRestore(headerValue, STRICT);
  for (const row of rows) restore.decodeRow(row);
  return restore.finish();
}

export function judge(file) {
  const started = performance.now();
  const out = { file, version: null, ok: false };
  try {
    const { text, via } = readText(file);
    if (via) out.decompressedWith = via;
    const { rows, tornTail } = parseRows(text);
    if (tornTail) out.tornTail = true;
    if (rows.length === 0) throw new Error('[judge] empty file: no header line');
    const [headerValue, ...body] = rows;
    const version = headerValue?.version;
    out.version = version ?? null;
    if (!Number.isSafeInteger(version) || version < 0 || version > 3) {
      Object.assign(out, { reason: `[judge] header version ${JSON.stringify(version)}: the published catalog reads v0-v3 only` });
      if (Number.isSafeInteger(version) && version > 3) {
        const header = catalogV3.readHeader(headerValue); // the catalog's own answer for a newer version
        out.reason = header.reason ?? out.reason;
        out.upgrade = { to: 3, ok: false, catalog: { status: header.status } };
      }
      return out;
    }
    // Own-version verdict through that version's catalog.
    let artifact;
    try {
      artifact = restoreWith(OWN[version], headerValue, body);
      out.ok = true;
    } catch (error) {
      Object.assign(out, fail(error));
    }
    if (artifact !== undefined) {
      if (artifact.header.isSeeded) out.inherited = artifact.inheritedEventCount;
      out.events = artifact.events.length;
      if (version >= 2) {
        try { Object.assign(out, reencode(CODECS[version], artifact, text)); } catch (error) {
          out.reencodeEqual = false; out.reencodeReason = fail(error).reason;
        }
      }
    } else {
      // Refused: still report the cut the decoder exposes when the physical decode itself finishes.
      try {
        const decoder = CODECS[version].createDecoder(headerValue, 'strict');
        const sink = new ItemCollector();
        for (const row of body) decoder.decodeRow(row, sink);
        const cut = decoder.finish(sink);
        if (decoder.header.isSeeded) out.inherited = cut;
        out.events = expand(sink.items).length;
        out.decodeOk = true;
      } catch { out.decodeOk = false; }
    }
    if (version < 3) {
      out.upgrade = upgrade(version, headerValue, body);
      try {
        restoreWith(catalogV3, headerValue, body);
        out.upgrade.catalog = { ok: true };
      } catch (error) {
        out.upgrade.catalog = { ok: false, ...fail(error) };
      }
    } else {
      out.upgrade = { to: 3, ok: out.ok, current: true };
    }
  } catch (error) {
    Object.assign(out, fail(error));
  } finally {
    out.ms = Math.round((performance.now() - started) * 10) / 10;
  }
  return out;
}

async function readStdinLines() {
  if (process.stdin.isTTY) return [];
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8').split('\n').map((line) => line.trim()).filter(Boolean);
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const files = process.argv.length > 2 ? process.argv.slice(2) : await readStdinLines();
  for (const file of files) {
    let line;
    try { line = JSON.stringify(judge(file)); } catch (error) {
      line = JSON.stringify({ file, version: null, ok: false, reason: `[judge] ${String(error?.message ?? error)}` });
    }
    process.stdout.write(line + '\n');
  }
}
