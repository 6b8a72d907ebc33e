// The index reads most event lines with envelope-scan.ts instead of JSON.parse.
// It must change nothing a listing shows: for random logs (packed rows, damaged
// and welded lines, invalid UTF-8, escapes anywhere, unicode, keys in any order,
// duplicate keys, deep nesting, huge strings) a facts-only reader (the scan)
// and an event-keeping one (always the full parse) end in the same state:
// facts, diagnostics with their lines, seq checks, refusals, unknown types.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandRow, PACKED_TYPES } from '../../src/session/events.js';
import { FOLD_READS_DATA } from '../../src/session/log-facts.js';
import { scanEnvelope } from '../../src/storage/envelope-scan.js';
import { auditStructure } from '../../src/session/event-audit.js';
import { LogReader } from '../../src/storage/log-reader.js';
import { PROPERTY_TIMEOUT, runs } from '../support/property.js';

// ---------------------------------------------------------------- JSON text with every liberty the grammar allows

/** A number written as-is (1.0, 1e0, -0, 1e400), to test the scan's reading of numbers. */
class Raw {
  constructor(readonly text: string) {}
}
/** An object written with these entries in this order, duplicates included. */
class Entries {
  constructor(readonly list: Array<[string, unknown]>) {}
}

/** A small PRNG: the serializer's choices (spaces, escapes) follow from one generated seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function writeJson(v: unknown, seed: number): string {
  const rnd = prng(seed);
  const spacey = rnd() < 0.3;
  const escapey = rnd() < 0.3;
  const ws = () => (spacey && rnd() < 0.3 ? [' ', '\t', '\r', '  '][Math.floor(rnd() * 4)] : '');
  const str = (s: string): string => {
    if (!escapey) return JSON.stringify(s);
    let out = '"';
    for (const ch of JSON.stringify(s).slice(1, -1).match(/\\u[0-9a-fA-F]{4}|\\.|[\s\S]/g) ?? []) {
      if (ch.length === 1 && rnd() < 0.1) {
        const r = rnd();
        if (ch === '/' && r < 0.5) out += '\\/';
        else {
          const hex = ch.charCodeAt(0).toString(16).padStart(4, '0');
          out += '\\u' + (r < 0.75 ? hex : hex.toUpperCase());
        }
      } else out += ch;
    }
    return out + '"';
  };
  const val = (x: unknown): string => {
    if (x instanceof Raw) return x.text;
    if (x instanceof Entries) return '{' + ws() + x.list.map(([k, y]) => str(k) + ws() + ':' + ws() + val(y)).join(ws() + ',' + ws()) + ws() + '}';
    if (Array.isArray(x)) return '[' + ws() + x.map(val).join(ws() + ',' + ws()) + ws() + ']';
    if (typeof x === 'string') return str(x);
    if (x !== null && typeof x === 'object') return val(new Entries(Object.entries(x)));
    return JSON.stringify(x) ?? 'null';
  };
  return ws() + val(v) + ws();
}

// ---------------------------------------------------------------- random events

/** types the scan answers for (their fold reads no data), and the ones it leaves to the full parse */
const SKINNY_TYPES = ['assistant/chunk', 'tool/call', 'tool/result', 'step/start', 'step/end', 'context/message', 'hook/result', 'todo/write'];
const FULL_TYPES = [...FOLD_READS_DATA, ...Object.keys(PACKED_TYPES), 'session'];
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constantFrom('', '\n', 'a\\b', '"q"', '\u2028', '\uD800', '\u00e9t\u00e9 \uD83D\uDE00'));
const huge = fc.tuple(fc.constantFrom('x', 'é', '"', '\\', '\u{1F600}', 'ab\n'), fc.integer({ min: 1_000, max: 60_000 })).map(([s, n]) => s.repeat(n));
const json = fc.jsonValue({ maxDepth: 3 });
const deep = fc.integer({ min: 60, max: 90 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown);

const typeValue = fc.oneof(
  { weight: 24, arbitrary: fc.constantFrom(...SKINNY_TYPES) },
  { weight: 8, arbitrary: fc.constantFrom(...FULL_TYPES) },
  { weight: 1, arbitrary: fc.constantFrom('', 'x/custom', 'tool/r\u00e9sultat', '\uFEFFassistant/chunk', 'assistant/chunk ', 'Assistant/Chunk') },
  { weight: 1, arbitrary: text },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.constant(['tool/call']), fc.constant({ type: 'tool/call' })) },
);

