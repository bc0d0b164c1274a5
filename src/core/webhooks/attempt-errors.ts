/**
 * What went wrong with an attempt, as the delivery log shows it: a category, never the error's text,
 * which would let a tenant map a public host's open ports and services through its own endpoints. The
 * text goes to the server log at debug level (send-job.ts).
 */
export const ATTEMPT_ERRORS = [
  'timeout',
  'dns_failure',
  'address_refused',
  'connection_refused',
  'connection_reset',
  'host_unreachable',
  'tls_error',
  'http_status',
  'network_error',
] as const;
export type AttemptError = (typeof ATTEMPT_ERRORS)[number];

const BY_CODE: Record<string, AttemptError> = {
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  ECONNABORTED: 'connection_reset',
  EHOSTUNREACH: 'host_unreachable',
  ENETUNREACH: 'host_unreachable',
  EHOSTDOWN: 'host_unreachable',
  ENETDOWN: 'host_unreachable',
  ETIMEDOUT: 'timeout',
  ENOTFOUND: 'dns_failure',
  EAI_AGAIN: 'dns_failure',
};

/** The category of a network or TLS error raised by Node's http(s) client. */
export function categoryOf(error: NodeJS.ErrnoException): AttemptError {
  const code = error.code ?? '';
  if (BY_CODE[code]) return BY_CODE[code];
  // OpenSSL's and Node's TLS codes: certificates, handshakes, protocol versions.
  if (/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/.test(code)) return 'tls_error';
  return 'network_error';
}

/** A stored error as the log shows it: errors recorded before categories existed show as `network_error`. */
export function shownError(stored: string | null): AttemptError | null {
  if (stored === null) return null;
  return (ATTEMPT_ERRORS as readonly string[]).includes(stored) ? (stored as AttemptError) : 'network_error';
}
