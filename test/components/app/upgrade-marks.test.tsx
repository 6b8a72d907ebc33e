// What the app says of sessions the current release would refuse on upgrade:
// the real v2 logs (their v2 to v3 edge refuses them: a surface event before
// the first step) beside a real v3 one, in the harness's layout.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { cleanupTmp, REPO, tmpDir } from '../../support/fixtures.js';
import { KEY, mountApp } from '../../support/app-harness.js';
import { runCli } from '../../support/run-cli.js';

const WS = path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4', 'zdsh-vfs-workspace', '--dsh-workspace--');
const CHRONOLOGY = 'format v2 surface before first step cannot acquire a system head without changing chronology';

afterAll(cleanupTmp);
let app: ReturnType<typeof mountApp> | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

/** preview-showcase and preview-follow-up-builder as v2, preview-architecture-review as v3. */
function root(): string {
  const r = tmpDir('dsh-upgrade-');
  for (const [id, v] of [['preview-showcase', 2], ['preview-follow-up-builder', 2], ['preview-architecture-review', 3]] as const) {
    fs.mkdirSync(path.join(r, '--dsh-workspace--', id), { recursive: true });
    fs.copyFileSync(path.join(WS, id, `session.v${v}.jsonl`), path.join(r, '--dsh-workspace--', id, `session.v${v}.jsonl`));
  }
  return r;
}

describe('sessions the current release would refuse on upgrade', () => {
  it('list --json: upgrade {to, ok, edge, reason} on each session', () => {
    const r = runCli(['list', '--dir', root(), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const byId = new Map((JSON.parse(r.stdout).sessions as Array<{ id: string; upgrade: unknown; resumable: boolean }>).map((s) => [s.id, s]));
    for (const id of ['preview-showcase', 'preview-follow-up-builder']) {
      expect(byId.get(id)!.upgrade).toEqual({ to: 4, ok: false, edge: 'v2→v3', reason: CHRONOLOGY });
      expect(byId.get(id)!.resumable).toBe(true); // the v2 harness that wrote them resumes them
    }
    expect(byId.get('preview-architecture-review')!.upgrade).toEqual({ to: 4, ok: true });
  });

  it('the ⇡ mark in Sessions, is:upgrade-refused, the Turns header and an UPGRADE_REFUSED row in Problems', async () => {
    app = mountApp({ index: loadRootSync(root()), size: { columns: 160, rows: 24 } });
    await app.idle();
    const row = (id: string) => app!.lines().find((l) => l.includes(id) && l.includes('boundary')) ?? '';
    expect(row('preview-showcase')).toMatch(/⇡ boundary .*⚠ UPGRADE_REFUSED · WebWorker Preview Showcase/);
    expect(row('preview-follow-up-builder')).toMatch(/⇡ boundary/);
    expect(row('preview-architecture-review')).not.toMatch(/⇡/);
    await app.press('/', 'is:upgrade-refused', KEY.enter);
    await app.idle();
    expect(app.lines().filter((l) => l.includes('preview-') && l.includes('boundary')).length).toBe(2);
    expect(row('preview-architecture-review')).toBe('');
    await app.press(KEY.enter);
    await app.idle();
    expect(app.lines()[2]).toMatch(/^preview-follow-up-builder +\[at boundary\] +\[⇡ format v4 refuses it on upgrade, at v2→v3: see Problems\] +spawned by preview-showcase/);
    await app.press(KEY.esc, KEY.esc);
    app.unmount();
    app = mountApp({ index: loadRootSync(root()), size: { columns: 200, rows: 24 }, view: 'problems' });
    await app.idle();
    const rows = app.lines().filter((l) => l.includes('UPGRADE_REFUSED'));
    expect(rows.length).toBe(2);
    for (const l of rows) expect(l).toMatch(/^.? ?W UPGRADE_REFUSED/);
    expect(rows.join('\n')).toContain('at v2→v3: format v2 surface before first step');
  });
});
