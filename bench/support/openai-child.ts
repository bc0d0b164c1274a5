import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** A running emulator process: its base URL (OPENAI_BASE_URL) and how to stop it. */
export interface OpenAiChild {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts the OpenAI emulator in a child process with `latencyMs` on every call. */
export async function startOpenAiChild(latencyMs: number): Promise<OpenAiChild> {
  const script = path.resolve('bench/support/openai-process.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, String(latencyMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  return {
    baseUrl: line.trim(),
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}
