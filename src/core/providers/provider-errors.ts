import { AppError } from '../errors.js';

/** How a network answered a publish init that failed: whether it certainly created nothing, and why in words. */
export interface InitFailure {
  createdNothing: boolean;
  httpStatus: number;
  /** The words a post's error shows when the network refused the init. */
  refusalText: string;
}

/**
 * A failed call to a network, as the shared core judges it: one line for attempt logs and, for a publish
 * init, what the network created. Each provider's API error extends it.
 */
export abstract class ProviderCallError extends AppError {
  /** The network's HTTP status, code, message and log id in one line (never a token). */
  abstract get detail(): string;

  /** Set when the failed call was a publish init. */
  get initFailure(): InitFailure | null {
    return null;
  }
}
