/** A one-line progress indicator on a TTY; on anything else it stays silent. */
export interface Spinner {
  update(text: string): void;
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Starts a spinner on `stream` when it is a terminal. */
export function startSpinner(stream: NodeJS.WriteStream, text: string): Spinner {
  if (!stream.isTTY) return { update() {}, stop() {} };
  let frame = 0;
  let label = text;
  const timer = setInterval(() => {
    stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label}\x1b[K`);
  }, 100);
  return {
    update(next) {
      label = next;
    },
    stop() {
      clearInterval(timer);
      stream.write('\r\x1b[K');
    },
  };
}
