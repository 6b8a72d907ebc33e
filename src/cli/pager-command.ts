// The pager the reader's O hands its page to: the user's $PAGER, or less -R.

/**
 * $PAGER as a command and arguments (whitespace-separated, with '…' and "…"
 * quoting); `less -R` when unset or blank. The content goes on its stdin.
 */
export function pagerCommand(env: Readonly<Record<string, string | undefined>>): { command: string; args: string[] } {
  const raw = env.PAGER?.trim();
  if (!raw) return { command: 'less', args: ['-R'] };
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(raw); m !== null; m = re.exec(raw)) words.push(m[1] ?? m[2] ?? m[3]);
  return { command: words[0], args: words.slice(1) };
}