/** How a row's seq is written: mostly the next one, sometimes a gap, a repeat, a bad value or an odd spelling. */
const seqForm = fc.oneof(
  { weight: 14, arbitrary: fc.constant<'next'>('next') },
  { weight: 1, arbitrary: fc.constantFrom<'gap' | 'dup' | 'missing'>('gap', 'dup', 'missing') },
  { weight: 1, arbitrary: fc.constantFrom(new Raw('-0'), new Raw('1e1'), new Raw('2.0'), new Raw('1E0'), new Raw('-1'), new Raw('1.5'), new Raw('1e400'), new Raw('123456789012345678'), new Raw('9007199254740993')) },
  { weight: 1, arbitrary: fc.oneof(fc.string(), fc.constant(null), fc.double(), fc.constant([1])) },
);
const timeValue = fc.oneof(
  { weight: 14, arbitrary: fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(new Raw('1e400'), new Raw('-1e400'), new Raw('-0'), new Raw('1.5e3'), new Raw('0.000001'), new Raw('17000000000000000000000')) },
  { weight: 1, arbitrary: fc.oneof(fc.double(), fc.string(), fc.constant(null), fc.constant(undefined)) },
);

/** a tool call's id: a string (with escapes, non-ASCII, empty) mostly, or any other JSON value, or absent */
const callIdValue: fc.Arbitrary<unknown> = fc.oneof({ weight: 8, arbitrary: text }, { weight: 1, arbitrary: fc.oneof(fc.nat(), fc.constant(null), fc.constant(['c1']), fc.constant({ id: 'c1' })) }, { weight: 1, arbitrary: fc.constant(undefined) });

/** data shaped for the fold of each type (so titles, reasons, usage and models are really read), or anything. */
const dataFor = (type: unknown): fc.Arbitrary<unknown> => {
  const any = fc.oneof({ weight: 6, arbitrary: json }, { weight: 1, arbitrary: huge.map((s) => ({ content: s })) }, { weight: 1, arbitrary: deep }, { weight: 1, arbitrary: fc.constant(undefined) });
  const shaped: Record<string, fc.Arbitrary<unknown>> = {
    'turn/start': fc.record({ turn: fc.oneof(fc.nat(9), fc.string()) }),
    'turn/end': fc.record({ reason: fc.oneof(fc.record({ kind: fc.constantFrom('completed', 'error') }), fc.string(), json) }),
    'user/message': fc.record({ content: fc.oneof(text, fc.array(fc.record({ type: fc.constantFrom('text', 'image'), text }), { maxLength: 3 })), source: fc.oneof(fc.constant(undefined), fc.record({ kind: fc.constantFrom('user', 'runtime-context') })) }),
    'session/title': fc.record({ title: fc.oneof(text, fc.nat()) }),
    'session/end-seed': fc.record({ inherited: fc.oneof(fc.boolean(), fc.constant('true')) }),
    'assistant/message': fc.record({ usage: fc.record({ inputTokens: fc.nat(), outputTokens: fc.nat(), cacheReadTokens: fc.oneof(fc.nat(), fc.constant(undefined)) }), message: fc.record({ source: fc.record({ model: fc.constantFrom('m1', 'm2', '') }) }) }),
    'request/context': fc.record({ model: fc.constantFrom('m1', 'm3') }),
    'request/header': fc.record({ header: fc.record({ config: fc.record({ model: fc.constantFrom('m4', 'm1') }) }) }),
    'assistant/chunk': fc.record({ turn: fc.nat(3), step: fc.nat(3), chunk: fc.record({ type: fc.constant('text-delta'), index: fc.nat(2), text }) }),
    // the audit's fold reads callId: a string mostly, else anything (the full parse decides), sometimes twice or only nested
    'tool/call': fc.record({ callId: callIdValue, name: fc.string(), args: json, callid: fc.oneof(fc.constant(undefined), fc.string()) }),
    'tool/result': fc.oneof(
      { weight: 4, arbitrary: fc.record({ callId: callIdValue, content: fc.oneof(text, huge), isError: fc.boolean() }) },
      { weight: 1, arbitrary: fc.record({ message: fc.record({ source: fc.record({ callId: callIdValue }) }), content: text }) },
      { weight: 1, arbitrary: fc.tuple(callIdValue, callIdValue).map(([a, b]) => new Entries([['callId', a], ['content', 'x'], ['callId', b]].filter(([, v]) => v !== undefined) as Array<[string, unknown]>)) },
    ),
  };
  return typeof type === 'string' && Object.hasOwn(shaped, type) ? fc.oneof({ weight: 4, arbitrary: shaped[type] }, { weight: 1, arbitrary: any }) : any;
};

