// The command that continues a session in the harness: `dsh --resume=<id>`
// (the harness's own flag), run in the session's cwd. Shell-quoted for a
// clipboard paste, argv for running it directly.
//
// The id and cwd come from a log, and a log is data from anywhere. Quoting
// stops `;` and `$(…)`, but a control character in a pasted line is a
// keystroke: ESC[201~ ends a bracketed paste early, Ctrl-C drops the line and
// a CR runs what follows as typed. So the paste-ready text is made of
// printable characters only: a word holding anything else is written in
// `$'…'` with that character's UTF-8 bytes as `\xHH` (byte-exact whatever the
// locale), and the shell rebuilds the same bytes when it runs the command.

/**
 * Code points that must never reach a terminal or a shell's line editor as
 * themselves: every control (C0, DEL, C1), format character (the bidi
 * controls, zero-width ones, soft hyphen), line/paragraph separator, lone
 * surrogate, private-use or unassigned code point, and every space but ' '.
 */
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/u;
const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, 'gu');

/** Whether `s` can be pasted into a terminal as it is (no keystrokes, no invisible reordering). */
export const isPrintable = (s: string): boolean => !UNPRINTABLE.test(s);

const hexBytes = (ch: string): string =>
  [...Buffer.from(ch, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');

/**
 * A POSIX-shell word: bare when it is plainly safe, single-quoted when it is
 * printable, else ANSI-C quoted (`$'…'`, bash, zsh, ksh and POSIX.1-2024)
 * with every unprintable character, `\`, `'` and `!` escaped.
 */
export function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_./:=@%+-]+$/.test(s)) return s;
  if (isPrintable(s)) return `'${s.replace(/'/g, `'\\''`)}'`;
  const body = s.replace(/[\\'!]/g, (c) => (c === '!' ? '\\x21' : `\\${c}`)).replace(UNPRINTABLE_ALL, hexBytes);
  return `$'${body}'`;
}

export interface ResumeCommand {
  /** what `dsh` gets */
  argv: string[];
  /** the session's working directory, when the log records one */
  cwd?: string;
  /** `dsh --resume=<id>`: printable, paste-ready */
  command: string;
  /** `cd <cwd> && dsh --resume=<id>`: printable, paste-ready */
  shell: string;
  /** why no command line can continue this session (a NUL in its id or cwd: no argv or path holds one) */
  refusal?: string;
}

export function resumeCommand(s: { id: string; cwd?: string }): ResumeCommand {
  const arg = `--resume=${s.id}`;
  const command = `dsh ${shellQuote(arg)}`;
  const nul = s.id.includes('\0') ? 'its id' : s.cwd?.includes('\0') ? 'its cwd' : undefined;
  return {
    ...(nul ? { refusal: `${nul} holds a NUL character, which no command line or path can carry: nothing to copy or run` } : {}), argv: [arg], ...(s.cwd !== undefined ? { cwd: s.cwd } : {}), command, shell: s.cwd !== undefined ? `cd ${s.cwd.startsWith('-') ? '-- ' : ''}${shellQuote(s.cwd)} && ${command}` : command };
}
