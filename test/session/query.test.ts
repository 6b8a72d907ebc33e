// The query language: a pure parser (unit + property tests) and the matcher
// over real events of both eras.
import fc from 'fast-check';
import { runs } from '../support/property.js';
import { describe, expect, it } from 'vitest';
import { expandRow, type SessionEvent } from '../../src/session/events.js';
import { formatQuery, isQueryError, parseQuery, type Query } from '../../src/session/query.js';
import { buildSearchDoc, highlightRanges, matchEntries, matchSession, rawMayMatch, requiredLiterals, snippetOf, type SessionMeta } from '../../src/session/search.js';
import { evs, turnRows } from '../support/fixtures.js';

const ok = (s: string): Query => {
  const q = parseQuery(s);
  if (isQueryError(q)) throw new Error(`${s}: ${q.message} at ${q.position}`);
  return q;
};
const err = (s: string) => {
  const q = parseQuery(s);
  if (!isQueryError(q)) throw new Error(`${s} parsed`);
  return q;
};

describe('parseQuery', () => {
  it('parses words, phrases, negation and every field', () => {
    const q = ok('bash "exit code 1" -flaky tool:bash is:error reason:aborted is:open is:fork is:spawn is:root is:damaged cwd:/tmp id:abc after:2026-11-01 before:2026-12-01T10:00Z');
    expect(q.terms.map((t) => t.kind)).toEqual(['text', 'text', 'text', 'tool', 'error', 'reason', 'flag', 'flag', 'flag', 'flag', 'flag', 'cwd', 'id', 'after', 'before']);
    expect(q.terms[1]).toMatchObject({ kind: 'text', value: 'exit code 1', negated: false, start: 5, end: 18 });
    expect(q.terms[2]).toMatchObject({ kind: 'text', value: 'flaky', negated: true });
    expect(q.terms[13]).toMatchObject({ kind: 'after', time: Date.parse('2026-11-01T00:00:00Z') });
    expect(q.terms[14]).toMatchObject({ kind: 'before', time: Date.parse('2026-12-01T10:00Z') });
  });
  it('quoted field values, negated fields, and text that only looks like a field', () => {
    expect(ok('cwd:"/my dir" -is:fork').terms).toMatchObject([{ kind: 'cwd', value: '/my dir' }, { kind: 'flag', flag: 'fork', negated: true }]);
    expect(ok('TypeError: http://x.y error:').terms.map((t) => [t.kind, (t as any).value])).toEqual([['text', 'TypeError:'], ['text', 'http://x.y'], ['text', 'error:']]);
    expect(ok('').terms).toEqual([]);
    expect(ok('   ').terms).toEqual([]);
  });
  it('errors say where and why', () => {
    expect(err('bash "exit code')).toMatchObject({ position: 5, message: expect.stringMatching(/unterminated quote/) });
    expect(err('a - b')).toMatchObject({ position: 2, message: expect.stringMatching(/lone "-"/) });
    expect(err('x tool:')).toMatchObject({ position: 2, message: expect.stringMatching(/tool: needs a value/) });
    expect(err('is:blue')).toMatchObject({ position: 3, message: expect.stringMatching(/unknown is:blue; known: is:error/) });
    expect(err('after:yesterday')).toMatchObject({ position: 6, message: expect.stringMatching(/expects a date/) });
    expect(err('tol:bash')).toMatchObject({ position: 0, message: expect.stringMatching(/unknown field tol:/) });
    expect(err('ab"c')).toMatchObject({ position: 2 });
    expect(err('"ab"c')).toMatchObject({ position: 4 });
    expect(err('""')).toMatchObject({ position: 0, message: expect.stringMatching(/empty phrase/) });
  });

  it('property: every string parses or errors at a position inside it, with a message', () => {
    const alphabet = fc.constantFrom(...'ab -":\t\u00e9is:errortool:reason:cwd:after:2026-01-01'.split(''), 'is:', 'tool:', 'after:', '"', '-', ' ', 'é', '😀', '\u0000');
    const strings = fc.oneof(fc.string(), fc.array(alphabet, { maxLength: 30 }).map((a) => a.join('')), fc.string({ unit: 'grapheme' }));
    fc.assert(
      fc.property(strings, (s) => {
        const r = parseQuery(s);
        if (isQueryError(r)) {
          expect(r.message.length).toBeGreaterThan(5);
          expect(Number.isInteger(r.position)).toBe(true);
          expect(r.position).toBeGreaterThanOrEqual(0);
          expect(r.position).toBeLessThan(Math.max(1, s.length));
        } else {
          for (const t of r.terms) {
            expect(t.start).toBeGreaterThanOrEqual(0);
            expect(t.end).toBeLessThanOrEqual(s.length);
            expect(t.start).toBeLessThan(t.end);
          }
        }
      }),
      { numRuns: runs(3000) },
    );
  });
  it('property: a parsed query printed back parses to the same terms', () => {
    const strings = fc.array(fc.constantFrom('bash', '"two words"', '-x', 'tool:git', 'is:error', '-is:failed-edit', 'file:"src/a b/*.ts"', '-is:fork', 'reason:aborted', 'cwd:"/a b"', 'id:z', 'after:2026-01-02', 'é', 'a:b'), { maxLength: 8 }).map((a) => a.join(' '));
    fc.assert(
      fc.property(strings, (s) => {
        const q = parseQuery(s);
        if (isQueryError(q)) return; // 'a:b' is a free word, never an error; other errors are fine here
        const again = ok(formatQuery(q));
        const strip = (x: Query) => x.terms.map(({ start, end, ...rest }) => rest);
        expect(strip(again)).toEqual(strip(q));
      }),
    );
  });
});

