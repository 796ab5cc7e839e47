import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A node process started for a test that prints `listening on http://…` once it serves: its URL,
 * or an error with what it printed (it exited, or said nothing in 15 s); `stop` ends it.
 */
export async function startListeningProcess(name: string, args: string[]): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), 15_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${output}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, child, stop };
}
