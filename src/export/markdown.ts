// Transcript -> Markdown. Content goes in fenced blocks (inert in every
// renderer); one-line text is backslash-escaped, so nothing from a log becomes
// markup, a link or HTML.
import { escMd, fenced } from './escape.js';
import { changesLine, editLine, FLUSH_LINES, isoTime, ownChanges, ownEdits, rangeLine, turnMeta, usageLine } from './common.js';
import { commandEnd, type Changes } from '../session/changes.js';
import { lineageParts, type Item, type TranscriptStream } from './transcript.js';
import { perCellText, timeCaption, tokensCaption, TurnPoints } from './turn-points.js';
import { buckets, sparkline } from '../view/text/sparkline.js';

/** Cells of the per-turn sparklines: a turn a cell up to this many turns. */
const SPARK_CELLS = 60;

function item(it: Item, out: string[]): void {
  switch (it.kind) {
    case 'step':
      out.push(`#### Step ${it.step}`, '');
      break;
    case 'message':
      if (!it.text && !it.reasoning && it.role === 'assistant') break; // a message with only tool calls
      out.push(`**${escMd(it.role)}** (seq ${it.seq})`, '');
      if (it.reasoning) out.push('*reasoning*', '', fenced(it.reasoning), '');
      if (it.text) out.push(fenced(it.text), '');
      else if (!it.reasoning) out.push('*(empty)*', '');
      break;
    case 'tool': {
      const status = it.result ? (it.result.isError ? 'error' : 'ok') : 'no result';
      out.push(`**tool call ${escMd(it.name)}** (seq ${it.seq}) → ${status}`, '', fenced(it.arguments, 'json'), '');
      if (it.result) out.push(`result (seq ${it.result.seq})${it.result.isError ? ' **error**' : ''}:`, '', fenced(it.result.text), '');
      break;
    }
    case 'stream':
      out.push(`*${it.count} streamed chunk(s) (seq ${it.seq})*`, '');
      break;
    case 'event':
      out.push(`*${escMd(it.type)}* (seq ${it.seq}) ${escMd(it.summary)}`, '');
      break;
  }
}

/** The transcript as Markdown, a piece a block (the text is its lines joined by newlines). */
export function* markdownText(t: TranscriptStream): Generator<string> {
  const h = t.head;
  const out: string[] = [];
  const lineage = lineageParts(h.lineage)
    .map((p, i, a) => (i === a.length - 1 ? `**${escMd(p.id)}**` : escMd(p.id)) + (p.note ? ` (${escMd(p.note)})` : ''))
    .join(' → ');
  out.push(`# Session ${escMd(h.id)}`, '');
  out.push(`- lineage: ${lineage}`);
  if (h.file !== undefined) out.push(`- file: ${escMd(h.file)}`);
  if (h.cwd !== undefined) out.push(`- cwd: ${escMd(h.cwd)}`);
  out.push(`- created: ${isoTime(h.createdAt)}`);
  out.push(`- exported: ${rangeLine(h)}`);
  out.push(`- usage: ${escMd(usageLine(h.usage))}`);
  if (h.usage.inherited && h.usage.own) out.push(`  - inherited: ${escMd(usageLine(h.usage.inherited))}`, `  - own: ${escMd(usageLine(h.usage.own))}`);
  if (h.usage.models?.length) out.push(`- model: ${h.usage.models.map(escMd).join(', ')}`);
  out.push('');
  yield out.join('\n');
  const points = new TurnPoints();
  for (const b of t.blocks) {
    out.length = 0;
    if (b.kind === 'seed-end') {
      out.push('---', '', `*— end of the seed inherited from ${escMd(b.parent ?? '?')}: own events from seq ${b.seq} —*`, '');
    } else if (b.kind === 'between') item(b.item, out);
    else {
      out.push(`## Turn ${b.turn} — ${escMd(turnMeta(b))}`, '', `*turn start (seq ${b.seq})*`, '');
      for (const it of b.items) {
        item(it, out);
        // a turn of any size (its items read as they come): written a few hundred lines at a time, the same text
        if (out.length >= FLUSH_LINES) yield '\n' + out.splice(0).join('\n');
      }
      const times = t.turnTimes(b);
      if (times) points.add(times.point);
      if (b.open) out.push(`*— turn ${b.turn} still open (last seq ${b.lastSeq}) —*`, '');
      else out.push(`*— turn ${b.turn} end: ${escMd(b.reason ?? '?')}${b.detail ? `: ${escMd(b.detail)}` : ''} (seq ${b.lastSeq})${b.boundary ? ' · fork boundary' : ''} —*`, '');
    }
    if (out.length > 0) yield '\n' + out.join('\n');
  }
  if (points.length) yield '\n' + seriesLines(points).join('\n');
  yield* markdownChanges(t.changes());
  // the last line says the file is whole (HTML ends with </html>, JSON with its closing brace)
  yield `\n*— end of the transcript: ${rangeLine(h)} —*\n`;
}

/** Tokens and time per turn as sparklines (the terminal's glyphs), after the turns: a streamed export knows them only then. */
function seriesLines(p: TurnPoints): string[] {
  const per = perCellText(buckets(p.tokens, SPARK_CELLS).per);
  return [
    '## Tokens and time per turn',
    '',
    `- tokens (input + output): \`${sparkline(p.tokens, SPARK_CELLS)}\` ${escMd(`(${tokensCaption(p)}${per})`)}`,
    `- time (turn start to its last event): \`${sparkline(p.ms, SPARK_CELLS)}\` ${escMd(`(${timeCaption(p)}${per})`)}`,
    '',
  ];
}

/** What the session did to the code: each file's edits as fenced diffs, the commands, the unknown effects. */
function* markdownChanges(c: Changes): Generator<string> {
  const o = ownChanges(c);
  const out: string[] = ['', '## Changes', '', escMd(changesLine(o)), ''];
  for (const f of o.files) {
    out.push(`### ${f.created ? 'A' : 'M'} ${escMd(f.path)} (+${f.added} −${f.removed})`, '');
    for (const e of ownEdits(f)) out.push(`*${escMd(editLine(e))}*`, '', fenced(e.diff.replace(/\n$/, ''), 'diff'), '');
    yield '\n' + out.splice(0).join('\n');
  }
  if (o.commands.length) {
    out.push('### Commands (what they changed is not in the log)', '');
    for (const x of o.commands) out.push(`- turn ${x.turn}, seq ${x.seq}: ${escMd(x.command.replace(/\s+/g, ' '))} ${escMd(commandEnd(x))}`);
    out.push('');
  }
  if (o.unknown.length) {
    out.push('### Unknown effect', '');
    for (const x of o.unknown) out.push(`- turn ${x.turn}, seq ${x.seq}: ${escMd(x.tool)} named ${escMd(x.path)}`);
    out.push('');
  }
  if (out.length > 0) yield '\n' + out.join('\n');
}