// v0 events: a bash call that fails, with reasoning in the assistant message.
const v0 = evs(
  ['turn/start', { turn: 1, trigger: 'user' }],
  ['user/message', { content: [{ type: 'text', text: 'Please run the Tests' }], source: 'user' }],
  ['step/start', { turn: 1, step: 1 }],
  ['assistant/message', { turn: 1, step: 1, content: [{ type: 'reasoning', text: 'I should use pytest here' }, { type: 'text', text: 'Running them.' }, { type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"pytest -q"}' }] }],
  ['tool/call', { turn: 1, step: 1, callId: 'c1', name: 'bash', arguments: '{"command":"pytest -q"}' }],
  ['tool/result', { turn: 1, step: 1, callId: 'c1', content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'E   AssertionError: boom' }], isError: true }], isError: true }],
  ['step/end', { turn: 1, step: 1 }],
  ['turn/end', { turn: 1, reason: { kind: 'error', step: 1, message: 'provider quota exceeded' } }],
  ...turnRows(2, { kind: 'aborted', reason: 'session/cancel' }, 'second prompt').map(([t, d]) => [t, d] as [string, unknown]),
);
// re-number the appended turn rows
const events: SessionEvent[] = v0.map((e, i) => ({ ...e, seq: i }));

// rc8 shapes: message under data.message, a packed reasoning row expanded by the loader.
const rc8rows = [
  { type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } },
  { type: 'user/message', seq: 1, time: 1, data: { role: 'user', content: [{ type: 'text', text: 'echo SNAPSHOT_OK' }], source: { kind: 'user' } } },
  { type: 'reasoning-chunks', seq0: 2, time0: 1, data: { turn: 1, step: 1, index: 0, dt: [1], texts: ['The', ' user wants'] } },
  { type: 'assistant/message', seq: 4, time: 2, data: { turn: 1, step: 1, message: { role: 'assistant', content: [{ type: 'reasoning', text: 'The user wants a shell' }, { type: 'tool-call', id: 'k', name: 'shell_exec', arguments: '{"cmd":"echo"}' }] } } },
  { type: 'tool/result', seq: 5, time: 3, data: { turn: 1, step: 1, message: { source: { kind: 'tool', callId: 'k' }, content: [{ type: 'tool-result', toolCallId: 'k', content: [{ type: 'text', text: 'SNAPSHOT_OK\n' }], isError: false }] } } },
  { type: 'turn/end', seq: 6, time: 4, data: { turn: 1, reason: { kind: 'completed' } } },
];
const rc8: SessionEvent[] = rc8rows.flatMap((r) => expandRow(r) as SessionEvent[]);

const meta = (over: Partial<SessionMeta> = {}): SessionMeta => ({ id: 's1', kind: 'root', open: false, damaged: false, createdAt: Date.parse('2026-11-10'), lastTime: Date.parse('2026-11-11'), ...over });
const seqs = (q: string, ev = events) => matchEntries(ok(q), buildSearchDoc(ev)).map((m) => m.seq);

