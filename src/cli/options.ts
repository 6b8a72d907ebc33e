// The command line's options, checked with our own words: Node's parseArgs
// messages name the parser's internals ("Use `--` to terminate…") and print an
// unbalanced quote; ours name the option, the command and where help is.
import { parseArgs } from 'node:util';
import { UsageError } from './commands.js';

export const OPTIONS = {
  dir: { type: 'string' },
  json: { type: 'boolean', default: false },
  session: { type: 'string' },
  at: { type: 'string' },
  id: { type: 'string' },
  turns: { type: 'string' },
  speed: { type: 'string' },
  format: { type: 'string' },
  since: { type: 'string' },
  'no-torn': { type: 'boolean', default: false },
  all: { type: 'boolean', default: false },
  'no-cache': { type: 'boolean', default: false },
  clear: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', default: false },
} as const;

type Spec = { type: 'string' | 'boolean'; short?: string };
const SPECS: Record<string, Spec> = OPTIONS;

/** Where to read more: the command's own help, or the general one. */
const helpHint = (cmd: string | undefined): string => `see dsh-browse ${cmd ? `${cmd} ` : ''}--help`;

/**
 * The first problem with the options in `args`, as a UsageError, or undefined.
 * `commandOf` picks the command from the positionals (for the message).
 * Pure: reads `args` only.
 */
export function optionProblem(args: readonly string[], commandOf: (positionals: string[]) => string | undefined): UsageError | undefined {
  // strict: false reports every option token instead of throwing at the first
  const { tokens, positionals } = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
  const cmd = commandOf(positionals);
  const where = cmd ? ` for ${cmd}` : '';
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    // parseArgs names a known short option by its long name (-h: help); `--constructor` is no option
    const spec = Object.hasOwn(SPECS, t.name) ? SPECS[t.name] : undefined;
    if (!spec) return new UsageError(`unknown option ${t.rawName}${where}; ${helpHint(cmd)}`);
    if (spec.type === 'boolean' && t.value !== undefined) return new UsageError(`option ${t.rawName} takes no value (got ${JSON.stringify(t.value)}); ${helpHint(cmd)}`);
    if (spec.type === 'string') {
      if (t.value === undefined) return new UsageError(`option ${t.rawName} needs a value; ${helpHint(cmd)}`);
      // `--dir --json`: the next word is an option, not the value (`--dir=--json` says it is)
      if (!t.inlineValue && t.value.startsWith('-'))
        return new UsageError(`option ${t.rawName} needs a value, got the option ${t.value} (write ${t.rawName}=${t.value} if that is the value); ${helpHint(cmd)}`);
    }
  }
  return undefined;
}

export function parseCommandLine(args: readonly string[], commandOf: (positionals: string[]) => string | undefined) {
  const problem = optionProblem(args, commandOf);
  if (problem) throw problem;
  return parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true });
}
