// Starts the Ink app (placeholder until the browser lands).
export async function runTui(dir: string): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write(`dsh-browse: the browser needs an interactive terminal; for scripts use the headless commands: dsh-browse list --dir ${dir} (see --help)\n`);
    return 2;
  }
  process.stderr.write('dsh-browse: browser not built yet\n');
  return 2;
}
