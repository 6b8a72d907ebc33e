// A demo writer: plays a realistic coding agent into a NEW session file at a
// human pace, writing exactly the way the harness does (docs/formats.md,
// "Files on disk"), so the
// browser's live following can be shown and tested:
// - the file is born complete: header + first event go to a temp file in the
//   same folder, fsync, hard-link to the final name (fails if it exists),
//   fsync the folder, remove the temp;
// - every later event is one whole line appended at the end, then fsync;
// - with `tornWrites`, some lines are appended in two parts with a pause in
//   between, sometimes split inside a multi-byte UTF-8 character, so a reader
//   sees a final line without "\n" (pending) for a while.
// v0 format (the format we write): turn/start, user/message, step/start,
// assistant/chunk deltas, assistant/message, tool/call, tool/result, step/end,
// ..., turn/end {completed}.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { isSessionForkError, SessionForkError } from '../session/errors.js';
import { writeNewSessionFile } from './atomic-writer.js';
import { encodeId } from './id-encoding.js';
import { SCRIPT, type Step, type ToolUse } from './simulate-script.js';

export interface SimulateOptions {
  /** folder the new session file goes into (created if missing) */
  dir: string;
  /** session id; default `sim-<timestamp>` */
  id?: string;
  /** number of turns, default 3 */
  turns?: number;
  /** 1 = human pace (50-300 ms between events, tools run for ~0.5-2 s); larger is faster */
  speed?: number;
  /** append some lines in two parts with a pause in between */
  tornWrites?: boolean;
  /** abort: the current line is completed, the open turn is closed as aborted */
  signal?: AbortSignal;
  log?(msg: string): void;
  /** header cwd, default process.cwd() */
  cwd?: string;
}

export interface SimulateResult {
  file: string;
  /** events written (the header is not an event) */
  events: number;
}

// ---------------------------------------------------------------------------
// Helpers

const rand = (lo: number, hi: number): number => lo + Math.random() * (hi - lo);

const defaultId = (): string => {
  const d = new Date();
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `sim-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}-${p(d.getMilliseconds(), 3)}`;
};

const callId = (i: number): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(24);
  let s = '';
  for (const b of bytes) s += alphabet[b % alphabet.length];
  return `call_${String(i).padStart(2, '0')}_${s}`;
};

/** Streaming pieces: one or two words with their leading space, like a tokenizer would emit. */
function pieces(text: string): string[] {
  const words = text.match(/\s*\S+|\s+$/g) ?? [text];
  const out: string[] = [];
  for (let i = 0; i < words.length; ) {
    const n = Math.random() < 0.7 ? 1 : 2;
    out.push(words.slice(i, i + n).join(''));
    i += n;
  }
  return out;
}

function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
}

class Aborted extends Error {}

// ---------------------------------------------------------------------------

