import { AppError } from '../errors.js';

/** Parses an ISO date-time that must lie after `now`; otherwise 400 invalid_request at `path`. */
export function futureTime(iso: string, now: Date, path: (string | number)[]): Date {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime()) || at.getTime() <= now.getTime()) {
    const message = `scheduledFor must be in the future (it is ${iso}, now is ${now.toISOString()})`;
    throw new AppError('invalid_request', message, [{ path, message }]);
  }
  return at;
}
