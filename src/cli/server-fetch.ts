import { whyFetchFailed } from '../app/fetch-failure.js';

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
      `could not reach the Postdeck server at ${url.origin}: ${whyFetchFailed(error)}. ` +
        'Is it running (npm start)? Pass --server URL, or set POSTDECK_SERVER, for another address.',
      { cause: error },
    );
  }
}