describe('matcher', () => {
  it('free words reach prompts, reasoning, assistant text, tool names, arguments, results, reasons (case-insensitive)', () => {
    expect(seqs('tests')).toEqual([1]);
    expect(seqs('PYTEST')).toEqual([3, 4]); // reasoning + call arguments in the message, and the tool/call
    expect(seqs('running')).toEqual([3]);
    expect(seqs('assertionerror')).toEqual([5]);
    expect(seqs('quota')).toEqual([7]);
    expect(seqs('"second prompt"')).toEqual([9]);
  });
  it('event terms hold on the same event; negation per event', () => {
    expect(seqs('tool:bash is:error')).toEqual([5]);
    expect(seqs('tool:bash -is:error')).toEqual([4]);
    expect(seqs('reason:ERROR')).toEqual([7]);
    expect(seqs('reason:aborted')).toEqual([14]);
    expect(seqs('reason:abort')).toEqual([]); // reason is exact
    expect(seqs('pytest -running')).toEqual([4]); // the message also says "Running"
  });
  it('matches carry turn and type; chunks are not matched twice', () => {
    const m = matchEntries(ok('pytest'), buildSearchDoc(events));
    expect(m[0]).toMatchObject({ seq: 3, turn: 1, type: 'assistant/message' });
    const r = matchEntries(ok('user wants'), buildSearchDoc(rc8));
    expect(r.map((x) => x.type)).toEqual(['assistant/message']);
  });
  it('rc8: messages under data.message, tool names from the call block', () => {
    expect(seqs('snapshot_ok', rc8)).toEqual([1, 5]);
    expect(seqs('shell_exec', rc8)).toEqual([4]);
    expect(seqs('is:error', rc8)).toEqual([]);
  });
  it('session terms and session-level answers', () => {
    const doc = () => buildSearchDoc(events);
    expect(matchSession(ok('is:fork'), meta(), doc)).toBeNull();
    expect(matchSession(ok('is:fork'), meta({ kind: 'fork' }), doc)).toEqual({ kind: 'session' });
    expect(matchSession(ok('-is:fork'), meta(), doc)).toEqual({ kind: 'session' });
    expect(matchSession(ok('cwd:PROJ'), meta({ cwd: '/home/a/proj' }), doc)).toEqual({ kind: 'session' });
    expect(matchSession(ok('cwd:proj'), meta(), doc)).toBeNull();
    expect(matchSession(ok('id:S1 is:open'), meta({ open: true }), doc)).toEqual({ kind: 'session' });
    expect(matchSession(ok('is:damaged'), meta(), doc)).toBeNull();
    expect(matchSession(ok('after:2026-11-11'), meta(), doc)).toEqual({ kind: 'session' });
    expect(matchSession(ok('after:2026-11-12'), meta(), doc)).toBeNull();
    expect(matchSession(ok('before:2026-11-10'), meta(), doc)).toBeNull();
    expect(matchSession(ok('before:2026-11-10T00:00:01Z'), meta(), doc)).toEqual({ kind: 'session' });
    // only negated event terms: the session matches when no event has the word
    expect(matchSession(ok('-pytest'), meta(), doc)).toBeNull();
    expect(matchSession(ok('-kubernetes'), meta(), doc)).toEqual({ kind: 'session' });
    expect(matchSession(ok('tool:bash is:error'), meta(), doc)).toMatchObject({ kind: 'events', matches: [{ seq: 5 }] });
  });
  it('snippets centre on the word; highlight ranges merge overlaps', () => {
    const text = 'x'.repeat(200) + ' needle ' + 'y'.repeat(200);
    const s = snippetOf(ok('needle'), text, 40);
    expect(s).toContain('needle');
    expect(s.startsWith('…') && s.endsWith('…')).toBe(true);
    expect(highlightRanges(ok('ab abc'), 'xxABCab')).toEqual([[2, 7]]);
    expect(highlightRanges(ok('ab'), 'ab-x-AB')).toEqual([[0, 2], [5, 7]]);
    expect(highlightRanges(ok('aa'), 'aaaa')).toEqual([[0, 4]]);
  });
  it('raw prefilter: only skips text that certainly cannot match', () => {
    expect(requiredLiterals(ok('is:fork'))).toBeUndefined();
    expect(requiredLiterals(ok('bash "ünï" tool:git -x'))).toEqual(['bash', 'ünï', 'git']);
    expect(rawMayMatch(Buffer.from('{"a":"BASH"}'), ['bash'])).toBe(true);
    expect(rawMayMatch(Buffer.from('{"a":"zsh"}'), ['bash'])).toBe(false);
    expect(rawMayMatch(Buffer.from('{"a":"\\u0062ash"}'), ['bash'])).toBe(true); // escaped letters: keep
    expect(rawMayMatch(Buffer.from('{"a":"a.b"}'), ['a*b'])).toBe(false); // regex characters are literal
    // agreement with the matcher: whenever an event matches, its file's raw text passes
    const unit = fc.constantFrom('a', 'B', 'c', ' ', 'é', 'É', '\\', 'İ', 'K', 'ſ', 'S', '/', '\u001b', '"');
    fc.assert(
      fc.property(fc.string({ unit }), fc.constantFrom('ab', 'bc', 'a c', 'k', 's', 'é', 'a/b'), fc.boolean(), (text, word, escapeAll) => {
        const json = JSON.stringify({ type: 'x/y', seq: 0, time: 0, data: { text } });
        // a writer may escape any character as \uXXXX
        const raw = escapeAll ? json.replace(/[^\x00-\x7f]|[a-z/]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) : json;
        const q = ok(`"${word}"`);
        const hit = matchEntries(q, buildSearchDoc([JSON.parse(raw)])).length > 0;
        if (hit) expect(rawMayMatch(Buffer.from(raw), requiredLiterals(q)!)).toBe(true);
      }),
      { numRuns: runs(3000) },
    );
  });
});

