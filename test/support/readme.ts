import { beforeEach } from 'vitest';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';

/**
 * Reading the README as a person does: its shell blocks, split into the commands one types, and a
 * bash session that runs them one after another (variables set by one line stay for the next).
 */

/** The README's shell blocks (```sh) between the heading `from` and the next heading of that level. */
export function shellBlocks(markdown: string, from: string): { section: string; blocks: string[][] } {
  const start = markdown.indexOf(`\n${from}\n`);
  if (start < 0) throw new Error(`the README has no heading "${from}"`);
  const level = /^#+ /.exec(from)?.[0] ?? '## ';
  const end = markdown.indexOf(`\n${level}`, start + from.length + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => splitCommands(match[1] ?? ''));
  return { section, blocks };
}

/**
 * Splits a shell block into its commands: one a line, except that a trailing backslash or an open
 * quote carries on to the next line. Comments (`# ...` outside quotes) are dropped.
 */
export function splitCommands(block: string): string[] {
  const commands: string[] = [];
  let current = '';
  let quote: "'" | '"' | null = null;
  for (const line of block.split('\n')) {
    let kept = '';
    for (let i = 0; i < line.length; i += 1) {
      const ch = line[i]!;
      if (quote === "'") {
        if (ch === "'") quote = null;
      } else if (ch === '\\') {
        kept += ch + (line[i + 1] ?? '');
        i += 1;
        continue;
      } else if (quote === '"') {
        if (ch === '"') quote = null;
      } else if (ch === "'" || ch === '"') {
        quote = ch;
      } else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]!))) {
        break;
      }
      kept += ch;
    }
    current += (current ? '\n' : '') + (quote ? kept : kept.trimEnd());
    if (quote || current.endsWith('\\')) continue;
    if (current.trim()) commands.push(current.trim());
    current = '';
  }
  if (quote || current.trim()) throw new Error(`an unfinished command at the end of a README block: ${current}`);
  return commands;
}

/** What one command printed and how it ended. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One bash process for the whole walkthrough, as a person's terminal: each command runs in it (its
 * stdin closed), and its output is told apart from the next one's by a marker printed after it.
 */
export class ShellSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly transcript: WriteStream;
  private stdout = '';
  private stderr = '';
  private listeners: ((stderr: string) => void)[] = [];
  private ended = false;

  constructor(cwd: string, env: NodeJS.ProcessEnv, transcriptFile: string) {
    this.transcript = createWriteStream(transcriptFile, { flags: 'w' });
    // Its own process group, so what a command left running can be ended with it.
    this.child = spawn('bash', ['--noprofile', '--norc'], {
      cwd,
      env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      for (const listener of this.listeners) listener(this.stderr);
    });
    this.child.once('exit', () => (this.ended = true));
  }

  /** Runs `command` and waits for it; `onStderr` sees its stderr so far while it runs. */
  async run(
    command: string,
    options: { timeoutMs?: number; onStderr?: (stderr: string) => void } = {},
  ): Promise<CommandResult> {
    const marker = `__readme_${randomBytes(6).toString('hex')}__`;
    this.stdout = '';
    this.stderr = '';
    const listener = options.onStderr;
    if (listener) this.listeners.push(listener);
    this.transcript.write(`$ ${command}\n`);
    this.child.stdin.write(
      `{ ${command}\n} </dev/null\nprintf '\\n%s %d\\n' ${marker} $?; printf '\\n%s\\n' ${marker} >&2\n`,
    );
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    try {
      for (;;) {
        const done = new RegExp(`\\n${marker} (\\d+)\\n`).exec(this.stdout);
        if (done && this.stderr.includes(`\n${marker}\n`)) {
          const result = {
            code: Number(done[1]),
            stdout: this.stdout.slice(0, done.index),
            stderr: this.stderr.slice(0, this.stderr.indexOf(`\n${marker}\n`)),
          };
          this.transcript.write(`${result.stdout}\n${result.stderr}\n[exit ${result.code}]\n\n`);
          return result;
        }
        if (this.ended) throw new Error(`the shell ended while running: ${command}`);
        if (Date.now() > deadline) {
          throw new Error(`${command}\ndid not finish in time; stdout: ${this.stdout}\nstderr: ${this.stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      this.listeners = this.listeners.filter((l) => l !== listener);
    }
  }

  /** Exits the shell; a command still running (a step that failed) is ended with its process group. */
  async close(): Promise<void> {
    if (!this.ended) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.stdin.end('exit\n');
      const timer = setTimeout(() => process.kill(-this.child.pid!, 'SIGTERM'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    await new Promise((resolve) => this.transcript.end(resolve));
  }
}

/**
 * Makes a file's tests one walk, as a reader follows the README: once a step fails, the steps after
 * it are skipped (they depend on it) rather than failing for its sake. Call at the file's top level.
 */
export function skipAfterFirstFailure(): void {
  let broken: string | undefined;
  beforeEach((context) => {
    if (broken) context.skip(`an earlier step failed: ${broken}`);
    context.onTestFailed(() => {
      broken ??= context.task.name;
    });
  });
}
