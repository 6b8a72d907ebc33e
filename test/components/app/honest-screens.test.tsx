// The screen never claims what is not so. The fork's status says
// what was done to show the child (a filter cleared, the scope widened) and
// what y will copy; an empty scoped list says the scope hides the sessions;
// the fork dialog names the file it pins and words the cut truly; the reader's
// footer is its keys and ? lists them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memorySession } from '../../../src/session/store.js';
import { loadRootSync, type RootIndex } from '../../../src/storage/load-root.js';
import { projectScope } from '../../../src/storage/project-scope.js';
import { reduce } from '../../../src/view/app/reducer.js';
import { initialAppState } from '../../../src/view/app/surfaces.js';
import { snapshotWorld } from '../../../src/world/world.js';
import { boundaryLabel, openForkDialog } from '../../../src/view/dialog/fork-dialog-state.js';
import { KEY, mountApp } from '../../support/app-harness.js';

const SAMPLES = path.resolve(__dirname, '../../../sample-sessions');
let dir: string;
let index: RootIndex;
let unmount: (() => void) | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-honest-'));
  fs.cpSync(SAMPLES, dir, { recursive: true });
  index = loadRootSync(dir);
});
afterEach(() => {
  unmount?.();
  unmount = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

function mount(o: Partial<Parameters<typeof mountApp>[0]> = {}) {
  const m = mountApp({ index, size: { columns: 120, rows: 30 }, ...o });
  unmount = m.unmount;
  return m;
}
const flat = (f: string) => f.replace(/[│\s]+/g, ' ');

describe('after a fork', () => {
  it('a filter that would hide the child is cleared, and the status says so and why y is off (a flat folder)', async () => {
    const m = mount();
    await m.press('/', 'bump', KEY.enter, 'f', KEY.enter);
    expect(m.state().selection).toBe(path.join(dir, 'child-1.jsonl'));
    expect(m.state().filter.text).toBe('');
    const status = m.state().status?.text ?? '';
    expect(status).toContain('forked bump-vitest -> child-1 (child-1.jsonl) · filter "bump" cleared to show it · y is off: dsh --resume would refuse it: not in a harness root');
    expect(status).not.toContain('y copies');
    expect(flat(m.frame())).toContain('forked bump-vitest -> child-1 (child-1.jsonl) · filter "bump" cleared to show it'); // the footer shows it
  });

  it('a project scope that would hide the child is widened, and the status says so', () => {
    const scope = projectScope(dir, '/elsewhere/project');
    const world = snapshotWorld(index, 1, 1795990000000, () => 'kid', { scope });
    const source = index.store.getAll('bump-vitest')[0];
    const child = memorySession({ ...source.header, id: 'kid' }, []);
    const s0 = { ...initialAppState({ columns: 120, rows: 30 }), allProjects: false };
    const out = reduce(s0, { type: 'forked', child, source }, world).state;
    expect(out.allProjects).toBe(true);
    expect(out.status?.text).toContain('showing all projects: it is outside this one (p)');
  });
});

describe('an empty scoped list', () => {
  it('says that the project scope hides the sessions and that p shows them', async () => {
    const m = mount({ scope: projectScope(dir, '/elsewhere/project'), startScoped: true });
    expect(flat(m.frame())).toContain('none of the 12 sessions is in this project: p shows every project');
    await m.press('p');
    expect(m.frame()).toMatch(/12 sessions · order/);
  });
});

describe('the fork dialog', () => {
  it('names the source file (two files with one id are told apart) and words the cut truly', async () => {
    const m = mount();
    await m.press('/', 'bump', KEY.enter, 'f');
    expect(flat(m.frame())).toMatch(/file bump-vitest\.jsonl/);
    expect(flat(m.frame())).toContain('boundary seq 28 (whole log)');
    const d = m.state().dialog;
    if (d?.kind !== 'confirm') throw new Error('no confirm dialog');
    expect(boundaryLabel(d, d.source.length)).toBe('seq 28 (whole log)');
    // replaced by a longer log (or grown): the pinned seq is no longer the whole log
    expect(boundaryLabel(d, d.source.length + 9)).toBe('seq 28 (the whole log when this opened; it has 38 events now)');
    const world = snapshotWorld(index, 1, 1795990000000, () => 'kid');
    const cut = openForkDialog(world, d.source, 20, () => 'kid');
    if (cut.kind === 'confirm') expect(boundaryLabel(cut, d.source.length)).toBe('seq 20');
  });
});

describe('the reader', () => {
  it('shows its own keys in the footer (not a leftover status), and ? lists them', async () => {
    const m = mount();
    await m.press('/', 'add-retry', KEY.enter, KEY.enter, '/', 'histogram', KEY.enter);
    expect(m.frame()).toMatch(/match 1 of \d+/);
    await m.press('o');
    const footer = () => m.frame().trimEnd().split('\n').at(-1) ?? '';
    expect(footer()).toMatch(/Space page .*O pager .*Esc back .*\? help/);
    await m.press('?');
    expect(m.frame()).toContain('Keys — reader');
    expect(m.frame()).toContain('open in $PAGER');
    await m.press(KEY.esc);
    expect(footer()).toMatch(/Space page/);
  });
});
