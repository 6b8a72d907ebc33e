// What the demo agent of `dsh-browse simulate` says and does: a developer
// agent fixing a café price-formatting bug, turn by turn (non-ASCII on purpose,
// so torn appends can split a multi-byte character).

export interface ToolUse {
  name: string;
  args: Record<string, unknown>;
  result: string;
  /** how long the tool "runs" at speed 1, ms */
  runMs: number;
}

export interface Step {
  reasoning?: string;
  text?: string;
  tools?: ToolUse[];
}

export interface TurnScript {
  prompt: string;
  steps: Step[];
}

const PRICE_TS = `// Prices on the café menu (€, ¥ for the 日本 branch).
export function formatPrice(cents: number, locale = 'fr-FR'): string {
  const value = cents / 100;
  return value.toString() + (locale === 'ja-JP' ? ' ¥' : ' €');
}
`;

export const SCRIPT: TurnScript[] = [
  {
    prompt:
      'The café menu shows "3.5 €" instead of "3,50 €" — and the 日本 branch gets euros too. Can you find the price formatting and fix it? Make sure the tests pass ✓',
    steps: [
      {
        reasoning:
          'The user reports a formatting bug in menu prices. First I should find where prices are formatted; grepping for formatPrice is the quickest way.',
        text: "I'll look for the price formatting code first.",
        tools: [
          {
            name: 'grep',
            args: { pattern: 'formatPrice', path: 'src', include: '*.ts' },
            result:
              'src/menu/price.ts:2:export function formatPrice(cents: number, locale = \'fr-FR\'): string {\nsrc/menu/render.ts:41:    line += formatPrice(item.cents, ctx.locale);\nsrc/menu/render.ts:77:  const total = formatPrice(sum(items), ctx.locale);\ntest/menu/price.test.ts:3:import { formatPrice } from \'../../src/menu/price.js\';',
            runMs: 600,
          },
        ],
      },
      {
        reasoning: 'formatPrice lives in src/menu/price.ts. Let me read it.',
        tools: [{ name: 'read_file', args: { path: 'src/menu/price.ts' }, result: PRICE_TS, runMs: 400 }],
      },
      {
        reasoning:
          'It divides by 100 and calls toString(), so 350 becomes "3.5", and the currency ignores the locale except for a trailing yen sign. Intl.NumberFormat with style currency handles both: "3,50 €" for fr-FR and "￥350" for ja-JP.',
        text: 'The function uses `toString()` — no locale, no fixed decimals. Switching to `Intl.NumberFormat`.',
        tools: [
          {
            name: 'edit_file',
            args: {
              path: 'src/menu/price.ts',
              old_string: "  const value = cents / 100;\n  return value.toString() + (locale === 'ja-JP' ? ' ¥' : ' €');",
              new_string:
                "  const currency = locale === 'ja-JP' ? 'JPY' : 'EUR';\n  const value = currency === 'JPY' ? cents : cents / 100;\n  return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(value);",
            },
            result: 'Applied 1 edit to src/menu/price.ts (3 lines changed).',
            runMs: 300,
          },
        ],
      },
      {
        text: 'Now the tests.',
        tools: [
          {
            name: 'bash',
            args: { command: 'npx vitest run test/menu', description: 'Run the menu tests' },
            result:
              ' ✓ test/menu/price.test.ts (4 tests) 6ms\n ✓ test/menu/render.test.ts (7 tests) 18ms\n\n Test Files  2 passed (2)\n      Tests  11 passed (11)\n   Duration  412ms',
            runMs: 1800,
          },
        ],
      },
      {
        reasoning: 'All green. Summarise the change for the user.',
        text:
          'Fixed. `formatPrice` in `src/menu/price.ts` now uses `Intl.NumberFormat` with the right currency per locale:\n\n- fr-FR: `3,50 €` (was `3.5 €`)\n- ja-JP (日本): `￥350` instead of a euro amount\n\nAll 11 menu tests pass ✓.',
      },
    ],
  },
  {
    prompt: 'Nice. Is formatPrice used anywhere else where the café totals could still be wrong?',
    steps: [
      {
        reasoning: 'Check the other call sites, in particular totals in render.ts and any receipts code.',
        tools: [
          {
            name: 'grep',
            args: { pattern: 'cents / 100|toFixed\\(', path: 'src' },
            result: 'src/receipt/print.ts:58:  out.push(`TOTAL ${(total / 100).toFixed(2)} EUR`);',
            runMs: 500,
          },
          { name: 'read_file', args: { path: 'src/receipt/print.ts', offset: 50, limit: 15 }, result: '50  export function printTotal(out: string[], total: number) {\n51    // receipts are always printed in euros\n…\n58    out.push(`TOTAL ${(total / 100).toFixed(2)} EUR`);\n59  }', runMs: 350 },
        ],
      },
      {
        text:
          'One more place: `src/receipt/print.ts:58` formats the receipt total by hand (`toFixed(2)` + " EUR"). That prints `3.50 EUR`, which is fine for the printer but inconsistent with the menu. I left it unchanged — want me to switch it to `formatPrice` as well?',
      },
    ],
  },
  {
    prompt: 'Yes, switch it, and run the whole suite.',
    steps: [
      {
        tools: [
          {
            name: 'edit_file',
            args: {
              path: 'src/receipt/print.ts',
              old_string: '  out.push(`TOTAL ${(total / 100).toFixed(2)} EUR`);',
              new_string: '  out.push(`TOTAL ${formatPrice(total)}`);',
            },
            result: 'Applied 1 edit to src/receipt/print.ts (1 line changed). Added import of formatPrice.',
            runMs: 300,
          },
        ],
      },
      {
        reasoning: 'Run everything, receipts have snapshot tests that may need the new format.',
        tools: [
          {
            name: 'bash',
            args: { command: 'npm test', description: 'Run the full test suite' },
            result:
              ' ✓ test/menu/price.test.ts (4 tests) 5ms\n ✓ test/menu/render.test.ts (7 tests) 17ms\n ✓ test/receipt/print.test.ts (3 tests) 9ms\n ✓ test/orders/queue.test.ts (12 tests) 31ms\n\n Test Files  4 passed (4)\n      Tests  26 passed (26)\n   Duration  1.21s',
            runMs: 2000,
          },
        ],
      },
      { text: 'Done: receipts now print `TOTAL 3,50 €` through `formatPrice`, and the full suite passes (26/26 ✓).' },
    ],
  },
  {
    prompt: 'Thanks! Could you write a short commit message for all of this?',
    steps: [
      {
        reasoning: 'Short imperative subject, body listing the two changes.',
        text:
          'fix(menu): format prices with Intl.NumberFormat\n\n- formatPrice: locale-aware currency (3,50 € / ￥350 for 日本)\n- receipts: print totals through formatPrice\n\nTests: 26 passed.',
      },
    ],
  },
];

