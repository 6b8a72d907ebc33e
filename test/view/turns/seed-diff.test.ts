import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readerDoc } from '../../../src/view/reader/reader-state.js';
import { diffLines, seedDiffText } from '../../../src/view/turns/seed-diff.js';

describe('seed diff', () => {
  it('diffLines: keeping the kept and + lines gives b, kept and - lines gives a', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 12 }), fc.array(fc.constantFrom('a', 'b', 'c', 'e'), { maxLength: 12 }), (a, b) => {
        const d = diffLines(a, b);
        expect(d.filter((l) => l[0] !== '+').map((l) => l.slice(1))).toEqual(a);
        expect(d.filter((l) => l[0] !== '-').map((l) => l.slice(1))).toEqual(b);
      }),
    );
    expect(diffLines(['x', 'y', 'z'], ['x', 'Y', 'z'])).toEqual([' x', '-y', '+Y', ' z']);
  });
  it('shows both versions of the first differing event as a diff the reader colours', () => {
    const parentEvent = { type: 'user/message', seq: 1, time: 5, data: { content: [{ type: 'text', text: 'prompt 1' }] } };
    const childEvent = { ...parentEvent, data: { content: [{ type: 'text', text: 'prompt 1 (edited)' }] } };
    const text = seedDiffText({ seq: 1, parentKey: '/r/alpha.jsonl', parentEvent, childEvent }, 'tampered');
    const lines = text.split('\n');
    expect(lines.slice(0, 2)).toEqual(['--- parent /r/alpha.jsonl · seq 1', '+++ tampered · seq 1']);
    expect(lines).toContain('-        "text": "prompt 1"');
    expect(lines).toContain('+        "text": "prompt 1 (edited)"');
    const doc = readerDoc(text);
    expect(doc.format).toBe('diff');
    expect(doc.lines.filter((l) => l.kind === 'add').map((l) => l.text)).toEqual(['+        "text": "prompt 1 (edited)"']);
    const short = seedDiffText({ seq: 3, parentKey: 'p', childEvent });
    expect(short).toMatch(/the parent has no event here/);
    expect(short.split('\n').filter((l) => l.startsWith('+')).length).toBeGreaterThan(3);
  });
});