type RowSpec = { entries: Array<[string, unknown]>; seq: 'next' | 'gap' | 'dup' | 'missing' | unknown; packed: boolean };

const eventRow: fc.Arbitrary<RowSpec> = typeValue.chain((type) =>
  fc
    .record({
      seq: seqForm,
      time: timeValue,
      data: dataFor(type),
      hasData: fc.nat(20).map((n) => n > 0),
      ignorable: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(true, false, 'true', 1, null) }),
      extra: fc.array(fc.tuple(fc.oneof(fc.constantFrom('surfaceOp', 'sourceEventSeqs', 'x', '', 'typ', 'types', 'data2', '\u00e9'), fc.string()), json), { maxLength: 3 }),
      dups: fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.constantFrom('type', 'seq', 'time', 'data', 'ignorable'), fc.oneof(json, typeValue), fc.boolean()), { minLength: 1, maxLength: 2 }) }),
      order: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
    })
    .map(({ seq, time, data, hasData, ignorable, extra, dups, order }) => {
      const entries: Array<[string, unknown]> = [['type', type]];
      entries.push(['seq', seq], ['time', time]);
      if (hasData && data !== undefined) entries.push(['data', data]);
      if (ignorable !== undefined) entries.push(['ignorable', ignorable]);
      entries.push(...extra);
      // keys in any order
      const sorted = entries.map((e, k) => [order[k % order.length] + k / 100, e] as const).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
      // a duplicate before the real key (the real one wins) or after it (the duplicate wins)
      for (const [k, v, after] of dups) {
        const at = sorted.findIndex(([key]) => key === k);
        if (at < 0 || !after) sorted.unshift([k, v]);
        else sorted.push([k, v]);
      }
      return { entries: sorted, seq, packed: false };
    }),
);

const packedRow: fc.Arbitrary<RowSpec> = fc
  .record({
    type: fc.constantFrom(...Object.keys(PACKED_TYPES)),
    parts: fc.oneof({ weight: 8, arbitrary: fc.array(text, { minLength: 1, maxLength: 5 }) }, { weight: 1, arbitrary: fc.array(json, { maxLength: 3 }) }),
    dt: fc.array(fc.oneof(fc.nat(50), fc.string()), { maxLength: 5 }),
    time0: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }) }, { weight: 1, arbitrary: json }),
    seq: seqForm,
  })
  .map(({ type, parts, dt, time0, seq }) => {
    const data: Record<string, unknown> = { turn: 1, step: 1, index: 0, dt };
    if (type === 'tool-call-chunks') Object.assign(data, { id: 'c1', name: 'bash', args: parts });
    else data.texts = parts;
    return { entries: [['type', type], ['seq0', seq], ['time0', time0], ['data', data]], seq, packed: true, parts: parts.length } as RowSpec & { parts: number };
  });

