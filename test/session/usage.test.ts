// Token usage and the model from the real logs of both eras: per turn, per
// session, and for a fork child split into inherited and own.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/session/events.js';
import { turnSummaries } from '../../src/session/turn-summary.js';
import { addUsage, compact, emptyUsage, sessionUsage, usageOf, usageOfSeqs, usageText, withSplit } from '../../src/session/usage.js';
import { SessionStore } from '../../src/session/store.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, REAL_DIR, SAMPLE_DIR, tmpDir } from '../support/fixtures.js';

afterAll(cleanupTmp);

function loadOne(name: string) {
  const dir = tmpDir();
  fs.copyFileSync(path.join(REAL_DIR, `toninfo-deepseek-harness__${name}`), path.join(dir, 's.jsonl'));
  return loadRootSync(dir).store.list()[0];
}

describe('usage from the real logs', () => {
  it('v0: sums assistant/message usage once (the usage chunks carry the same numbers); no model recorded', () => {
    const s = loadOne('rfc0706__tool-call-turn__session.jsonl');
    expect(s.events.filter((e) => e.type === 'assistant/chunk' && e.data?.chunk?.type === 'usage').length).toBe(2);
    expect(sessionUsage(s.events)).toEqual({ input: 122 + 235, output: 95 + 28, cacheRead: 768 + 768, reasoning: 23 + 25, messages: 2 });
  });

  it('rc8: usage beside data.message, and the model from the message source and request/context', () => {
    const s = loadOne('rc8__tool-call-turn__session.jsonl');
    expect(sessionUsage(s.events)).toEqual({ input: 2879 + 170, output: 89 + 28, cacheRead: 0 + 2816, reasoning: 17 + 25, messages: 2, models: ['deepseek-v4-flash'] });
  });

  it('per turn sums to the session total on every real log and sample', () => {
    const dirs = [REAL_DIR, SAMPLE_DIR];
    let checked = 0;
    for (const d of dirs) {
      for (const s of loadRootSync(d).store.list()) {
        const total = sessionUsage(s.events);
        const turns = turnSummaries(s.events).reduce((acc, t) => addUsage(acc, t.usage), emptyUsage());
        // usage outside any turn is not possible in these logs
        expect(turns.input, s.file).toBe(total.input);
        expect(turns.output, s.file).toBe(total.output);
        expect(turns.messages, s.file).toBe(total.messages);
        for (const t of turnSummaries(s.events)) expect(usageOfSeqs(s.events, t.seq, t.lastSeq)).toEqual(t.usage);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('a fork child splits into inherited (= the parent at the cut) and own', () => {
    const index = loadRootSync(REAL_DIR);
    const child = index.store.list().find((s) => s.file!.endsWith('rfc0706__subagent-fork__session.1.jsonl'))!;
    const parent = index.store.list().find((s) => s.file!.endsWith('rfc0706__subagent-fork__session.jsonl'))!;
    const u = sessionUsage(child.events, child.seedLength);
    expect(u.inherited).toEqual(usageOf(parent.events, 0, child.seedLength));
    expect(u.inherited!.messages).toBeGreaterThan(0);
    expect(u.own!.messages).toBeGreaterThan(0);
    expect(u.input).toBe(u.inherited!.input + u.own!.input);
    expect(u.output).toBe(u.inherited!.output + u.own!.output);
    // a root has no split
    expect(sessionUsage(parent.events).inherited).toBeUndefined();
  });

  it('the log-facts fold (what list --json and a session column read, no events needed) equals the full sum', () => {
    let forks = 0;
    for (const d of [REAL_DIR, SAMPLE_DIR]) {
      for (const s of loadRootSync(d).store.list()) {
        expect(withSplit(s.facts.usage, s.seedLength), s.file).toEqual(sessionUsage(s.events, s.seedLength));
        if (s.seedLength !== undefined) forks++;
      }
    }
    expect(forks).toBeGreaterThan(3);
  });

  it('a fork made by the store carries its usage split in its facts', () => {
    const dir = tmpDir();
    for (const n of fs.readdirSync(SAMPLE_DIR)) fs.copyFileSync(path.join(SAMPLE_DIR, n), path.join(dir, n));
    const index = loadRootSync(dir);
    const root = index.store.getAll('fix-flaky-retry-test')[0];
    const at = root.facts.boundaries[1];
    const child = index.store.fork({ source: root, boundary: at, sessionId: 'usage-child' });
    expect(withSplit(child.facts.usage, child.seedLength)).toEqual({ ...usageOf(root.events, 0, at + 1), inherited: usageOf(root.events, 0, at + 1), own: emptyUsage() });
    // and the same after a fresh load of the written file
    const again = loadRootSync(dir).store.getAll('usage-child')[0];
    expect(again.facts.usage).toEqual(child.facts.usage);
    expect(SessionStore.keyOf(again)).toBe(child.file);
  });

  it('ignores malformed usage values and an assistant message without usage', () => {
    const ev = (data: unknown, type = 'assistant/message'): SessionEvent => ({ type, seq: 0, time: 0, data });
    const u = usageOf([
      ev({ content: [], usage: { inputTokens: 'many', outputTokens: -3 } }),
      ev({ content: [] }),
      ev({ message: { role: 'assistant', content: [], usage: { inputTokens: 5, outputTokens: 2 } } }),
      ev({ usage: { inputTokens: 1e3 } }, 'assistant/chunk'),
      ev(null),
    ]);
    expect(u).toEqual({ input: 5, output: 2, messages: 2 });
    // by seq, in a log with a gap (seq 2 missing)
    const gapped = [0, 1, 3, 4].map((seq) => ({ ...ev({ usage: { inputTokens: 10 ** seq, outputTokens: 0 } }), seq }));
    expect(usageOfSeqs(gapped, 1, 3).input).toBe(10 + 1000);
    expect(usageOfSeqs(gapped, 2, 4).input).toBe(1000 + 10000);
    expect(usageOfSeqs(gapped, 5, 9).messages).toBe(0);
    expect(usageText(u)).toBe('in 5 out 2');
    expect(usageText(emptyUsage())).toBe('');
    expect([compact(999), compact(1234), compact(34_567), compact(1_500_000)]).toEqual(['999', '1.2k', '35k', '1.5M']);
  });
});
