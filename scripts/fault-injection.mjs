#!/usr/bin/env node
// Fault injection for the fork writer. Needs `npm run build`.
//
//   node scripts/fault-injection.mjs [--trials N] [--race-trials N] [--size MB] [--keep]
//
// (a) kill -9: a child process forks a large parent (`dsh-browse fork`), and is
//     SIGKILLed at a random moment: half the trials at a uniform random delay
//     over the whole fork (start-up, load, write), half at a random moment of
//     the write itself (once its temp file exists). After each kill the root is
//     loaded: either the complete child is visible and its seed verifies against
//     the parent (no SEED_MISMATCH), or no child is visible; the parent's sha256
//     never changes; leftover temp files are counted (the loader ignores them).
// (b) race: two processes fork the same parent to the same child id at once:
//     exactly one succeeds, the other gets SESSION_ALREADY_EXISTS (exit 1, JSON).
//
// Prints a summary table and a last line `RESULT {json}`; exits 1 on any violation.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(REPO, 'dist', 'dsh-browse.mjs');
if (!fs.existsSync(CLI)) {
  console.error('fault-injection: dist/dsh-browse.mjs is missing: run `npm run build` first');
  process.exit(2);
}
const { loadRootSync } = await import(path.join(REPO, 'dist/src/storage/load-root.js'));
const { auditSessions } = await import(path.join(REPO, 'dist/src/session/audit.js'));

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return def;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} expects a number`);
  return v;
}
const TRIALS = arg('trials', 50);
const RACE_TRIALS = arg('race-trials', TRIALS);
const SIZE_MB = arg('size', 20);
const KEEP = process.argv.includes('--keep');

const sha = (f) => crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex');
const isTemp = (n) => n.startsWith('.') && n.endsWith('.tmp');
const now = () => Number(process.hrtime.bigint() / 1000n) / 1000; // ms

/** A parent of about `mb` MB: many completed turns with ~2 KB prompts. */
function writeParent(file, mb, id) {
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, JSON.stringify({ type: 'session', version: 0, id, createdAt: Date.now(), cwd: '/work/big' }) + '\n');
  let seq = 0;
  let size = 0;
  const t0 = 1_700_000_000_000;
  const ev = (type, data) => JSON.stringify({ type, seq: seq, time: t0 + seq++, data }) + '\n';
  for (let turn = 1; size < mb * 1024 * 1024; turn++) {
    const filler = `turn ${turn} `.padEnd(2000, 'lorem ipsum dolor sit amet ');
    const lines =
      ev('turn/start', { turn, trigger: 'user' }) +
      ev('user/message', { content: [{ type: 'text', text: filler }], source: 'user' }) +
      ev('step/start', { turn, step: 1 }) +
      ev('assistant/message', { turn, step: 1, content: [{ type: 'text', text: `answer ${turn}` }] }) +
      ev('step/end', { turn, step: 1 }) +
      ev('turn/end', { turn, reason: { kind: 'completed' } });
    fs.writeSync(fd, lines);
    size += Buffer.byteLength(lines);
  }
  fs.closeSync(fd);
  return seq;
}

function runFork(root, session, id) {
  const child = spawn(process.execPath, [CLI, 'fork', '--dir', root, '--session', session, '--id', id, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, out, err })));
  return { child, done };
}

/** Resolves when a temp file for `name` appears in `dir` (polling), or when `stop()` is true. */
async function waitForTemp(dir, name, stop) {
  for (;;) {
    if (stop()) return false;
    if (fs.readdirSync(dir).some((n) => n.startsWith(`.${name}.`) && n.endsWith('.tmp'))) return true;
    await new Promise((r) => setImmediate(r));
  }
}

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-fault-'));
const violations = [];

// ---- (a) kill -9 during a fork --------------------------------------------
const root = path.join(tmpRoot, 'kill');
fs.mkdirSync(root);
const parentFile = path.join(root, 'big.jsonl');
const parentEvents = writeParent(parentFile, SIZE_MB, 'big');
const parentSha = sha(parentFile);
const parentBytes = fs.statSync(parentFile).size;

// calibration: how long a whole fork takes, and how long its write phase lasts
let forkMs = 0;
let writeMs = 0;
{
  const t0 = now();
  const { done } = runFork(root, 'big', 'calib');
  let exited = false;
  done.then(() => (exited = true));
  await waitForTemp(root, 'calib.jsonl', () => exited);
  const tWrite = now();
  const r = await done;
  forkMs = now() - t0;
  writeMs = Math.max(1, now() - tWrite);
  if (r.code !== 0) throw new Error(`calibration fork failed: ${r.err || r.out}`);
  fs.unlinkSync(path.join(root, 'calib.jsonl'));
}

const kill = { trials: 0, uniform: 0, writePhase: 0, killedInWrite: 0, finishedBeforeKill: 0, complete: 0, none: 0, tempLeft: 0, tempTrials: 0, parentChanged: 0, seedMismatch: 0, invisibleFile: 0 };
for (let i = 0; i < TRIALS; i++) {
  const id = 'child';
  const writePhase = i % 2 === 1;
  const { child, done } = runFork(root, 'big', id);
  let exited = false;
  done.then(() => (exited = true));
  let tempSeen = false;
  if (writePhase) {
    kill.writePhase++;
    tempSeen = await waitForTemp(root, `${id}.jsonl`, () => exited);
    await new Promise((r) => setTimeout(r, Math.random() * writeMs));
  } else {
    kill.uniform++;
    await new Promise((r) => setTimeout(r, Math.random() * forkMs * 1.1));
  }
  if (!exited) {
    tempSeen ||= fs.readdirSync(root).some(isTemp);
    child.kill('SIGKILL');
    if (tempSeen) kill.killedInWrite++;
  } else kill.finishedBeforeKill++;
  await done;
  kill.trials++;

  // what does the loader see?
  const index = loadRootSync(root);
  const visible = index.store.getAll(id);
  const onDisk = fs.existsSync(path.join(root, `${id}.jsonl`));
  if (visible.length === 1) {
    const c = visible[0];
    const parent = index.store.get(parentFile);
    const findings = auditSessions([parent, c]).filter((f) => f.session === id && f.severity === 'error');
    if (findings.length || c.length !== parentEvents || c.seedLength !== parentEvents || c.diagnostics.length) {
      kill.seedMismatch++;
      violations.push(`kill trial ${i}: child visible but not complete: ${JSON.stringify(findings.map((f) => f.message))} length ${c.length}/${parentEvents}`);
    } else kill.complete++;
  } else {
    kill.none++;
    if (onDisk) {
      kill.invisibleFile++;
      violations.push(`kill trial ${i}: ${id}.jsonl exists but the loader does not show it`);
    }
  }
  if (sha(parentFile) !== parentSha) {
    kill.parentChanged++;
    violations.push(`kill trial ${i}: the parent's bytes changed`);
  }
  const temps = fs.readdirSync(root).filter(isTemp);
  if (temps.length) kill.tempTrials++;
  kill.tempLeft += temps.length;
  for (const n of [...temps, `${id}.jsonl`]) fs.rmSync(path.join(root, n), { force: true });
}

