/** Why a fetch() failed, in words: fetch says only "fetch failed" and keeps the socket error in `cause`. */
export function whyFetchFailed(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
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
      return cause?.message ?? (error instanceof Error ? error.message : String(error));
  }
}
