// Transcript -> one self-contained HTML file: inline CSS, no scripts, no
// external resources (renders offline). Every log string is HTML-escaped, and
// a Content-Security-Policy forbids scripts outright as a second wall. The
// pictures (each turn's timeline, the per-turn charts) are inline SVG drawn
// with the same <style>: elements and attributes, nothing to fetch or run.
import { escHtml } from './escape.js';
import { changesLine, editLine, FLUSH_LINES, isoTime, ownChanges, ownEdits, rangeLine, turnMeta, usageLine } from './common.js';
import { commandEnd, type Changes } from '../session/changes.js';
import { lineageParts, type Item, type TranscriptStream } from './transcript.js';
import { timelineSvg } from './timeline-svg.js';
import { CHART_BARS, turnChartSvg } from './turn-chart-svg.js';
import { perCellText, timeCaption, tokensCaption, TurnPoints } from './turn-points.js';
import type { TurnTimes } from './turn-times.js';
import { timeTotals } from '../session/timeline.js';
import { compact } from '../session/usage.js';
import { timelineSummary } from '../view/timeline/timeline-layout.js';
import { durationText } from '../view/text/duration.js';
import { buckets } from '../view/text/sparkline.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1d1f21;background:#fff}
h1{font-size:1.4rem;word-break:break-all}h2{font-size:1.1rem;margin:0 0 .5rem}
pre{white-space:pre-wrap;word-break:break-word;background:#f5f5f4;padding:.5rem .7rem;border-radius:4px;margin:.25rem 0 .75rem;font:12.5px/1.4 ui-monospace,Menlo,Consolas,monospace}
.meta{color:#555}.meta dt{font-weight:600;float:left;clear:left;width:7rem}.meta dd{margin:0 0 .2rem 7.5rem;word-break:break-all}
section.turn{border:1px solid #ddd;border-radius:6px;padding:.8rem 1rem;margin:1rem 0}
.role{font-weight:600;text-transform:capitalize}.seq{color:#888;font-size:.85em;font-weight:normal}
.user pre{background:#eef4ff}.assistant pre{background:#f3fbf2}.reasoning pre{background:#faf6ec;color:#555}
details.tool{margin:.3rem 0 .6rem;border-left:3px solid #8a8;padding-left:.6rem}details.tool.error{border-color:#c55}
summary{cursor:pointer}.err{color:#b00;font-weight:600}.ok{color:#080}.pending{color:#a70}
.step{color:#777;font-size:.9em;margin:.6rem 0 .2rem}.event,.stream{color:#666;font-size:.9em;margin:.2rem 0}
.end{color:#555;border-top:1px dashed #ccc;padding-top:.4rem;margin-top:.6rem}.boundary{color:#080}
.seed{margin:1.2rem 0;padding:.4rem;border-top:2px solid #888;border-bottom:2px solid #888;color:#444;text-align:center}
section.changes{border-top:2px solid #888;margin-top:2rem;padding-top:.5rem}details.file{margin:.3rem 0 .6rem;border-left:3px solid #88a;padding-left:.6rem}
.add{color:#080}.del{color:#b00}.hunk{color:#07a}pre.diff .add{background:#eaf7ea}pre.diff .del{background:#fbeaea}
figure{margin:.6rem 0}figcaption{color:#555;font-size:.9em;margin-bottom:.2rem;word-break:break-word}section.series{border-top:2px solid #888;margin-top:2rem;padding-top:.5rem}
svg.tl,svg.chart{display:block;max-width:100%;height:auto}svg text{font:11px ui-monospace,Menlo,Consolas,monospace;fill:#333}svg text.d{text-anchor:end}svg text.y{text-anchor:end}svg text.note{fill:#a50}
svg .axis line,svg line.axis{stroke:#888}svg line.grid{stroke:#e6e6e6}svg .axis text{text-anchor:middle;fill:#666}
svg rect.m{fill:#3f6fd1}svg rect.t{fill:#e39a3b;stroke:#6b4210;stroke-width:.8}svg rect.s{fill:#9aa0a6}svg rect.fail{stroke:#c00;stroke-width:1.6}
svg rect.open{fill-opacity:.25;stroke-dasharray:4 3;stroke-width:1.2}svg rect.m.open{stroke:#3f6fd1}svg rect.s.open{stroke:#777}svg rect.skew{fill:#c00}svg rect.tick{stroke:none}
svg rect.v{fill:#3f6fd1}svg rect.none{fill:#bbb}
`;

/** The width the pictures are drawn at (a turn's section is ~58rem wide; they scale down with the page). */
const SVG_WIDTH = 900;

function item(it: Item, out: string[]): void {
  switch (it.kind) {
    case 'step':
      out.push(`<div class="step">step ${it.step} <span class="seq">seq ${it.seq}</span></div>`);
      break;
    case 'message': {
      if (!it.text && !it.reasoning && it.role === 'assistant') break; // a message with only tool calls
      const role = escHtml(it.role, true);
      out.push(`<div class="msg ${/^[a-z]+$/.test(it.role) ? it.role : 'other'}"><div class="role">${role} <span class="seq">seq ${it.seq}</span></div>`);
      if (it.reasoning) out.push(`<details class="reasoning"><summary>reasoning</summary><pre>${escHtml(it.reasoning)}</pre></details>`);
      if (it.text) out.push(`<pre>${escHtml(it.text)}</pre>`);
      else if (!it.reasoning) out.push('<div class="event">(empty)</div>');
      out.push('</div>');
      break;
    }
    case 'tool': {
      const r = it.result;
      const status = r ? (r.isError ? '<span class="err">error</span>' : '<span class="ok">ok</span>') : '<span class="pending">no result</span>';
      out.push(`<details class="tool${r?.isError ? ' error' : ''}"><summary><b>${escHtml(it.name, true)}</b> ${status} <span class="seq">seq ${it.seq}</span></summary>`);
      out.push(`<div>arguments</div><pre>${escHtml(it.arguments)}</pre>`);
      if (r) out.push(`<div>result <span class="seq">seq ${r.seq}</span></div><pre>${escHtml(r.text)}</pre>`);
      out.push('</details>');
      break;
    }
    case 'stream':
      out.push(`<div class="stream">${it.count} streamed chunk(s) <span class="seq">seq ${it.seq}</span></div>`);
      break;
    case 'event':
      out.push(`<div class="event"><b>${escHtml(it.type, true)}</b> ${escHtml(it.summary, true)} <span class="seq">seq ${it.seq}</span></div>`);
      break;
  }
}

/** The transcript as one HTML page, a piece a block (the text is its lines joined by newlines). */
export function* htmlText(t: TranscriptStream): Generator<string> {
  const h = t.head;
  const lineage = lineageParts(h.lineage)
    .map((p, i, a) => (i === a.length - 1 ? `<b>${escHtml(p.id, true)}</b>` : escHtml(p.id, true)) + (p.note ? ` <span class="seq">(${escHtml(p.note, true)})</span>` : ''))
    .join(' → ');
  const dl: Array<[string, string]> = [['lineage', lineage]];
  if (h.file !== undefined) dl.push(['file', escHtml(h.file, true)]);
  if (h.cwd !== undefined) dl.push(['cwd', escHtml(h.cwd, true)]);
  dl.push(['created', isoTime(h.createdAt)], ['exported', rangeLine(h)], ['usage', escHtml(usageLine(h.usage), true)]);
  if (h.usage.inherited && h.usage.own) dl.push(['inherited', escHtml(usageLine(h.usage.inherited), true)], ['own', escHtml(usageLine(h.usage.own), true)]);
  if (h.usage.models?.length) dl.push(['model', h.usage.models.map((m) => escHtml(m, true)).join(', ')]);
  const out: string[] = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="generator" content="dsh-browse export">`,
    `<title>dsh session ${escHtml(h.id, true)}</title>`,
    `<style>${CSS}</style>`,
    '</head><body>',
    `<header><h1>Session ${escHtml(h.id, true)}</h1><dl class="meta">${dl.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl></header>`,
    '<main>',
  ];
  yield out.join('\n');
  const points = new TurnPoints();
  for (const b of t.blocks) {
    out.length = 0;
    if (b.kind === 'seed-end') out.push(`<div class="seed">end of the seed inherited from ${escHtml(b.parent ?? '?', true)}: own events from seq ${b.seq}</div>`);
    else if (b.kind === 'between') item(b.item, out);
    else {
      out.push(`<section class="turn" id="turn-${b.turn}-${b.seq}"><h2>Turn ${b.turn} <span class="seq">${escHtml(turnMeta(b), true)} · seq ${b.seq}–${b.lastSeq}</span></h2>`);
      for (const it of b.items) {
        item(it, out);
        // a turn of any size (its items read as they come): written a few hundred lines at a time, the same text
        if (out.length >= FLUSH_LINES) yield '\n' + out.splice(0).join('\n');
      }
      const times = t.turnTimes(b);
      if (times) {
        points.add(times.point);
        out.push(timelineFigure(times));
      }
      out.push(
        b.open
          ? `<div class="end">turn ${b.turn} still open (last seq ${b.lastSeq})</div>`
          : `<div class="end">turn ${b.turn} end: <b>${escHtml(b.reason ?? '?', true)}</b>${b.detail ? `: ${escHtml(b.detail, true)}` : ''} (seq ${b.lastSeq})${b.boundary ? ' · <span class="boundary">fork boundary</span>' : ''}</div>`,
      );
      out.push('</section>');
    }
    if (out.length > 0) yield '\n' + out.join('\n');
  }
  if (points.length) yield '\n' + seriesSection(points);
  yield* htmlChanges(t.changes());
  yield '\n</main></body></html>\n';
}

/** A turn's timeline under a caption saying where its time went (the terminal's summary line); none for a turn without steps or calls. */
function timelineFigure({ timeline, dropped }: TurnTimes): string {
  if (timeline.spans.length === 0 && dropped === 0) return '';
  const sum = timelineSummary(timeTotals(timeline), timeline);
  const caption = timeline.start === undefined ? 'timeline: no time recorded' : `timeline · ${sum.times}${sum.longest ? ` · ${sum.longest}` : ''}`;
  return `<figure class="timeline"><figcaption>${escHtml(caption, true)}</figcaption>\n${timelineSvg(timeline, SVG_WIDTH, dropped)}\n</figure>`;
}

/** Tokens and time per turn, a bar a turn, after the turns (a streamed export knows them only then). */
function seriesSection(p: TurnPoints): string {
  const per = perCellText(buckets(p.tokens, CHART_BARS).per);
  return [
    '<section class="series"><h2>Tokens and time per turn</h2>',
    `<figure><figcaption>tokens per turn (input + output) · ${escHtml(tokensCaption(p) + per, true)}</figcaption>`,
    turnChartSvg(p.turns, p.tokens, SVG_WIDTH, 130, { value: (v) => `${v} tokens`, short: compact, none: 'no tokens', label: 'tokens per turn' }),
    '</figure>',
    `<figure><figcaption>time per turn (turn start to its last event) · ${escHtml(timeCaption(p) + per, true)}</figcaption>`,
    turnChartSvg(p.turns, p.ms, SVG_WIDTH, 130, { value: durationText, short: durationText, none: 'no usable time', label: 'time per turn' }),
    '</figure></section>',
  ].join('\n');
}

/** A diff's lines, each escaped and marked by its kind (added, removed, a hunk header). */
function diffHtml(diff: string): string {
  return diff
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => {
      const text = escHtml(l);
      if (l.startsWith('+++') || l.startsWith('---')) return `<b>${text}</b>`;
      if (l.startsWith('@@')) return `<span class="hunk">${text}</span>`;
      if (l.startsWith('+')) return `<span class="add">${text}</span>`;
      if (l.startsWith('-')) return `<span class="del">${text}</span>`;
      return text;
    })
    .join('\n');
}

/** What the session did to the code: a <details> block per file with its edits' diffs, the commands, the unknown effects. */
function* htmlChanges(c: Changes): Generator<string> {
  const o = ownChanges(c);
  const out: string[] = ['<section class="changes"><h2>Changes</h2>', `<p>${escHtml(changesLine(o), true)}</p>`];
  for (const f of o.files) {
    out.push(`<details class="file"><summary><b>${f.created ? 'A' : 'M'}</b> ${escHtml(f.path, true)} <span class="add">+${f.added}</span> <span class="del">−${f.removed}</span></summary>`);
    for (const e of ownEdits(f)) out.push(`<div class="seq${e.failed ? ' err' : ''}">${escHtml(editLine(e), true)}</div><pre class="diff">${diffHtml(e.diff)}</pre>`);
    out.push('</details>');
    yield '\n' + out.splice(0).join('\n');
  }
  if (o.commands.length) {
    out.push('<h3>Commands <span class="seq">(what they changed is not in the log)</span></h3><ul>');
    for (const x of o.commands) out.push(`<li>turn ${x.turn}, seq ${x.seq}: <code>${escHtml(x.command, true)}</code> ${escHtml(commandEnd(x), true)}</li>`);
    out.push('</ul>');
  }
  if (o.unknown.length) {
    out.push('<h3>Unknown effect</h3><ul>');
    for (const x of o.unknown) out.push(`<li>turn ${x.turn}, seq ${x.seq}: ${escHtml(x.tool, true)} named ${escHtml(x.path, true)}</li>`);
    out.push('</ul>');
  }
  out.push('</section>');
  yield '\n' + out.join('\n');
}
