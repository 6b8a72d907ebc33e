// The command that continues a session in the harness: `dsh --resume=<id>`
// (the harness's own flag), run in the session's cwd. Shell-quoted for a
// clipboard paste, argv for running it directly.

/** A POSIX-shell word: bare when it is plainly safe, else single-quoted. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface ResumeCommand {
  /** what `dsh` gets */
  argv: string[];
  /** the session's working directory, when the log records one */
  cwd?: string;
  /** `dsh --resume=<id>` */
  command: string;
  /** `cd <cwd> && dsh --resume=<id>`: paste-ready */
  shell: string;
}

export function resumeCommand(s: { id: string; cwd?: string }): ResumeCommand {
  const arg = `--resume=${s.id}`;
  const command = `dsh ${shellQuote(arg)}`;
  return { argv: [arg], ...(s.cwd !== undefined ? { cwd: s.cwd } : {}), command, shell: s.cwd !== undefined ? `cd ${shellQuote(s.cwd)} && ${command}` : command };
}