export async function simulate(opts: SimulateOptions): Promise<SimulateResult> {
  const speed = opts.speed && opts.speed > 0 ? opts.speed : 1;
  const turns = Math.max(0, Math.floor(opts.turns ?? 3));
  const log = (m: string) => {
    try {
      opts.log?.(m);
    } catch {
      /* ignore */
    }
  };
  const signal = opts.signal;
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('simulate: aborted before start');

  fs.mkdirSync(opts.dir, { recursive: true });
  const givenId = opts.id;
  let id = givenId ?? defaultId();
  const cwd = opts.cwd ?? process.cwd();
  const createdAt = Date.now();

  let seq = 0;
  let fd: number | undefined;
  let file = '';
  let lineNo = 0;

  // ---- pacing ---------------------------------------------------------------
  const sleep = (ms: number): Promise<void> => {
    const t = ms / speed;
    if (t <= 0 || signal?.aborted) return Promise.resolve();
    if (t < 1) return new Promise((resolve) => setImmediate(resolve)); // very fast runs: just yield
    return new Promise((resolve) => {
      const timer = setTimeout(done, t);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
  };
  const checkAbort = () => {
    if (signal?.aborted) throw new Aborted();
  };

  // ---- file creation (harness way) -------------------------------------------
  function create(firstLine: string | undefined): void {
    for (let attempt = 0; ; attempt++) {
      const header: Record<string, unknown> = { type: 'session', version: 0, id, createdAt };
      if (cwd) header.cwd = cwd;
      const final = path.join(opts.dir, encodeId(id) + '.jsonl');
      try {
        // the same temp + fsync + link + fsync-dir path as a fork child
        writeNewSessionFile(opts.dir, final, id, { header: JSON.stringify(header), lines: firstLine === undefined ? [] : [firstLine] });
      } catch (e) {
        if (isSessionForkError(e) && e.code === 'SESSION_ALREADY_EXISTS') {
          if (givenId === undefined && attempt < 20) {
            id = `${defaultId()}-${attempt + 2}`;
            continue;
          }
          throw new SessionForkError('SESSION_ALREADY_EXISTS', `simulate: ${final} already exists`);
        }
        throw e;
      }
      file = final;
      fd = fs.openSync(final, 'a');
      return;
    }
  }

  // ---- appends ----------------------------------------------------------------
  /** Byte offset where to split a line: sometimes inside a multi-byte character. */
  function splitPoint(buf: Buffer): number {
    const inside: number[] = [];
    for (let i = 1; i < buf.length - 1; i++) if ((buf[i] & 0xc0) === 0x80) inside.push(i);
    if (inside.length > 0 && (lineNo === 2 || Math.random() < 0.5)) return inside[Math.floor(Math.random() * inside.length)];
    return 1 + Math.floor(Math.random() * (buf.length - 1));
  }

  async function append(line: string, mayTear: boolean): Promise<void> {
    const buf = Buffer.from(line + '\n', 'utf8');
    lineNo++;
    if (mayTear && opts.tornWrites && buf.length > 2 && (lineNo === 2 || Math.random() < 0.15)) {
      const at = splitPoint(buf);
      writeAll(fd!, buf.subarray(0, at));
      fs.fsyncSync(fd!);
      // the pause is at least a timer tick, so a reader can see the torn line
      await new Promise<void>((r) => setTimeout(r, Math.max(1, rand(80, 400) / speed)));
      writeAll(fd!, buf.subarray(at));
      fs.fsyncSync(fd!);
      return;
    }
    writeAll(fd!, buf);
    fs.fsyncSync(fd!);
  }

  // ---- events -----------------------------------------------------------------
  let openTurn: number | undefined;
  let openStep: number | undefined;
  const outstanding: { callId: string; name: string; step: number }[] = [];

  async function emit(type: string, data: unknown, extra?: Record<string, unknown>, opt?: { pauseMs?: number; noTear?: boolean }): Promise<number> {
    if (seq > 0 && opt?.pauseMs !== 0) {
      await sleep(opt?.pauseMs ?? rand(50, 300));
      checkAbort();
    }
    const ev: Record<string, unknown> = { type, seq, time: Date.now(), data, ...extra };
    const line = JSON.stringify(ev);
    if (seq === 0) {
      create(line);
      lineNo = 1;
      log(`created ${file}`);
    } else {
      await append(line, !opt?.noTear);
    }
    return seq++;
  }

  async function runStep(turn: number, step: number, s: Step, usageBase: number): Promise<void> {
    await emit('step/start', { turn, step });
    openStep = step;
    const chunkSeqs: number[] = [];
    const content: Record<string, unknown>[] = [];
    const chunk = async (c: Record<string, unknown>, pauseMs?: number) => {
      chunkSeqs.push(await emit('assistant/chunk', { turn, step, chunk: c }, undefined, { pauseMs }));
    };
    let index = 0;
    let first = true;
    const thinkFirst = () => {
      const p = first ? rand(300, 900) : rand(20, 80);
      first = false;
      return p;
    };
    if (s.reasoning) {
      await chunk({ type: 'block-start', index, blockType: 'reasoning' }, thinkFirst());
      for (const t of pieces(s.reasoning)) await chunk({ type: 'reasoning-delta', index, text: t }, rand(20, 70));
      content.push({ type: 'reasoning', text: s.reasoning });
      index++;
    }
    if (s.text) {
      await chunk({ type: 'block-start', index, blockType: 'text' }, thinkFirst());
      for (const t of pieces(s.text)) await chunk({ type: 'text-delta', index, text: t }, rand(25, 90));
      content.push({ type: 'text', text: s.text });
      index++;
    }
    const calls: { id: string; tool: ToolUse; args: string }[] = [];
    for (const [i, tool] of (s.tools ?? []).entries()) {
      const cid = callId(i);
      const args = JSON.stringify(tool.args);
      calls.push({ id: cid, tool, args });
      await chunk({ type: 'block-start', index, blockType: 'tool-call' }, thinkFirst());
      for (const part of args.match(/.{1,12}/gsu) ?? [args]) {
        await chunk({ type: 'tool-call-delta', index, id: cid, name: tool.name, argumentsDelta: part }, rand(15, 50));
      }
      content.push({ type: 'tool-call', id: cid, name: tool.name, arguments: args });
      index++;
    }
    for (const [i, block] of content.entries()) await chunk({ type: 'block-end', index: i, block }, rand(5, 20));
    const usage = {
      inputTokens: usageBase + Math.floor(rand(80, 400)),
      outputTokens: Math.max(1, Math.floor(JSON.stringify(content).length / 4)),
      cacheReadTokens: 768,
    };
    await chunk({ type: 'usage', usage }, rand(5, 20));
    await chunk({ type: 'finish', reason: { kind: calls.length > 0 ? 'tool-calls' : 'stop' } }, rand(5, 20));
    await emit('assistant/message', { turn, step, content, usage }, { sourceEventSeqs: chunkSeqs, surfaceOp: 'append' });
    if (s.text) log(`turn ${turn} step ${step}: assistant: ${s.text.split('\n')[0].slice(0, 70)}`);

    const callSeqs = new Map<string, number>();
    for (const c of calls) {
      callSeqs.set(c.id, await emit('tool/call', { turn, step, callId: c.id, name: c.tool.name, arguments: c.args }, undefined, { pauseMs: rand(10, 60) }));
      outstanding.push({ callId: c.id, name: c.tool.name, step });
      log(`turn ${turn} step ${step}: ${c.tool.name} ${c.args.slice(0, 60)}`);
    }
    for (const c of calls) {
      await emit(
        'tool/result',
        { turn, step, callId: c.id, content: [{ type: 'text', text: c.tool.result }], isError: false },
        { sourceEventSeqs: [callSeqs.get(c.id)!], surfaceOp: 'append' },
        { pauseMs: c.tool.runMs * rand(0.6, 1.4) },
      );
      outstanding.splice(
        outstanding.findIndex((o) => o.callId === c.id),
        1,
      );
    }
    await emit('step/end', { turn, step });
    openStep = undefined;
  }

  try {
    if (turns === 0) {
      create(undefined); // a header-only (empty) session
      log(`created ${file}`);
    }
    let usageBase = 900;
    for (let t = 0; t < turns; t++) {
      const turn = t + 1;
      const sc = SCRIPT[t % SCRIPT.length];
      if (t > 0) {
        await sleep(rand(1000, 3000)); // the user reads and types
        checkAbort();
      }
      await emit('turn/start', { turn, trigger: { kind: 'message', source: { kind: 'user' } } }, undefined, { pauseMs: 0 });
      openTurn = turn;
      log(`turn ${turn}: user: ${sc.prompt.slice(0, 70)}`);
      await emit('user/message', { content: [{ type: 'text', text: sc.prompt }], source: { kind: 'user' } }, { surfaceOp: 'append' });
      for (const [i, s] of sc.steps.entries()) {
        await runStep(turn, i + 1, s, usageBase);
        usageBase += 400;
      }
      await emit('turn/end', { turn, reason: { kind: 'completed' } });
      openTurn = undefined;
      log(`turn ${turn}: completed`);
    }
  } catch (e) {
    if (!(e instanceof Aborted)) {
      if (fd !== undefined) fs.closeSync(fd);
      throw e;
    }
    // Cancelled: close the open turn the way the harness does, no pauses, no tearing.
    if (fd !== undefined && openTurn !== undefined) {
      const now = { pauseMs: 0, noTear: true };
      for (const o of outstanding.splice(0)) {
        await emit(
          'tool/result',
          { turn: openTurn, step: o.step, callId: o.callId, content: [{ type: 'text', text: 'Error: tool call aborted' }], isError: true, error: { name: 'AbortError', code: 'ABORTED' } },
          { surfaceOp: 'append' },
          now,
        );
      }
      if (openStep !== undefined) await emit('step/end', { turn: openTurn, step: openStep }, undefined, now);
      await emit('turn/end', { turn: openTurn, reason: { kind: 'aborted', reason: 'session/cancel' } }, undefined, now);
      log(`turn ${openTurn}: aborted`);
    }
    if (fd === undefined) throw signal?.reason instanceof Error ? signal.reason : new Error('simulate: aborted before start');
  }
  if (fd !== undefined) fs.closeSync(fd);
  return { file, events: seq };
}
