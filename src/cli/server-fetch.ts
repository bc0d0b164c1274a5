/**
 * fetch() to a Postdeck server, where "fetch failed" becomes a sentence naming the server and the
 * cause (refused, unknown host, timed out), and what to try.
 */
export async function fetchServer(url: URL, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new Error(
      `could not reach the Postdeck server at ${url.origin}: ${causeOf(error)}. ` +
        'Is it running (npm start)? Pass --server URL, or set POSTDECK_SERVER, for another address.',
      { cause: error },
    );
  }
}

function causeOf(error: TypeError): string {
  const cause = error.cause as { code?: string; message?: string } | undefined;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'the connection was refused (nothing listens there)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name could not be resolved';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'the connection timed out';
    default:
      return cause?.message ?? error.message;
  }
}