// ---- (b) two processes race to the same child id ----------------------------
const raceRoot = path.join(tmpRoot, 'race');
fs.mkdirSync(raceRoot);
const smallFile = path.join(raceRoot, 'small.jsonl');
writeParent(smallFile, 0.05, 'small');
const smallSha = sha(smallFile);
const race = { trials: 0, oneWinner: 0, loserAlreadyExists: 0, bothWon: 0, noneWon: 0, otherError: 0, parentChanged: 0 };
for (let i = 0; i < RACE_TRIALS; i++) {
  const id = `race-${i}`;
  const a = runFork(raceRoot, 'small', id);
  const b = runFork(raceRoot, 'small', id);
  const rs = await Promise.all([a.done, b.done]);
  race.trials++;
  const wins = rs.filter((r) => r.code === 0);
  const losers = rs.filter((r) => r.code !== 0);
  if (wins.length === 1) race.oneWinner++;
  else if (wins.length === 2) race.bothWon++;
  else race.noneWon++;
  for (const r of losers) {
    let code;
    try {
      code = JSON.parse(r.out).error?.code;
    } catch {
      /* not JSON */
    }
    if (r.code === 1 && code === 'SESSION_ALREADY_EXISTS') race.loserAlreadyExists++;
    else {
      race.otherError++;
      violations.push(`race trial ${i}: loser exit ${r.code} ${r.signal ?? ''} ${r.out.trim()} ${r.err.trim()}`);
    }
  }
  if (wins.length !== 1) violations.push(`race trial ${i}: ${wins.length} winners`);
  const index = loadRootSync(raceRoot);
  const kids = index.store.getAll(id);
  if (kids.length !== 1 || kids[0].length !== index.store.get(smallFile).length) violations.push(`race trial ${i}: ${kids.length} child sessions visible`);
  if (fs.readdirSync(raceRoot).some(isTemp)) violations.push(`race trial ${i}: temp files left`);
  if (sha(smallFile) !== smallSha) {
    race.parentChanged++;
    violations.push(`race trial ${i}: the parent's bytes changed`);
  }
  fs.rmSync(path.join(raceRoot, `${id}.jsonl`), { force: true });
}

// ---- report ---------------------------------------------------------------
const rows = [
  ['kill -9 during fork', ''],
  ['  parent', `${(parentBytes / 1024 / 1024).toFixed(1)} MB, ${parentEvents} events`],
  ['  fork duration (calibrated)', `${forkMs.toFixed(0)} ms total, write phase ${writeMs.toFixed(0)} ms`],
  ['  trials', `${kill.trials} (${kill.uniform} uniform over the fork, ${kill.writePhase} inside the write)`],
  ['  killed while the temp file existed', String(kill.killedInWrite)],
  ['  finished before the kill', String(kill.finishedBeforeKill)],
  ['  complete child visible (seed verified)', String(kill.complete)],
  ['  no child visible', String(kill.none)],
  ['  partial / bad child visible', String(kill.seedMismatch)],
  ['  child file on disk but not loadable', String(kill.invisibleFile)],
  ['  temp files left (trials with any)', `${kill.tempLeft} (${kill.tempTrials})`],
  ['  parent changed', String(kill.parentChanged)],
  ['race: two forks to the same id', ''],
  ['  one winner', `${race.oneWinner}/${race.trials}`],
  ['  loser got SESSION_ALREADY_EXISTS (exit 1, JSON)', `${race.loserAlreadyExists}/${race.trials}`],
  ['  both won / none won / other errors', `${race.bothWon} / ${race.noneWon} / ${race.otherError}`],
  ['  parent changed', String(race.parentChanged)],
];
const w = Math.max(...rows.map((r) => r[0].length));
for (const [k, v] of rows) console.log(v === '' ? k : `${k.padEnd(w)}  ${v}`);
if (violations.length) {
  console.log(`\n${violations.length} violation(s):`);
  for (const v of violations.slice(0, 20)) console.log('  ' + v);
}
console.log('RESULT ' + JSON.stringify({ kill, race, forkMs: Math.round(forkMs), writeMs: Math.round(writeMs), parentBytes, violations: violations.length }));
if (!KEEP) fs.rmSync(tmpRoot, { recursive: true, force: true });
else console.log(`kept ${tmpRoot}`);
process.exitCode = violations.length ? 1 : 0;
