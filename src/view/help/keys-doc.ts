// docs/keys.md, generated from the key tables the app dispatches with (the
// same ones help and the footer show), so the document cannot drift from the
// keys: test/view/help/keys-doc.test.ts fails when the file is stale, and
// `npm run docs:keys` writes it again.
import type { KeyDoc } from '../app/binding.js';
import { everyKeyTable } from '../app/surfaces.js';
import { LEGEND, TEXT_FIELD_KEYS, type HelpLine } from './help.js';

/** A table cell: one line, its pipes escaped, the keys as code. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const keyCell = (keys: string): string => keys.split(' / ').map((k) => `\`${k.replace(/`/g, "'")}\``).join(' / ');

function table(rows: ReadonlyArray<{ keys: string; text: string }>): string[] {
  return ['| key | does |', '|---|---|', ...rows.map((r) => `| ${cell(keyCell(r.keys))} | ${cell(r.text)} |`)];
}

const fromDocs = (keys: readonly KeyDoc[]) => keys.map((b) => ({ keys: b.keys, text: b.help }));
const fromHelp = (lines: readonly HelpLine[]) => lines.map((l) => ({ keys: l.keys, text: l.text }));

export function keysMarkdown(): string {
  const out = [
    '# Keys',
    '',
    '<!-- Generated from the key tables (src/view/help/keys-doc.ts): do not edit; run `npm run docs:keys`. -->',
    '',
    'Whatever has the keyboard (a view, a prompt, the reader, Compare, a dialog,',
    'the menu or help) has its own table; `?` shows the current one in the',
    'browser, and the footer its main keys. A key that cannot act here is shown',
    'greyed with the reason, in the footer and in the `a` menu.',
  ];
  for (const t of everyKeyTable()) {
    out.push('', `## ${t.surface.title}${t.when ? ` (${t.when})` : ''}`, '', ...table(fromDocs(t.keys)));
  }
  out.push('', '## Text fields', '', "In every text field (the Sessions filter, the Turns search, the fork dialog's child id):", '', ...table(fromHelp(TEXT_FIELD_KEYS)));
  out.push('', '## Legend', '', 'The marks in the views\' rows:', '', '| mark | means |', '|---|---|', ...fromHelp(LEGEND).map((r) => `| ${cell(r.keys)} | ${cell(r.text)} |`));
  return out.join('\n') + '\n';
}
