#!/usr/bin/env node
// Generates the bundled demo corpus `sample-sessions/` (dsh v0 / RFC-era format).
//
//   node scripts/make-samples.mjs [outDir]     (default: sample-sessions/ next to scripts/)
//
// Deterministic: fixed timestamps, seeded PRNG per session, no deps. The output
// directory is wiped (only *.jsonl and README.md inside it) and rewritten.
//
// The story: a developer fixing a flaky `RetryQueue` test in a TypeScript repo
// (`payments-api`), a few forks exploring alternatives, a spawned subagent, and
// small side sessions that end in every turn/end reason, plus a live session, an
// empty one, an orphan fork and one damaged file.

import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const OUT = resolve(process.argv[2] ?? join(here, '..', 'sample-sessions'));

const CWD = '/home/dana/src/payments-api';
const at = (d, h, m, s = 0, ms = 0) => Date.UTC(2026, 10, d, h, m, s, ms); // November 2026

// ---------------------------------------------------------------------------
// helpers

/** File-name encoding of a session id: keep [A-Za-z0-9._-], else ~XXXX per UTF-16 unit. */
export function encodeId(id) {
  if (id === '.') return '~002E';
  if (id === '..') return '~002E~002E';
  let out = '';
  for (let i = 0; i < id.length; i++) {
    const ch = id[i];
    out += /[A-Za-z0-9._-]/.test(ch) ? ch : '~' + id.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

function hash32(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The model writes tool arguments with ", " and ": " separators (like the real logs). */
function argJson(v) {
  if (Array.isArray(v)) return '[' + v.map(argJson).join(', ') + ']';
  if (v && typeof v === 'object') {
    return '{' + Object.entries(v).map(([k, x]) => JSON.stringify(k) + ': ' + argJson(x)).join(', ') + '}';
  }
  return JSON.stringify(v);
}

/** Split text into a handful of streaming deltas at word boundaries. */
function deltas(text, max = 3) {
  const n = Math.max(1, Math.min(max, Math.ceil(text.length / 120)));
  const words = text.split(/(?<=\s)/);
  const target = text.length / n;
  const parts = [];
  let cur = '';
  for (const w of words) {
    cur += w;
    if (cur.length >= target && parts.length < n - 1) {
      parts.push(cur);
      cur = '';
    }
  }
  if (cur) parts.push(cur);
  return parts;
}

const USER = { kind: 'user' };
const TRIGGER = { kind: 'message', source: USER };
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

class Session {
  constructor({ id, createdAt, cwd = CWD, parentSession, seedLength, seedLines = [] }) {
    this.header = { type: 'session', version: 0, id, createdAt };
    if (cwd !== undefined) this.header.cwd = cwd;
    if (parentSession !== undefined) this.header.parentSession = parentSession;
    if (seedLength !== undefined) this.header.seedLength = seedLength;
    this.lines = [...seedLines];
    this.t = createdAt;
    this.rand = mulberry32(hash32(id));
    this.turn = seedLines.length ? Math.max(0, ...seedLines.map((l) => JSON.parse(l).data.turn ?? 0)) : 0;
    this.step = 0;
    // rough context size in tokens, for plausible usage numbers
    this.ctx = 1400 + Math.round(seedLines.join('').length / 9);
    this.cached = 0;
    this.tail = undefined; // torn final line, written without "\n"
  }

  get seq() {
    return this.lines.length;
  }

  int(lo, hi) {
    return lo + Math.floor(this.rand() * (hi - lo + 1));
  }

  wait(lo, hi = lo) {
    this.t += this.int(lo, hi);
    return this;
  }

  emit(type, data, extra = {}) {
    const ev = { type, seq: this.seq, time: this.t, data };
    if (extra.sourceEventSeqs) ev.sourceEventSeqs = extra.sourceEventSeqs;
    if (extra.surfaceOp) ev.surfaceOp = extra.surfaceOp;
    this.lines.push(JSON.stringify(ev));
    return ev.seq;
  }

  // --- turn structure -----------------------------------------------------
  user(text, { wait = [20_000, 90_000] } = {}) {
    this.wait(...wait);
    this.turn += 1;
    this.step = 0;
    this.emit('turn/start', { turn: this.turn, trigger: TRIGGER });
    this.wait(0, 2);
    this.emit('user/message', { content: [{ type: 'text', text }], source: USER }, { surfaceOp: 'append' });
    this.ctx += Math.round(text.length / 4);
    return this;
  }

  stepStart() {
    this.step += 1;
    this.wait(0, 2);
    this.emit('step/start', { turn: this.turn, step: this.step });
    return this;
  }

  stepEnd() {
    this.wait(0, 2);
    this.emit('step/end', { turn: this.turn, step: this.step });
    return this;
  }

  turnEnd(reason = { kind: 'completed' }) {
    this.wait(0, 2);
    this.emit('turn/end', { turn: this.turn, reason });
    return this;
  }

  callId(index) {
    let s = '';
    for (let i = 0; i < 22; i++) s += ALNUM[this.int(0, ALNUM.length - 1)];
    return `call_${String(index).padStart(2, '0')}_${s}${this.int(1000, 9999)}`;
  }

  chunk(chunk) {
    return this.emit('assistant/chunk', { turn: this.turn, step: this.step, chunk });
  }

  /**
   * One model response: chunks, then assistant/message, then one tool/call per call.
   * opts: { reasoning?, text?, calls?: [{name, args}], finish?, partial? (stop streaming
   * after this many deltas: no block-end/usage/finish/message) }
   * Returns the calls with their ids and tool/call seqs.
   */
  assistant({ reasoning, text, calls = [], finish, partial, maxOut } = {}) {
    const blocks = [];
    if (reasoning) blocks.push({ type: 'reasoning', text: reasoning });
    if (text) blocks.push({ type: 'text', text });
    calls.forEach((c, k) => {
      blocks.push({ type: 'tool-call', id: this.callId(k), name: c.name, arguments: argJson(c.args) });
    });
    const seqs = [];
    this.wait(350, 1400); // time to first token
    let budget = partial ?? Infinity;
    for (let i = 0; i < blocks.length && budget > 0; i++) {
      const b = blocks[i];
      seqs.push(this.chunk({ type: 'block-start', index: i, blockType: b.type }));
      if (b.type === 'tool-call') {
        const parts = b.arguments.length > 80 ? deltas(b.arguments, 2) : [b.arguments];
        for (const p of parts) {
          if (budget-- <= 0) break;
          this.wait(5, 60);
          seqs.push(this.chunk({ type: 'tool-call-delta', index: i, id: b.id, name: b.name, argumentsDelta: p }));
        }
      } else {
        for (const p of deltas(b.text)) {
          if (budget-- <= 0) break;
          this.wait(20, 140);
          seqs.push(this.chunk({ type: `${b.type}-delta`, index: i, text: p }));
        }
      }
    }
    if (partial !== undefined) return [];
    this.wait(1, 30);
    blocks.forEach((b, i) => seqs.push(this.chunk({ type: 'block-end', index: i, block: b })));
    const outChars = blocks.reduce((n, b) => n + (b.text ?? b.arguments).length, 0);
    const input = this.ctx;
    const cacheRead = Math.min(this.cached, input);
    const usage = {
      inputTokens: input - cacheRead,
      outputTokens: maxOut ?? Math.max(8, Math.round(outChars / 4)),
      cacheReadTokens: cacheRead,
      reasoningTokens: reasoning ? Math.round(reasoning.length / 4.2) : 0,
    };
    this.cached = Math.floor(input / 128) * 128;
    this.ctx += usage.outputTokens;
    seqs.push(this.chunk({ type: 'usage', usage }));
    const kind = finish ?? (calls.length ? 'tool-calls' : 'stop');
    seqs.push(this.chunk({ type: 'finish', reason: { kind } }));
    this.emit(
      'assistant/message',
      { turn: this.turn, step: this.step, content: blocks, usage },
      { sourceEventSeqs: seqs, surfaceOp: 'append' },
    );
    const out = [];
    for (const b of blocks) {
      if (b.type !== 'tool-call') continue;
      const seq = this.emit('tool/call', { turn: this.turn, step: this.step, callId: b.id, name: b.name, arguments: b.arguments });
      out.push({ id: b.id, name: b.name, seq });
    }
    return out;
  }

  result(call, text, { isError = false, error, dur = [40, 400] } = {}) {
    this.wait(...dur);
    const data = { turn: this.turn, step: this.step, callId: call.id, content: [{ type: 'text', text }], isError };
    if (error) data.error = error;
    this.emit('tool/result', data, { sourceEventSeqs: [call.seq], surfaceOp: 'append' });
    this.ctx += Math.round(text.length / 4);
    return this;
  }

  /** A full step: response + results (results: array of text or {text, isError, dur}). */
  doStep(resp, results = []) {
    this.stepStart();
    const calls = this.assistant(resp);
    calls.forEach((c, i) => {
      const r = results[i];
      if (typeof r === 'string') this.result(c, r);
      else this.result(c, r.text, r);
    });
    this.stepEnd();
    return calls;
  }

  todo(todos) {
    this.emit('todo/write', { todos });
  }

  hook(point, handlerNo, decision, { matcher, exitCode = 0, stderrSummary, ms = 9 } = {}) {
    const handlerId = `claude:${point}:${handlerNo}`;
    const inv = { turn: this.turn, point, dialect: 'claude', handlerId };
    if (matcher) inv.matcher = matcher;
    this.emit('hook/invoked', inv);
    this.wait(ms, ms + 12);
    const res = { turn: this.turn, point, handlerId, decision, exitCode };
    if (stderrSummary) res.stderrSummary = stderrSummary;
    res.durationMs = ms + this.int(0, 999) / 1000;
    this.emit('hook/result', res);
  }

  /** Cut point: seedLength for a fork after turn `turn` (inclusive of its turn/end). */
  boundaryAfterTurn(turn) {
    const i = this.lines.findIndex((l) => {
      const e = JSON.parse(l);
      return e.type === 'turn/end' && e.data.turn === turn;
    });
    if (i < 0) throw new Error(`${this.header.id}: no turn/end for turn ${turn}`);
    return i + 1;
  }

  fork(afterTurn, id, createdAt) {
    const seedLength = this.boundaryAfterTurn(afterTurn);
    return new Session({
      id,
      createdAt,
      cwd: this.header.cwd,
      parentSession: this.header.id,
      seedLength,
      seedLines: this.lines.slice(0, seedLength),
    });
  }

  text() {
    let s = JSON.stringify(this.header) + '\n';
    for (const l of this.lines) s += l + '\n';
    if (this.tail !== undefined) s += this.tail;
    return s;
  }
}

// ---------------------------------------------------------------------------
// file contents the agent "reads" (trimmed excerpts, like `read` with offset/limit)

const TEST_EXCERPT = `   12\t  it('drains pending jobs after backoff', async () => {
   13\t    vi.useFakeTimers();
   14\t    const seen: string[] = [];
   15\t    const q = new RetryQueue<string>(async (j) => { seen.push(j); });
   16\t    q.schedule('a', 1);
   17\t    q.schedule('b', 2);
   18\t    await vi.advanceTimersByTimeAsync(550);
   19\t    expect(seen).toEqual(['a', 'b']);
   20\t  });
`;

const SRC_EXCERPT = `   19\t  backoff(attempt: number): number {
   20\t    const base = this.opts.baseDelayMs ?? 200;
   21\t    const jitter = Math.random() * base;
   22\t    return base * 2 ** (attempt - 1) + jitter;
   23\t  }
   24\t
   25\t  schedule(job: T, attempt = 1): void {
   26\t    this.pending.push({ job, attempt, dueAt: Date.now() + this.backoff(attempt) });
   27\t    this.arm();
   28\t  }
`;

const LOOP20 =
  'fails=0; for i in $(seq 1 20); do npx vitest run test/retry-queue.test.ts >/dev/null 2>&1 || { fails=$((fails+1)); echo "run $i: FAIL"; }; done; echo "$fails/20 failed"';

// ---------------------------------------------------------------------------
// 1. root: fix-flaky-retry-test (5 completed turns) + spawned subagent

const sessions = [];
const add = (s) => (sessions.push(s), s);

const root = add(new Session({ id: 'fix-flaky-retry-test', createdAt: at(26, 9, 14, 7, 312) }));
let sub;

// turn 1: find the cause
root.user(
  "`RetryQueue > drains pending jobs after backoff` in test/retry-queue.test.ts is flaky - it fails on CI maybe one run in four. Can you figure out why? Don't change anything yet.",
  { wait: [2, 4] },
);
root.doStep(
  {
    reasoning: 'A flaky timer test. Find the test and the RetryQueue implementation.',
    calls: [{ name: 'bash', args: { command: 'rg -n "drains pending jobs|backoff\\(" src test', description: 'Locate the test and backoff()' } }],
  },
  [{ text: "test/retry-queue.test.ts:12:  it('drains pending jobs after backoff', async () => {\nsrc/lib/retry-queue.ts:19:  backoff(attempt: number): number {\n", dur: [60, 120] }],
);
root.doStep(
  {
    calls: [
      { name: 'read', args: { file_path: 'test/retry-queue.test.ts', offset: 12, limit: 9 } },
      { name: 'read', args: { file_path: 'src/lib/retry-queue.ts', offset: 19, limit: 10 } },
    ],
  },
  [TEST_EXCERPT, SRC_EXCERPT],
);
root.doStep({
  reasoning: 'Attempt 2: 400ms + up to 200ms of jitter, but the test advances 550ms.',
  text: "Found it. `backoff()` adds random jitter: `base * 2 ** (attempt - 1) + Math.random() * base`. With the default 200ms base, job `b` (attempt 2) is due after **400-600ms**, but the test only advances fake time by **550ms**. Whenever `Math.random()` > 0.75, `b` hasn't run yet - that's your one in four.",
});
root.turnEnd();

// turn 2: confirm (an error tool result: unknown CLI flag)
root.user('Makes sense. Can you confirm it by running the test repeatedly before we fix anything?');
root.doStep(
  {
    calls: [{ name: 'bash', args: { command: 'npx vitest run test/retry-queue.test.ts --repeat 20', description: 'Repeat the test 20 times' } }],
  },
  [{ text: 'Exit code 1\n\nCACError: Unknown option `--repeat`\n    at Command.checkUnknownOptions (node_modules/cac/dist/index.mjs:404:17)\n', isError: true, dur: [900, 1400] }],
);
root.doStep(
  {
    reasoning: 'No --repeat flag; loop in the shell.',
    calls: [{ name: 'bash', args: { command: LOOP20, description: 'Run the test 20 times and count failures' } }],
  },
  [{ text: 'run 3: FAIL\nrun 9: FAIL\nrun 14: FAIL\nrun 15: FAIL\nrun 20: FAIL\n5/20 failed\n', dur: [38_000, 46_000] }],
);
root.doStep({ text: 'Confirmed: **5 of 20** runs failed (25%), matching the 0.75 threshold on `Math.random()`.' });
root.turnEnd();

// turn 3: the fix (todo/write, hook events, context/message, failing run)
root.user('OK, fix it. Inject the randomness instead of mocking Math.random globally, and keep the default behaviour unchanged.');
const TODOS = [
  { content: 'Add a `random` option to RetryQueueOptions', status: 'in_progress' },
  { content: 'Pin it in the flaky test', status: 'pending' },
  { content: 'Run the test 20 times', status: 'pending' },
];
root.stepStart();
{
  const [c] = root.assistant({ calls: [{ name: 'todo_write', args: { todos: TODOS } }] });
  root.todo(TODOS);
  root.result(c, 'Updated todo list: 2 pending, 1 in progress, 0 completed.', { dur: [0, 1] });
  root.stepEnd();
}
root.doStep(
  {
    reasoning: 'Inject the source, pin the worst case (0.99) in the test and advance by the maximum delay, 600ms.',
    calls: [
      {
        name: 'edit',
        args: {
          file_path: 'src/lib/retry-queue.ts',
          old_string: 'const jitter = Math.random() * base;',
          new_string: 'const jitter = (this.opts.random ?? Math.random)() * base;',
        },
      },
      {
        name: 'edit',
        args: { file_path: 'test/retry-queue.test.ts', old_string: 'seen.push(j); });', new_string: 'seen.push(j); }, { random: () => 0.99 });' },
      },
      { name: 'edit', args: { file_path: 'test/retry-queue.test.ts', old_string: 'ByTimeAsync(550)', new_string: 'ByTimeAsync(600)' } },
    ],
  },
  ['Edited src/lib/retry-queue.ts (1 replacement)', 'Edited test/retry-queue.test.ts (1 replacement)', 'Edited test/retry-queue.test.ts (1 replacement)'],
);
root.stepStart();
{
  const [c] = root.assistant({ calls: [{ name: 'bash', args: { command: LOOP20, description: 'Re-run the test 20 times' } }] });
  root.wait(39_000, 44_000);
  root.hook('PostToolUse', 1, 'pass', { matcher: 'bash', ms: 11 });
  root.result(c, '0/20 failed\n', { dur: [0, 1] });
  root.emit(
    'context/message',
    {
      content: [{ type: 'text', text: 'Note (PostToolUse hook): CI enforces branch coverage >= 85% for src/lib.' }],
      source: { kind: 'plugin', plugin: 'hooks-claude' },
    },
    { surfaceOp: 'append' },
  );
  root.stepEnd();
}
root.doStep({
  text: 'Fixed: `RetryQueueOptions.random` (defaults to `Math.random`, so production is unchanged); the test pins the worst case and advances 600ms. 20/20 runs pass.',
});
root.turnEnd();

// turn 4: subagent checks callers, then full suite + typecheck
root.user("Double-check nothing else depends on the jitter, then run the full suite and the typecheck.");
root.stepStart();
{
  const [call] = root.assistant({
    calls: [
      {
        name: 'subagent',
        args: { description: 'Find RetryQueue callers', prompt: 'Find every `new RetryQueue(...)` in src and report the options passed. Be brief.' },
      },
    ],
  });
  // the spawned child runs while the parent waits for the tool result
  sub = add(new Session({ id: 'fix-flaky-retry-test/callers', createdAt: root.t + 4, parentSession: root.header.id }));
  sub.user('Find every `new RetryQueue(...)` in src and report the options passed. Be brief.', { wait: [1, 2] });
  sub.doStep(
    { calls: [{ name: 'bash', args: { command: 'rg -n "new RetryQueue" src', description: 'Find RetryQueue constructions' } }] },
    [
      'src/webhooks/dispatcher.ts:31:    this.queue = new RetryQueue(this.deliver, { baseDelayMs: 500, maxAttempts: 8 });\nsrc/payouts/settle.ts:54:  const queue = new RetryQueue(settleOne, opts);\nsrc/ledger/sync.ts:19:const syncQueue = new RetryQueue(pushEntry);\n',
    ],
  );
  const answer =
    'Three call sites, none touch the jitter:\n- `webhooks/dispatcher.ts:31` `{ baseDelayMs: 500, maxAttempts: 8 }`\n- `payouts/settle.ts:54` `{ maxAttempts }` from config\n- `ledger/sync.ts:19` defaults';
  sub.doStep({ text: answer });
  sub.turnEnd();
  root.t = sub.t + 3;
  root.result(call, answer, { dur: [0, 0] });
  root.stepEnd();
}
root.doStep(
  {
    calls: [
      { name: 'bash', args: { command: 'npm test', description: 'Run the full test suite' } },
      { name: 'bash', args: { command: 'npm run typecheck', description: 'Type-check the project' } },
    ],
  },
  [
    { text: ' ✓ test/ledger/sync.test.ts (9 tests) 41ms\n ✓ test/payouts/settle.test.ts (14 tests) 88ms\n ✓ test/retry-queue.test.ts (2 tests) 12ms\n ✓ test/webhooks/dispatcher.test.ts (21 tests) 204ms\n\n Test Files  4 passed (4)\n      Tests  46 passed (46)\n', dur: [2600, 3200] },
    { text: '> tsc --noEmit -p tsconfig.json\n', dur: [4100, 5200] },
  ],
);
root.doStep({ text: 'No caller depends on the jitter; 46/46 tests pass and `tsc --noEmit` is clean.' });
root.turnEnd();

// turn 5: commit message
root.user('Great. Write me a commit message.', { wait: [60_000, 120_000] });
root.doStep({
  text: '```\nfix(retry-queue): make backoff jitter injectable; deflake drain test\n\nAttempt 2 was due after 400-600ms but the test advanced 550ms, so it\nfailed whenever Math.random() > 0.75. Add RetryQueueOptions.random\n(default Math.random) and pin it in the test.\n```',
});
root.turnEnd();

// ---------------------------------------------------------------------------
// 2. forks of the root, cut at different turn boundaries

// A: cut after turn 2 -> alternative fix with a Math.random spy, then aborted
const forkA = add(root.fork(2, 'fix-flaky-retry-test.spy-random', at(27, 14, 30, 12, 640)));
forkA.user("Alternative: leave the code alone and make the test deterministic with vi.spyOn(Math, 'random'). What does that look like?", {
  wait: [1, 1],
});
forkA.doStep(
  {
    calls: [
      {
        name: 'edit',
        args: {
          file_path: 'test/retry-queue.test.ts',
          old_string: '    vi.useFakeTimers();\n',
          new_string: "    vi.useFakeTimers();\n    vi.spyOn(Math, 'random').mockReturnValue(0.5);\n",
        },
      },
    ],
  },
  ['Edited test/retry-queue.test.ts (1 replacement)'],
);
forkA.doStep(
  { calls: [{ name: 'bash', args: { command: LOOP20, description: 'Run the test 20 times' } }] },
  [{ text: '0/20 failed\n', dur: [38_000, 43_000] }],
);
forkA.doStep({
  text: "It works (0/20 failures), but it's the weaker fix: pinning 0.5 means the test never covers the 400-600ms range, and the global spy leaks into anything else using `Math.random`.",
});
forkA.turnEnd();
forkA.user('Run the whole suite too.');
forkA.stepStart();
forkA.assistant({ reasoning: 'Running npm test for the full suite to make sure the spy does not leak into other files.', partial: 2 });
forkA.wait(1500, 2500);
forkA.stepEnd();
forkA.turnEnd({ kind: 'aborted', reason: 'session/cancel' });

// B: cut after turn 1 -> draft an issue, cut off at max-tokens
const forkB = add(root.fork(1, 'fix-flaky-retry-test.issue-writeup', at(26, 10, 2, 41, 77)));
forkB.user('Before fixing it, draft a GitHub issue for the team: root cause plus the full delay table for every attempt.', { wait: [1, 1] });
forkB.doStep({
  text: "### `RetryQueue` drain test is flaky (~25%)\n\n`backoff()` adds `Math.random() * base` jitter, so attempt 2 fires after 400-600ms, but the test advances fake timers by only 550ms.\n\n| attempt | min | max |\n|---|---|---|\n| 1 | 200ms | 400ms |\n| 2 | 400ms | 600ms |\n| 3 | 800ms | 1000ms |\n| 4 | 1600ms | 1800ms |\n| 5 | 3200ms | 3400ms |\n| 6 | 6400ms | ",
  finish: 'max-tokens',
  maxOut: 4096,
});
forkB.turnEnd({ kind: 'max-tokens' });

// C (grandchild): fork of B after its own (max-tokens) turn 2 -> post the issue, then a provider error
const forkC = add(forkB.fork(2, 'fix-flaky-retry-test.issue-writeup.gh', at(27, 9, 10, 5, 903)));
forkC.user('That got cut off. Drop the table, keep the first paragraph and post it with gh, label `flaky-test`.', { wait: [1, 1] });
forkC.doStep(
  {
    calls: [
      {
        name: 'bash',
        args: { command: "gh issue create --title 'RetryQueue drain test is flaky' --label flaky-test --body-file issue.md", description: 'Create the GitHub issue' },
      },
    ],
  },
  [{ text: 'https://github.com/acme-pay/payments-api/issues/1291\n', dur: [1500, 2100] }],
);
forkC.stepStart();
forkC.wait(30_000, 30_000);
forkC.stepEnd();
forkC.turnEnd({ kind: 'error', step: 2, message: 'provider error (HTTP 503): upstream overloaded, retry later', code: 'PROVIDER_UNAVAILABLE' });

// ---------------------------------------------------------------------------
// 3. side sessions, one per remaining turn/end reason

// disposed: reviewing a PR when the editor closed the session
const disposed = add(new Session({ id: 'review-pr-482', createdAt: at(27, 11, 20, 44, 501) }));
disposed.user('Review PR #482 (`gh pr diff 482`) and point out anything risky in the retry changes.', { wait: [2, 3] });
disposed.doStep(
  {
    reasoning: 'Fetch the diff first.',
    calls: [{ name: 'bash', args: { command: 'gh pr diff 482', description: 'Show the PR diff' } }],
  },
  [
    {
      text: "diff --git a/src/webhooks/dispatcher.ts b/src/webhooks/dispatcher.ts\n@@ -28,7 +28,7 @@ export class WebhookDispatcher {\n   constructor(private readonly http: HttpClient) {\n-    this.queue = new RetryQueue(this.deliver, { baseDelayMs: 500, maxAttempts: 8 });\n+    this.queue = new RetryQueue(this.deliver, { baseDelayMs: 50, maxAttempts: 20 });\n   }\n",
      dur: [700, 1100],
    },
  ],
);
disposed.stepStart();
disposed.assistant({
  reasoning: 'baseDelayMs drops 10x while maxAttempts more than doubles: the retry storm against a failing endpoint gets much worse.',
  text: 'One real risk: the PR cuts `baseDelayMs` from 500 to 50 and raises `maxAttempts` to 20, so a failing merchant endpoint',
  partial: 3,
});
disposed.wait(400, 700);
disposed.stepEnd();
disposed.turnEnd({ kind: 'disposed' });

// rejected: a policy hook blocks the prompt (no steps)
const rejected = add(new Session({ id: 'cleanup-stale-branches', createdAt: at(28, 8, 40, 3, 220) }));
rejected.user('List the local branches that are already merged into main.', { wait: [2, 3] });
rejected.doStep(
  {
    calls: [{ name: 'bash', args: { command: 'git branch --merged main', description: 'List merged branches' } }],
  },
  [{ text: '  chore/bump-prettier\n  fix/ledger-rounding\n  fix/retry-jitter\n* main\n  spike/otel-exporter\n', dur: [30, 60] }],
);
rejected.doStep({
  text: 'Four branches are merged into `main`: `chore/bump-prettier`, `fix/ledger-rounding`, `fix/retry-jitter`, `spike/otel-exporter`.',
});
rejected.turnEnd();
{
  rejected.wait(25_000, 40_000);
  rejected.turn += 1;
  rejected.emit('turn/start', { turn: rejected.turn, trigger: TRIGGER });
  rejected.hook('UserPromptSubmit', 1, 'block', { exitCode: 2, stderrSummary: 'blocked by policy hook: force-push to main is not allowed', ms: 14 });
  rejected.emit('prompt/blocked', {
    content: [{ type: 'text', text: 'Delete all of them, then force-push main to origin to drop the bad merge commit.' }],
    source: USER,
    reason: 'blocked by policy hook: force-push to main is not allowed',
  });
  rejected.turnEnd({ kind: 'rejected', reason: 'blocked by policy hook: force-push to main is not allowed' });
}

// interrupted: the harness crashed during `npm install`; crash repair closed the turn on reload
const interrupted = add(new Session({ id: 'bump-vitest', createdAt: at(28, 13, 5, 51, 9) }));
interrupted.user('Upgrade vitest to 4.x and fix whatever breaks.', { wait: [2, 3] });
interrupted.doStep(
  {
    reasoning: 'Check the current version first.',
    calls: [{ name: 'bash', args: { command: 'npm ls vitest', description: 'Show installed vitest' } }],
  },
  [{ text: 'payments-api@2.15.0 /home/dana/src/payments-api\n└── vitest@3.2.4\n', dur: [400, 600] }],
);
interrupted.stepStart();
{
  const [c] = interrupted.assistant({
    reasoning: 'Install the new major.',
    calls: [{ name: 'bash', args: { command: 'npm install -D vitest@^4.1.0', description: 'Upgrade vitest' } }],
  });
  // process died here; 42 minutes later the session was reopened and repaired
  interrupted.wait(42 * 60_000, 43 * 60_000);
  interrupted.result(
    c,
    'The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.',
    { isError: true, error: { name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' }, dur: [0, 0] },
  );
  interrupted.stepEnd();
  interrupted.turnEnd({ kind: 'interrupted' });
}

// ---------------------------------------------------------------------------
// 4. live session: open turn, last event is a tool/call (npm test still running)

const live = add(new Session({ id: 'add-retry-metrics', createdAt: at(28, 21, 38, 12, 744) }));
live.user('Add a prom-client counter `retry_queue_attempts_total` to RetryQueue, labelled by queue name.', { wait: [2, 3] });
live.doStep(
  {
    calls: [
      {
        name: 'edit',
        args: {
          file_path: 'src/metrics.ts',
          old_string: '// retry-queue metrics',
          new_string: "// retry-queue metrics\nexport const retryAttempts = counter('retry_queue_attempts_total', ['queue']);",
        },
      },
    ],
  },
  ['Edited src/metrics.ts (1 replacement)'],
);
live.doStep({ text: 'Added `retryAttempts` (src/metrics.ts); RetryQueue increments it per attempt.' });
live.turnEnd();
live.user('Also add a histogram for the backoff delay, then run the tests.', { wait: [50_000, 70_000] });
live.doStep(
  {
    calls: [
      {
        name: 'edit',
        args: {
          file_path: 'src/metrics.ts',
          old_string: "['queue']);\n",
          new_string: "['queue']);\nexport const retryBackoff = histogram('retry_queue_backoff_seconds', ['queue'], [0.1, 1, 10]);\n",
        },
      },
    ],
  },
  ['Edited src/metrics.ts (1 replacement)'],
);
live.wait(3000, 5000);
live.emit(
  'steering/message',
  { turn: live.turn, content: [{ type: 'text', text: 'Use the existing `buckets` constant instead of new bucket values.' }], source: USER },
  { surfaceOp: 'append' },
);
live.doStep(
  { calls: [{ name: 'edit', args: { file_path: 'src/metrics.ts', old_string: '[0.1, 1, 10]', new_string: 'buckets' } }] },
  ['Edited src/metrics.ts (1 replacement)'],
);
live.stepStart();
live.assistant({ calls: [{ name: 'bash', args: { command: 'npm test', description: 'Run the full test suite' } }] });

// ---------------------------------------------------------------------------
// 5. empty session (header only), orphan fork, damaged file

add(new Session({ id: '5e0b7c1d-2a94-4f3e-8d61-9b7a0c4e2f18', createdAt: at(28, 19, 2, 37, 415) }));

// orphan: the parent session was deleted; its seed survives in the child
{
  const missing = new Session({ id: '0f6c2d9a-8e41-4b7a-a5d3-c2e97f1b8a40', createdAt: at(25, 16, 11, 2, 880) });
  missing.user('The `integration` CI job started timing out after 30 minutes last week. Which commits touched the integration setup since then?', { wait: [2, 3] });
  missing.doStep(
    {
      calls: [
        {
          name: 'bash',
          args: { command: 'git log --oneline --since="2026-11-16" -- test/integration vitest.integration.config.ts', description: 'Recent integration changes' },
        },
      ],
    },
    [{ text: '9c41e0b test(integration): share one Postgres container across files\n51d7a2f chore: bump testcontainers to 11.2\ne08b3c6 test(integration): enable isolate: false for speed\n', dur: [80, 150] }],
  );
  missing.doStep({
    text: 'Three candidates: `9c41e0b` (shared Postgres container), `51d7a2f` (testcontainers bump), `e08b3c6` (`isolate: false`).',
  });
  missing.turnEnd();

  const orphan = add(missing.fork(1, 'bisect-ci-timeout', at(28, 10, 0, 16, 302)));
  orphan.user('Bisect it: good is v2.14.0, bad is main. Use `npm run test:integration -- --bail 1` with a 5 minute timeout as the check.', { wait: [1, 1] });
  orphan.doStep(
    {
      calls: [
        {
          name: 'bash',
          args: {
            command: 'git bisect start main v2.14.0 && git bisect run timeout 300 npm run test:integration -- --bail 1; git bisect reset',
            description: 'Bisect the integration timeout',
          },
        },
      ],
    },
    [
      {
        text: 'Bisecting: 6 revisions left to test after this (roughly 3 steps)\n...\ne08b3c6 is the first bad commit\nbisect found first bad commit\n',
        dur: [540_000, 620_000],
      },
    ],
  );
  orphan.doStep({
    text: 'First bad commit: `e08b3c6` (`isolate: false`) - the shared Postgres pool leaks a client across files. Close the pool in `afterAll` or revert.',
  });
  orphan.turnEnd();
}

// damaged: a welded line in the middle and a torn tail
const damaged = add(new Session({ id: 'migrate-eslint-flat-config', createdAt: at(28, 17, 20, 9, 66) }));
damaged.user('Migrate our .eslintrc.cjs to the flat config format (eslint.config.js).', { wait: [2, 3] });
damaged.doStep(
  {
    reasoning: 'typescript-eslint ships a flat config helper.',
    calls: [
      {
        name: 'write',
        args: {
          file_path: 'eslint.config.js',
          content: "import js from '@eslint/js';\nimport tseslint from 'typescript-eslint';\n\nexport default tseslint.config(\n  { ignores: ['dist/'] },\n  js.configs.recommended,\n  ...tseslint.configs.recommended,\n);\n",
        },
      },
    ],
  },
  ['Wrote eslint.config.js (8 lines)'],
);
damaged.doStep({ text: 'Wrote `eslint.config.js` using `tseslint.config(...)`; `.eslintrc.cjs` can be deleted once lint passes.' });
damaged.turnEnd();
damaged.user('Delete the old file and run npm run lint.');
damaged.stepStart();
{
  const [c] = damaged.assistant({
    calls: [{ name: 'bash', args: { command: 'rm .eslintrc.cjs && npm run lint', description: 'Remove old config and lint' } }],
  });
  damaged.result(c, '> payments-api@2.15.0 lint\n> eslint .\n\n✔ 0 problems\n', { dur: [3000, 4000] });
  // the tool/result line is torn: only its first part reached the disk, no "\n"
  const torn = damaged.lines.pop();
  damaged.tail = torn.slice(0, Math.floor(torn.length * 0.6));
  // weld: a half-written chunk line glued to the following line, in the middle of turn 1
  const k = damaged.lines.findIndex((l) => l.includes('"tool-call-delta"'));
  const half = damaged.lines[k].slice(0, Math.floor(damaged.lines[k].length / 2));
  damaged.lines.splice(k, 2, half + damaged.lines[k + 1]);
  damaged.weld = { seq: k, snippet: half.slice(-6) + damaged.lines[k].slice(half.length, half.length + 8) };
}

// ---------------------------------------------------------------------------
// write

const README_ROWS = [
  [root, 'root session: 5 completed turns, many steps, parallel `read`/`edit`/`bash` calls, two error tool results (unknown CLI flag, failing test run), `todo/write`, hook events + `context/message`, spawns a subagent in turn 4'],
  [sub, 'subagent spawned by the root in turn 4 (`parentSession`, no `seedLength`); its id contains `/`, so the file name encodes it as `~002F`'],
  [forkA, `fork of the root after turn 2 (seedLength ${forkA.header.seedLength}); alternative fix, then a turn \`aborted\` (session/cancel) mid-stream`],
  [forkB, `fork of the root after turn 1 (seedLength ${forkB.header.seedLength}); its issue draft ends in \`max-tokens\``],
  [forkC, `fork of a fork (grandchild): *issue-writeup* cut right after its \`max-tokens\` turn 2 (seedLength ${forkC.header.seedLength}); ends in \`error\` (HTTP 503 at step 2)`],
  [disposed, 'turn ends `disposed` while the answer is streaming (partial chunks, no assistant/message)'],
  [rejected, 'one completed turn, then a turn `rejected` by a UserPromptSubmit hook: `prompt/blocked`, no steps'],
  [interrupted, 'crash during `npm install`: crash repair wrote a synthetic error `tool/result` (TOOL_OUTCOME_UNKNOWN), `step/end`, `turn/end {interrupted}` 42 min later'],
  [live, 'live: turn 2 is still open, last event is a `tool/call` (`npm test` running); has a `steering/message`'],
  [sessions.find((s) => s.header.id.startsWith('5e0b7c1d')), 'empty session: header only (forkable, no events)'],
  [sessions.find((s) => s.header.id === 'bisect-ci-timeout'), 'orphan: fork child whose `parentSession` (0f6c2d9a-…) is not in the corpus; seed kept verbatim'],
  [damaged, `damaged: in turn 1 a half-written \`assistant/chunk\` line (seq ${damaged.weld.seq}) is welded to the next line (\`…${damaged.weld.snippet}…\`), and the final line is a torn \`tool/result\` with no \`\\n\` (turn 2 open)`],
];

function readme() {
  let s = '# sample-sessions\n\n';
  s += 'Demo corpus for `dsh-browse` in the dsh v0 (RFC-era) format, one session per file\n';
  s += '(`<encoded id>.jsonl`). Generated by `node scripts/make-samples.mjs` - do not edit by hand.\n\n';
  s += 'The story: a developer fixing a flaky `RetryQueue` test in a TypeScript repo, with forks\n';
  s += 'exploring alternatives, plus small sessions that end in every `turn/end` reason.\n\n';
  s += '| file | id | shows |\n|---|---|---|\n';
  for (const [sess, what] of README_ROWS) {
    s += `| \`${encodeId(sess.header.id)}.jsonl\` | \`${sess.header.id}\` | ${what} |\n`;
  }
  s += '\nLineage:\n\n```\nfix-flaky-retry-test\n';
  s += '├─ fix-flaky-retry-test/callers            (spawned subagent, turn 4)\n';
  s += `├─ fix-flaky-retry-test.spy-random         (fork after turn 2, seedLength ${forkA.header.seedLength})\n`;
  s += `└─ fix-flaky-retry-test.issue-writeup      (fork after turn 1, seedLength ${forkB.header.seedLength})\n`;
  s += `   └─ fix-flaky-retry-test.issue-writeup.gh   (fork after turn 2, seedLength ${forkC.header.seedLength})\n`;
  s += '0f6c2d9a-8e41-4b7a-a5d3-c2e97f1b8a40       (missing)\n';
  s += `└─ bisect-ci-timeout                       (orphan fork, seedLength ${sessions.find((x) => x.header.id === 'bisect-ci-timeout').header.seedLength})\n`;
  s += '```\n';
  return s;
}

if (README_ROWS.length !== sessions.length) throw new Error('README table is missing a session');

mkdirSync(OUT, { recursive: true });
for (const f of readdirSync(OUT)) {
  if (f.endsWith('.jsonl') || f === 'README.md') rmSync(join(OUT, f));
}
const seen = new Set();
for (const s of sessions) {
  const name = encodeId(s.header.id) + '.jsonl';
  if (seen.has(name)) throw new Error(`duplicate file ${name}`);
  seen.add(name);
  writeFileSync(join(OUT, name), s.text());
}
writeFileSync(join(OUT, 'README.md'), readme());
console.log(`wrote ${sessions.length} sessions + README.md to ${OUT}`);