describe('file:GLOB and is:failed-edit', () => {
  const edits = evs(
    ['turn/start', { turn: 1 }],
    ['tool/call', { turn: 1, step: 1, callId: 'w', name: 'write', arguments: JSON.stringify({ file_path: '/home/u/p/src/lib/Queue.ts', content: 'x' }) }],
    ['tool/result', { turn: 1, step: 1, callId: 'w', content: [{ type: 'tool-result', toolCallId: 'w', content: [{ type: 'text', text: 'ok' }] }] }],
    ['tool/call', { turn: 1, step: 1, callId: 'e', name: 'edit', arguments: JSON.stringify({ file_path: 'README.md', old_string: 'a', new_string: 'b' }) }],
    ['tool/result', { turn: 1, step: 1, callId: 'e', content: [{ type: 'tool-result', toolCallId: 'e', content: [{ type: 'text', text: 'old_string not found' }], isError: true }] }],
    ['tool/call', { turn: 1, step: 1, callId: 'r', name: 'read', arguments: JSON.stringify({ file_path: 'README.md' }) }],
    ['tool/call', { turn: 1, step: 1, callId: 'b', name: 'bash', arguments: JSON.stringify({ command: 'cat README.md' }) }],
    ['tool/call', { turn: 1, step: 1, callId: 'u', name: 'deploy', arguments: JSON.stringify({ path: 'dist/app.js' }) }],
    ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
  );
  const doc = buildSearchDoc(edits);
  const at = (q: string) => matchEntries(ok(q), doc).map((m) => m.seq);
  it('parses and prints back', () => {
    expect(ok('file:src/*.ts -is:failed-edit').terms.map((t) => t.kind)).toEqual(['file', 'failedEdit']);
    expect(formatQuery(ok('file:"a b/*" is:failed-edit'))).toBe('file:"a b/*" is:failed-edit');
  });
  it('file: matches a write or edit (call and result) of a path, at any depth, by name, case-insensitively; never a read or a shell', () => {
    expect(at('file:src/**/*.ts')).toEqual([1, 2]);
    expect(at('file:lib/queue.ts')).toEqual([1, 2]);
    expect(at('file:readme.md')).toEqual([3, 4]);
    expect(at('file:/home/u/p/src/lib/*.ts')).toEqual([1, 2]);
    expect(at('file:/src/**')).toEqual([]);
    expect(at('file:*.js')).toEqual([7]); // a tool of unknown effect naming a path
    expect(at('file:src/*.ts')).toEqual([]); // * stays within a folder
  });
  it('is:failed-edit matches the failed result of a write or edit only', () => {
    expect(at('is:failed-edit')).toEqual([4]);
    expect(at('is:failed-edit file:README.md')).toEqual([4]);
    expect(at('is:error')).toEqual([4]);
  });
});