/** A point in a line, taken modulo its length (fc.double would sit mostly at its ends, 0 and 1). */
const anywhere = fc.nat({ max: 0x7fffffff });

/** What happens to a line's bytes after it is written. */
const damage = fc.oneof(
  { weight: 24, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut' as const), at: anywhere }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'weld' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bytes' as const), at: anywhere, bytes: fc.constantFrom([0xff], [0xc3], [0xe2, 0x82], [0x00], [0x09], [0x0d], [0x22], [0x5c], [0x7b], [0x7d], [0x2c], [0xef, 0xbb, 0xbf], [0xc3, 0xa9]) }) },
  { weight: 1, arbitrary: fc.constantFrom({ kind: 'blank' as const }, { kind: 'spaces' as const }, { kind: 'crlf' as const }, { kind: 'pad' as const }) },
);

const headerFor = (version: number, seeded: boolean): Record<string, unknown> =>
  version >= 2
    ? { type: 'session', version, id: 's1', createdAt: 1_700_000_000_000, cwd: '/w', isSeeded: seeded, delegationDepth: 0 }
    : { type: 'session', version, id: 's1', createdAt: 1_700_000_000_000, ...(version === 1 ? { delegationDepth: 0 } : {}), ...(seeded ? { seedLength: 3 } : {}) };

const logArb = fc.record({
  version: fc.constantFrom(0, 1, 2, 3, 4),
  seeded: fc.boolean(),
  bom: fc.nat(10).map((n) => n === 0),
  rows: fc.array(fc.tuple(fc.oneof({ weight: 9, arbitrary: eventRow }, { weight: 1, arbitrary: packedRow }), damage, fc.nat()), { minLength: 1, maxLength: 60, size: '+1' }),
  tail: fc.constantFrom('\n', '', '{"type":"tool/ca'),
  file: fc.constantFrom('/p/log.jsonl', '/root/proj/abc/session.jsonl', '/root/proj/abc/session.v4.jsonl'),
  splits: fc.array(anywhere, { maxLength: 4 }),
});

/** the value type of an arbitrary */
type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;

function logBytes(log: ValueOf<typeof logArb>): Buffer {
  const lines: Buffer[] = [];
  const header = Buffer.from(JSON.stringify(headerFor(log.version, log.seeded)));
  lines.push(log.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), header]) : header);
  let next = 0;
  const ends: Array<'\n' | ''> = ['\n'];
  for (const [row, dmg, style] of log.rows) {
    const n = row.packed ? ((row as RowSpec & { parts: number }).parts ?? 1) : 1;
    let seq: unknown = row.seq;
    if (seq === 'next') seq = next;
    else if (seq === 'gap') seq = next + 2;
    else if (seq === 'dup') seq = Math.max(0, next - 1);
    const entries = row.entries.flatMap(([k, v]): Array<[string, unknown]> => {
      if (v === row.seq && (k === 'seq' || k === 'seq0')) return row.seq === 'missing' ? [] : [[k, seq]];
      return v === undefined ? [] : [[k, v]];
    });
    if (typeof seq === 'number') next = seq + n;
    let line = Buffer.from(writeJson(new Entries(entries), style));
    switch (dmg.kind) {
      case 'cut':
        line = line.subarray(0, dmg.at % (line.length + 1));
        break;
      case 'bytes': {
        const at = dmg.at % (line.length + 1);
        line = Buffer.concat([line.subarray(0, at), Buffer.from(dmg.bytes), line.subarray(at)]);
        break;
      }
      case 'blank':
        line = Buffer.alloc(0);
        break;
      case 'spaces':
        line = Buffer.from(' \t ');
        break;
      case 'crlf':
        line = Buffer.concat([line, Buffer.from('\r')]);
        break;
      case 'pad':
        line = Buffer.concat([Buffer.from(' '), line, Buffer.from(' \r')]);
        break;
    }
    lines.push(line);
    ends.push(dmg.kind === 'weld' ? '' : '\n');
  }
  const parts: Buffer[] = [];
  lines.forEach((l, k) => parts.push(l, Buffer.from(k + 1 < lines.length ? ends[k] : log.tail === '\n' ? '\n' : '')));
  if (log.tail.length > 1) parts.push(Buffer.from('\n' + log.tail));
  return Buffer.concat(parts);
}

