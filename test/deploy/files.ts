import { readFileSync } from 'node:fs';
import path from 'node:path';

/** One Dockerfile instruction: its name in capitals and its arguments, continuation lines joined. */
export interface DockerfileInstruction {
  name: string;
  args: string;
}

/** The repository's Dockerfile as instructions (comments and blank lines dropped). */
export function dockerfileInstructions(): DockerfileInstruction[] {
  const text = readFileSync(path.resolve('Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [name = '', ...rest] = line.split(/\s+/);
      return { name: name.toUpperCase(), args: rest.join(' ') };
    });
}