/** Feeds `bytes` as a read does: complete lines, the unfinished rest carried into the next piece. */
function read(file: string, bytes: Buffer, retain: boolean, splits: number[] = []): LogReader {
  const r = new LogReader(file, { retain });
  const cuts = [...new Set(splits.map((s) => s % (bytes.length + 1)))].sort((a, b) => a - b);
  let carry = Buffer.alloc(0);
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    const piece = Buffer.concat([carry, bytes.subarray(from, to)]);
    carry = piece.subarray(r.feed(piece));
    from = to;
  }
  return r;
}

// ---------------------------------------------------------------- the properties

describe('envelope scan (the index fast path)', () => {
  it('a facts-only read equals the full parse: facts, diagnostics, seq checks, refusals', () => {
    let scanned = 0;
    let parsed = 0;
    fc.assert(
      fc.property(logArb, (log) => {
        const bytes = logBytes(log);
        const fullReader = read(log.file, bytes, true);
        const fastReader = read(log.file, bytes, false, log.splits);
        const full = fullReader.snapshot();
        const fast = fastReader.snapshot();
        expect(fast).toStrictEqual(full);
        // the audit's structure folded while reading (scanned callIds included) is the audit of the events read
        const structure = auditStructure(fullReader.events);
        expect(fastReader.structure()).toStrictEqual(structure);
        expect(fullReader.structure()).toStrictEqual(structure);
        // how much of it the scan answered (the whole point: most lines)
        for (let pos = bytes.indexOf(10) + 1, nl = bytes.indexOf(10, pos); nl >= 0; pos = nl + 1, nl = bytes.indexOf(10, pos)) {
          if (scanEnvelope(bytes, pos, nl)) scanned++;
          else parsed++;
        }
      }),
      { numRuns: runs(300) },
    );
    // both paths really ran, on thousands of lines each
    expect(scanned).toBeGreaterThan(1500);
    expect(parsed).toBeGreaterThan(1500);
  }, PROPERTY_TIMEOUT);

  /** What the scan read of a line, and what expandRow makes of JSON.parse (undefined: JSON.parse throws). */
  const envelopes = (line: string) => {
    const buf = Buffer.from(line);
    const ev = scanEnvelope(buf, 0, buf.length);
    let rows: ReturnType<typeof expandRow> | undefined;
    try {
      rows = expandRow(JSON.parse(buf.toString('utf8')));
    } catch {
      rows = undefined;
    }
    return { ev, rows };
  };
  const expectSame = ({ ev, rows }: ReturnType<typeof envelopes>): void => {
    if (ev === undefined) return;
    expect(rows).toBeDefined(); // the scan answered: JSON.parse must accept the line
    expect(typeof rows).not.toBe('string');
    const list = rows as Exclude<typeof rows, string | undefined>;
    expect(list.length).toBe(1);
    expect(FOLD_READS_DATA.has(list[0].type)).toBe(false);
    const w = list[0];
    expect({ type: ev.type, seq: ev.seq, time: ev.time, ignorable: ev.ignorable === true }).toStrictEqual({ type: w.type, seq: w.seq, time: w.time, ignorable: w.ignorable === true });
    // a tool call or result: its callId as JSON.parse reads it (a string at data's top level), for the audit's fold
    if (w.type === 'tool/call' || w.type === 'tool/result') {
      const d = w.data as Record<string, unknown>;
      expect(typeof d.callId).toBe('string');
      expect(ev.data).toStrictEqual({ callId: d.callId });
    } else expect(ev.data).toBeUndefined();
  };
  /** An edit of a line's text: at a point, insert one of the bytes that matter to JSON (or nothing), and drop some. */
  const edit = fc.tuple(anywhere, fc.constantFrom('', '{', '}', '[', ']', '"', ':', ',', '\\', '\\u', '\\x', '0', '-', '.', 'e', '+', ' ', '\t', '\r', '\u0001', '\u001f', 't', 'f', 'n', 'u', '\u00e9', '\uFEFF'), fc.nat(2));
  const applyEdits = (s: string, edits: Array<[number, string, number]>): string => {
    for (const [at, ins, del] of edits) {
      const i = at % (s.length + 1);
      s = s.slice(0, i) + ins + s.slice(i + del);
    }
    return s;
  };

  it('when the scan answers, JSON.parse accepts the line and expandRow gives that one event', () => {
    let answered = 0;
    fc.assert(
      fc.property(eventRow, fc.nat(), fc.oneof(fc.constant([] as [number, string, number][]), fc.array(edit, { minLength: 1, maxLength: 3 })), (row, style, edits) => {
        const entries = row.entries.flatMap(([k, v]): Array<[string, unknown]> => (v === undefined || v === 'missing' ? [] : [[k, ['next', 'gap', 'dup'].includes(v as string) && k === 'seq' ? 7 : v]]));
        const r = envelopes(applyEdits(writeJson(new Entries(entries), style), edits));
        if (r.ev) answered++;
        expectSame(r);
      }),
      { numRuns: runs(3000) },
    );
    expect(answered).toBeGreaterThan(300);
  }, PROPERTY_TIMEOUT);

  it('edits to a line the scan answers: it still answers only for valid JSON, with the same envelope', () => {
    // lines the scan reads, then broken (or not) in one to three places: the validator's grammar under test
    const good = fc.record({
      type: fc.constantFrom(...SKINNY_TYPES),
      seq: fc.nat(1_000_000),
      time: fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }),
      data: fc.oneof(json, dataFor('assistant/chunk'), dataFor('tool/result')),
      extra: fc.array(fc.tuple(fc.string(), json), { maxLength: 2 }),
      order: fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
    });
    let answered = 0;
    let refused = 0;
    fc.assert(
      fc.property(good, fc.nat(), fc.oneof({ weight: 3, arbitrary: edit.map((e) => [e]) }, { weight: 1, arbitrary: fc.array(edit, { minLength: 2, maxLength: 3 }) }), ({ type, seq, time, data, extra, order }, style, edits) => {
        const entries: Array<[string, unknown]> = [['type', type], ['seq', seq], ['time', time], ['data', data ?? null], ...extra];
        const sorted = entries.map((e, k) => [order[k % order.length] + k / 100, e] as const).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
        const base = writeJson(new Entries(sorted), style);
        if (!envelopes(base).ev) return; // (an escaped key, deep data: not a line the scan reads)
        const r = envelopes(applyEdits(base, edits));
        if (r.ev) answered++;
        else refused++;
        expectSame(r);
      }),
      { numRuns: runs(5000) },
    );
    expect(answered).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(1000);
  }, PROPERTY_TIMEOUT);

  it('nesting of any depth: the scan gives up past its limit, the full parse decides (no stack overflow)', () => {
    const header = '{"type":"session","version":0,"id":"d","createdAt":1}\n';
    for (const depth of [62, 63, 64, 65, 1_000, 200_000]) {
      const arrays = `{"type":"tool/result","seq":0,"time":1,"data":${'['.repeat(depth)}${']'.repeat(depth)}}\n`;
      const objects = `{"type":"tool/result","seq":1,"time":1,"data":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}\n`;
      const bytes = Buffer.from(header + arrays + objects);
      expect(read('/p/log.jsonl', bytes, false).snapshot()).toStrictEqual(read('/p/log.jsonl', bytes, true).snapshot());
    }
  });
});
